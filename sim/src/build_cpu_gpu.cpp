// cpufreq (kHz) and GPU devfreq (Hz) + nvgpu nodes. List formats follow the
// kernel's show functions (A14): cpufreq prints "%u " per entry, so its lists
// end with a space before the newline; devfreq drops the trailing space.
//
// Stores (writes) are strict, as energyd must expect from the strictest
// kernel: a frequency that is not in the domain's table, a minimum above the
// maximum (or a maximum below the minimum) and an unknown governor fail with
// EINVAL, so limits must be written in the right order (raise: max first;
// lower: min first). Offlining the last online CPU fails with EBUSY (A29).
#include <algorithm>
#include <cerrno>
#include <type_traits>

#include "build.h"
#include "clock_counters.h"
#include "sysfs_write.h"

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

template <typename Number>
bool listed(const std::vector<Number>& table, std::uint64_t value) {
  return std::find(table.begin(), table.end(), value) != table.end();
}

bool listed_word(const std::vector<std::string>& words, const std::string& word) {
  return std::find(words.begin(), words.end(), word) != words.end();
}

// A write to a file of policy `policy`; `store` checks the text and changes the policy.
WriteFn policy_store(int policy, std::function<Status(CpuPolicyState&, std::string_view)> store) {
  return [policy, store = std::move(store)](BoardState& state, std::string_view text) -> Status {
    const auto it = state.policies.find(policy);
    if (it == state.policies.end()) return read_error(EIO, "no state for policy" + std::to_string(policy));
    return store(it->second, text);
  };
}

// A frequency written to a cpufreq file: must be one of the table's.
Result<std::uint32_t> written_khz(const CpuSpec& cpu, std::string_view text, const char* file) {
  Result<std::uint64_t> khz = parse_written_unsigned(text);
  if (!khz) return khz.take_error();
  if (!listed(cpu.available_khz, *khz)) {
    return rejected_write(std::string(file) + ": " + std::to_string(*khz) +
                          " kHz is not in scaling_available_frequencies");
  }
  return static_cast<std::uint32_t>(*khz);
}

Status store_min_khz(const CpuSpec& cpu, CpuPolicyState& s, std::string_view text) {
  Result<std::uint32_t> khz = written_khz(cpu, text, "scaling_min_freq");
  if (!khz) return khz.take_error();
  if (*khz > s.max_khz) {
    return rejected_write("scaling_min_freq " + std::to_string(*khz) + " kHz is above scaling_max_freq " +
                          std::to_string(s.max_khz) + " kHz (raise scaling_max_freq first)");
  }
  s.min_khz = *khz;
  return ok_status();
}

Status store_max_khz(const CpuSpec& cpu, CpuPolicyState& s, std::string_view text) {
  Result<std::uint32_t> khz = written_khz(cpu, text, "scaling_max_freq");
  if (!khz) return khz.take_error();
  if (*khz < s.min_khz) {
    return rejected_write("scaling_max_freq " + std::to_string(*khz) + " kHz is below scaling_min_freq " +
                          std::to_string(s.min_khz) + " kHz (lower scaling_min_freq first)");
  }
  s.max_khz = *khz;
  return ok_status();
}

// The userspace governor starts at the current frequency (cpufreq_userspace).
Status store_cpu_governor(const CpuSpec& cpu, CpuPolicyState& s, std::string_view text) {
  const std::string governor = written_word(text);
  if (!listed_word(cpu.governors, governor)) {
    return rejected_write("scaling_governor: '" + governor + "' is not in scaling_available_governors");
  }
  if (governor == "userspace" && s.governor != "userspace") s.setspeed_khz = s.cur_khz;
  s.governor = governor;
  return ok_status();
}

Status store_setspeed(const CpuSpec& cpu, CpuPolicyState& s, std::string_view text) {
  if (s.governor != "userspace") return rejected_write("scaling_setspeed needs the userspace governor");
  Result<std::uint32_t> khz = written_khz(cpu, text, "scaling_setspeed");
  if (!khz) return khz.take_error();
  s.setspeed_khz = *khz;
  return ok_status();
}

void add_policy_limits(Tree& tree, const std::string& dir, const CpuSpec& cpu, int policy) {
  tree.add_file(
      dir + "/scaling_governor", kModeReadWrite,
      policy_content(policy, [](const CpuPolicyState& s) { return line(s.governor); }),
      policy_store(policy, [cpu](CpuPolicyState& s, std::string_view t) { return store_cpu_governor(cpu, s, t); }));
  tree.add_file(
      dir + "/scaling_min_freq", kModeReadWrite,
      policy_content(policy, [](const CpuPolicyState& s) { return line_of(s.min_khz); }),
      policy_store(policy, [cpu](CpuPolicyState& s, std::string_view t) { return store_min_khz(cpu, s, t); }));
  tree.add_file(
      dir + "/scaling_max_freq", kModeReadWrite,
      policy_content(policy, [](const CpuPolicyState& s) { return line_of(s.max_khz); }),
      policy_store(policy, [cpu](CpuPolicyState& s, std::string_view t) { return store_max_khz(cpu, s, t); }));
}

void add_policy_state_files(Tree& tree, const std::string& dir, const CpuSpec& cpu, int policy) {
  add_policy_limits(tree, dir, cpu, policy);
  tree.add_file(dir + "/scaling_cur_freq", kModeReadOnly,
                policy_content(policy, [](const CpuPolicyState& s) { return line_of(s.cur_khz); }));
  tree.add_file(dir + "/cpuinfo_cur_freq", kModeRootRead,
                policy_content(policy, [](const CpuPolicyState& s) { return line_of(s.cur_khz); }));
  // Numeric only under the userspace governor (generic cpufreq).
  tree.add_file(
      dir + "/scaling_setspeed", kModeReadWrite,
      policy_content(policy,
                     [](const CpuPolicyState& s) {
                       return s.governor == "userspace" ? line_of(s.cur_khz) : line("<unsupported>");
                     }),
      policy_store(policy, [cpu](CpuPolicyState& s, std::string_view t) { return store_setspeed(cpu, s, t); }));
}

// CONFIG_CPU_FREQ_STAT's files (clock_counters.h).
void add_policy_stats(Tree& tree, const std::string& dir, const CpuSpec& cpu, int policy) {
  const std::vector<std::uint32_t> khz = cpu.available_khz;
  const auto shown = [khz](const CpuPolicyState& s) {
    return shown_stats(s.stats, khz.size(), table_index(khz, s.cur_khz));
  };
  tree.add_file(
      dir + "/stats/time_in_state", kModeReadOnly,
      policy_content(policy, [khz, shown](const CpuPolicyState& s) { return format_time_in_state(khz, shown(s)); }));
  tree.add_file(dir + "/stats/total_trans", kModeReadOnly,
                policy_content(policy, [shown](const CpuPolicyState& s) { return format_total_trans(shown(s)); }));
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
  add_policy_state_files(tree, dir, cpu, p.policy);
  add_policy_stats(tree, dir, cpu, p.policy);
}

// kstrtobool() spellings are accepted by the cpu online store; 0/1 are what tools write.
Status store_online(BoardState& state, int cpu, std::string_view text) {
  const std::string word = written_word(text);
  if (word != "0" && word != "1") return rejected_write("online: '" + word + "' is not 0 or 1");
  const bool online = word == "1";
  const auto still_online = [&](const std::pair<const int, bool>& c) { return c.second && c.first != cpu; };
  if (!online && std::none_of(state.cpu_online.begin(), state.cpu_online.end(), still_online)) {
    return make_error(ErrorCode::kState, "cpu" + std::to_string(cpu) + " is the last online CPU", EBUSY);
  }
  state.cpu_online[cpu] = online;
  return ok_status();
}

void add_cpu(Tree& tree, int cpu, int policy) {
  const std::string dir = std::string(kCpuDir) + "/cpu" + std::to_string(cpu);
  tree.add_file(
      dir + "/online", kModeReadWrite,
      [cpu](const BoardState& state) -> Result<std::string> {
        return line(online_cpus({cpu}, state).empty() ? "0" : "1");
      },
      [cpu](BoardState& state, std::string_view text) { return store_online(state, cpu, text); });
  tree.add_sysfs_link(dir + "/cpufreq", std::string(kCpuDir) + "/cpufreq/policy" + std::to_string(policy));
}

ContentFn gpu_content(std::string name, std::function<std::string(const GpuState&)> format) {
  return [name = std::move(name), format = std::move(format)](const BoardState& state) -> Result<std::string> {
    const auto it = state.gpus.find(name);
    if (it == state.gpus.end()) return read_error(EIO, "no state for gpu " + name);
    return format(it->second);
  };
}

WriteFn gpu_store(std::string name, std::function<Status(GpuState&, std::string_view)> store) {
  return [name = std::move(name), store = std::move(store)](BoardState& state, std::string_view text) -> Status {
    const auto it = state.gpus.find(name);
    if (it == state.gpus.end()) return read_error(EIO, "no state for gpu " + name);
    return store(it->second, text);
  };
}

Result<std::uint64_t> written_hz(const GpuSpec& g, std::string_view text, const char* file) {
  Result<std::uint64_t> hz = parse_written_unsigned(text);
  if (!hz) return hz.take_error();
  if (!listed(g.available_hz, *hz)) {
    return rejected_write(std::string(file) + ": " + std::to_string(*hz) + " Hz is not in available_frequencies");
  }
  return *hz;
}

Status store_min_hz(const GpuSpec& g, GpuState& s, std::string_view text) {
  Result<std::uint64_t> hz = written_hz(g, text, "min_freq");
  if (!hz) return hz.take_error();
  if (*hz > s.max_hz) {
    return rejected_write("min_freq " + std::to_string(*hz) + " Hz is above max_freq " + std::to_string(s.max_hz) +
                          " Hz (raise max_freq first)");
  }
  s.min_hz = *hz;
  return ok_status();
}

Status store_max_hz(const GpuSpec& g, GpuState& s, std::string_view text) {
  Result<std::uint64_t> hz = written_hz(g, text, "max_freq");
  if (!hz) return hz.take_error();
  if (*hz < s.min_hz) {
    return rejected_write("max_freq " + std::to_string(*hz) + " Hz is below min_freq " + std::to_string(s.min_hz) +
                          " Hz (lower min_freq first)");
  }
  s.max_hz = *hz;
  return ok_status();
}

Status store_gpu_governor(const GpuSpec& g, GpuState& s, std::string_view text) {
  const std::string governor = written_word(text);
  if (!listed_word(g.governors, governor)) {
    return rejected_write("governor: '" + governor + "' is not in available_governors");
  }
  s.governor = governor;
  return ok_status();
}

void add_devfreq_limits(Tree& tree, const GpuSpec& g) {
  const std::string& dir = g.devfreq_dir;
  const std::string& name = g.devfreq_name;
  tree.add_file(dir + "/governor", kModeReadWrite,
                gpu_content(name, [](const GpuState& s) { return line(s.governor); }),
                gpu_store(name, [g](GpuState& s, std::string_view t) { return store_gpu_governor(g, s, t); }));
  tree.add_file(dir + "/min_freq", kModeReadWrite,
                gpu_content(name, [](const GpuState& s) { return line_of(s.min_hz); }),
                gpu_store(name, [g](GpuState& s, std::string_view t) { return store_min_hz(g, s, t); }));
  tree.add_file(dir + "/max_freq", kModeReadWrite,
                gpu_content(name, [](const GpuState& s) { return line_of(s.max_hz); }),
                gpu_store(name, [g](GpuState& s, std::string_view t) { return store_max_hz(g, s, t); }));
}

void add_devfreq_files(Tree& tree, const GpuSpec& g) {
  const std::string& dir = g.devfreq_dir;
  const std::string& name = g.devfreq_name;
  tree.add_text_file(dir + "/available_frequencies", kModeReadOnly, spaced(g.available_hz, false));
  tree.add_text_file(dir + "/available_governors", kModeReadOnly, spaced(g.governors, false));
  add_devfreq_limits(tree, g);
  tree.add_file(dir + "/cur_freq", kModeReadOnly,
                gpu_content(name, [](const GpuState& s) { return line_of(s.cur_hz); }));
  tree.add_file(dir + "/target_freq", kModeReadOnly,
                gpu_content(name, [](const GpuState& s) { return line_of(s.cur_hz); }));
  add_setting(tree, dir + "/polling_interval", dir + "/polling_interval", "25", accept_unsigned);  // A18
  const std::vector<std::uint64_t> hz = g.available_hz;
  tree.add_file(dir + "/trans_stat", kModeReadOnly, gpu_content(name, [hz](const GpuState& s) {
                  return format_trans_stat(hz, shown_stats(s.stats, hz.size(), table_index(hz, s.cur_hz)));
                }));
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

Status store_railgate(GpuState& s, std::string_view text) {
  Result<std::string> flag = accept_flag(text);
  if (!flag) return flag.take_error();
  s.railgate_enabled = *flag == "1";
  return ok_status();
}

// The nvgpu device directory (A18 for the values besides load).
void add_nvgpu_files(Tree& tree, const GpuSpec& g) {
  if (g.device_dir.empty()) return;
  const std::string& dir = g.device_dir;
  tree.add_file(dir + "/load", kModeReadOnly,
                gpu_content(g.devfreq_name, [](const GpuState& s) { return line_of(s.load_permille); }));
  tree.add_file(dir + "/is_railgated", kModeReadOnly,
                gpu_content(g.devfreq_name, [](const GpuState& s) { return line(s.cur_hz == 0 ? "1" : "0"); }));
  tree.add_file(dir + "/railgate_enable", kModeReadWrite,
                gpu_content(g.devfreq_name, [](const GpuState& s) { return line(s.railgate_enabled ? "1" : "0"); }),
                gpu_store(g.devfreq_name, store_railgate));
  const std::pair<const char*, const char*> flags[] = {
      {"enable_3d_scaling", "1"}, {"force_idle", "0"}, {"elpg_enable", "1"}, {"blcg_enable", "1"}, {"slcg_enable", "1"},
  };
  for (const auto& [file, value] : flags) add_setting(tree, dir + "/" + file, dir + "/" + file, value, accept_flag);
  add_setting(tree, dir + "/tpc_pg_mask", dir + "/tpc_pg_mask", "0", accept_unsigned);
  add_setting(tree, dir + "/power/control", dir + "/power/control", "auto", accept_words({"auto", "on"}));
}

void add_podgov_tunables(Tree& tree, const GpuSpec& g) {
  if (!g.podgov_tunables) return;
  const std::pair<const char*, const char*> tunables[] = {
      // A17: names from the reference, values assumed
      {"load_max", "900"}, {"load_target", "700"},  {"load_margin", "100"},
      {"k", "2"},          {"up_freq_margin", "5"}, {"down_freq_margin", "5"},
  };
  for (const auto& [file, value] : tunables) {
    const std::string path = g.devfreq_dir + "/nvhost_podgov/" + file;
    add_setting(tree, path, path, value, accept_unsigned);
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
