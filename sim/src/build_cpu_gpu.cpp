// cpufreq (kHz) and GPU devfreq (Hz) + nvgpu nodes. List formats follow the
// kernel's show functions (A14): cpufreq prints "%u " per entry, so its lists
// end with a space before the newline; devfreq drops the trailing space.
#include <cerrno>
#include <type_traits>

#include "build.h"

namespace energy::sim {
namespace {

constexpr const char* kCpuDir = "/sys/devices/system/cpu";

template <typename Item>
std::string spaced(const std::vector<Item>& items, bool trailing_space) {
  std::string out;
  for (const Item& item : items) {
    if constexpr (std::is_same_v<Item, std::string>) {
      out += item + " ";
    } else {
      out += std::to_string(item) + " ";
    }
  }
  if (!trailing_space && !out.empty()) out.pop_back();
  return out + "\n";
}

// "0-3", "0,3-5": the kernel's cpulist format.
std::string cpu_ranges(const std::vector<int>& cpus) {
  std::string out;
  for (std::size_t i = 0; i < cpus.size(); ++i) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    out += (out.empty() ? "" : ",") + std::to_string(cpus[i]);
    if (j > i) out += "-" + std::to_string(cpus[j]);
    i = j;
  }
  return line(out);
}

std::vector<int> online_cpus(const std::vector<int>& cpus, const BoardState& state) {
  std::vector<int> out;
  for (int cpu : cpus) {
    const auto it = state.cpu_online.find(cpu);
    if (it != state.cpu_online.end() && it->second) out.push_back(cpu);
  }
  return out;
}

ContentFn policy_content(int policy, std::function<std::string(const CpuPolicyState&)> format) {
  return [policy, format = std::move(format)](const BoardState& state) -> Result<std::string> {
    const auto it = state.policies.find(policy);
    if (it == state.policies.end()) return read_error(EIO, "no state for policy" + std::to_string(policy));
    return format(it->second);
  };
}

void add_policy_state_files(Tree& tree, const std::string& dir, int policy) {
  tree.add_file(dir + "/scaling_governor", kModeReadWrite,
                policy_content(policy, [](const CpuPolicyState& s) { return line(s.governor); }));
  tree.add_file(dir + "/scaling_min_freq", kModeReadWrite,
                policy_content(policy, [](const CpuPolicyState& s) { return line_of(s.min_khz); }));
  tree.add_file(dir + "/scaling_max_freq", kModeReadWrite,
                policy_content(policy, [](const CpuPolicyState& s) { return line_of(s.max_khz); }));
  tree.add_file(dir + "/scaling_cur_freq", kModeReadOnly,
                policy_content(policy, [](const CpuPolicyState& s) { return line_of(s.cur_khz); }));
  tree.add_file(dir + "/cpuinfo_cur_freq", kModeRootRead,
                policy_content(policy, [](const CpuPolicyState& s) { return line_of(s.cur_khz); }));
  // Numeric only under the userspace governor (generic cpufreq).
  tree.add_file(dir + "/scaling_setspeed", kModeReadWrite, policy_content(policy, [](const CpuPolicyState& s) {
                  return s.governor == "userspace" ? line_of(s.cur_khz) : line("<unsupported>");
                }));
}

void add_policy(Tree& tree, const CpuSpec& cpu, const CpuPolicySpec& p) {
  const std::string dir = std::string(kCpuDir) + "/cpufreq/policy" + std::to_string(p.policy);
  const std::vector<int> cpus = p.cpus;
  tree.add_text_file(dir + "/scaling_available_frequencies", kModeReadOnly, spaced(cpu.available_khz, true));
  tree.add_text_file(dir + "/scaling_available_governors", kModeReadOnly, spaced(cpu.governors, true));
  tree.add_text_file(dir + "/cpuinfo_min_freq", kModeReadOnly, line_of(cpu.available_khz.front()));
  tree.add_text_file(dir + "/cpuinfo_max_freq", kModeReadOnly, line_of(cpu.available_khz.back()));
  tree.add_text_file(dir + "/related_cpus", kModeReadOnly, spaced(cpus, false));
  tree.add_text_file(dir + "/scaling_driver", kModeReadOnly, line(cpu.scaling_driver));
  tree.add_file(dir + "/affected_cpus", kModeReadOnly, [cpus](const BoardState& state) -> Result<std::string> {
    return spaced(online_cpus(cpus, state), false);
  });
  add_policy_state_files(tree, dir, p.policy);
}

void add_cpu(Tree& tree, int cpu, int policy) {
  const std::string dir = std::string(kCpuDir) + "/cpu" + std::to_string(cpu);
  tree.add_file(dir + "/online", kModeReadWrite, [cpu](const BoardState& state) -> Result<std::string> {
    return line(online_cpus({cpu}, state).empty() ? "0" : "1");
  });
  tree.add_sysfs_link(dir + "/cpufreq", std::string(kCpuDir) + "/cpufreq/policy" + std::to_string(policy));
}

ContentFn gpu_content(std::string name, std::function<std::string(const GpuState&)> format) {
  return [name = std::move(name), format = std::move(format)](const BoardState& state) -> Result<std::string> {
    const auto it = state.gpus.find(name);
    if (it == state.gpus.end()) return read_error(EIO, "no state for gpu " + name);
    return format(it->second);
  };
}

void add_devfreq_files(Tree& tree, const GpuSpec& g) {
  const std::string& dir = g.devfreq_dir;
  const std::string& name = g.devfreq_name;
  tree.add_text_file(dir + "/available_frequencies", kModeReadOnly, spaced(g.available_hz, false));
  tree.add_text_file(dir + "/available_governors", kModeReadOnly, spaced(g.governors, false));
  tree.add_file(dir + "/governor", kModeReadWrite,
                gpu_content(name, [](const GpuState& s) { return line(s.governor); }));
  tree.add_file(dir + "/cur_freq", kModeReadOnly,
                gpu_content(name, [](const GpuState& s) { return line_of(s.cur_hz); }));
  tree.add_file(dir + "/target_freq", kModeReadOnly,
                gpu_content(name, [](const GpuState& s) { return line_of(s.cur_hz); }));
  tree.add_file(dir + "/min_freq", kModeReadWrite,
                gpu_content(name, [](const GpuState& s) { return line_of(s.min_hz); }));
  tree.add_file(dir + "/max_freq", kModeReadWrite,
                gpu_content(name, [](const GpuState& s) { return line_of(s.max_hz); }));
  tree.add_text_file(dir + "/polling_interval", kModeReadWrite, line("25"));  // A18
}

void add_devfreq_links(Tree& tree, const GpuSpec& g) {
  tree.add_sysfs_link("/sys/class/devfreq/" + g.devfreq_name, g.devfreq_dir);
  for (const std::string& alias : g.aliases) tree.add_sysfs_link(alias, g.devfreq_dir);
  if (g.parent_dir.empty()) return;
  tree.add_sysfs_link(g.devfreq_dir + "/device", g.parent_dir);
  if (g.of_node_dir.empty()) return;
  tree.add_sysfs_link(g.parent_dir + "/of_node", g.of_node_dir);
  tree.add_text_file(g.of_node_dir + "/name", kModeReadOnly, g.of_node_name + '\0');  // DT strings end in NUL
}

// The nvgpu device directory (A18 for the values besides load).
void add_nvgpu_files(Tree& tree, const GpuSpec& g) {
  if (g.device_dir.empty()) return;
  const std::string& dir = g.device_dir;
  tree.add_file(dir + "/load", kModeReadOnly,
                gpu_content(g.devfreq_name, [](const GpuState& s) { return line_of(s.load_permille); }));
  tree.add_file(dir + "/is_railgated", kModeReadOnly,
                gpu_content(g.devfreq_name, [](const GpuState& s) { return line(s.cur_hz == 0 ? "1" : "0"); }));
  const std::pair<const char*, const char*> settings[] = {
      {"railgate_enable", "1"}, {"enable_3d_scaling", "1"}, {"tpc_pg_mask", "0"}, {"power/control", "auto"},
      {"force_idle", "0"},      {"elpg_enable", "1"},       {"blcg_enable", "1"}, {"slcg_enable", "1"},
  };
  for (const auto& [file, value] : settings) tree.add_text_file(dir + "/" + file, kModeReadWrite, line(value));
}

void add_podgov_tunables(Tree& tree, const GpuSpec& g) {
  if (!g.podgov_tunables) return;
  const std::pair<const char*, const char*> tunables[] = {
      // A17: names from the reference, values assumed
      {"load_max", "900"}, {"load_target", "700"},  {"load_margin", "100"},
      {"k", "2"},          {"up_freq_margin", "5"}, {"down_freq_margin", "5"},
  };
  for (const auto& [file, value] : tunables) {
    tree.add_text_file(g.devfreq_dir + "/nvhost_podgov/" + file, kModeReadWrite, line(value));
  }
}

}  // namespace

void add_cpufreq(Tree& tree, const CpuSpec& cpu) {
  for (const CpuPolicySpec& p : cpu.policies) {
    add_policy(tree, cpu, p);
    for (int c : p.cpus) add_cpu(tree, c, p.policy);
  }
  const std::vector<int> all = cpu.all_cpus();
  tree.add_text_file(std::string(kCpuDir) + "/present", kModeReadOnly, cpu_ranges(all));
  tree.add_text_file(std::string(kCpuDir) + "/possible", kModeReadOnly, cpu_ranges(all));
  tree.add_file(std::string(kCpuDir) + "/online", kModeReadOnly,
                [all](const BoardState& state) -> Result<std::string> { return cpu_ranges(online_cpus(all, state)); });
}

void add_gpu(Tree& tree, const GpuSpec& gpu) {
  add_devfreq_files(tree, gpu);
  add_devfreq_links(tree, gpu);
  add_nvgpu_files(tree, gpu);
  add_podgov_tunables(tree, gpu);
}

}  // namespace energy::sim
