#include "energy/clocks.h"

#include <algorithm>
#include <sstream>

#include "energy/attr_file.h"
#include "energy/tick_path.h"

namespace energy {
namespace {

constexpr const char* kCpufreq = "/sys/devices/system/cpu/cpufreq";
constexpr const char* kDevfreq = "/sys/class/devfreq";
constexpr const char* kThermal = "/sys/class/thermal";

const std::vector<std::string> kGpuOfNames = {"gpu", "gp10b", "gv11b", "ga10b"};
// nvgpu load files in the order the L4T generations introduced them.
const std::vector<std::string> kGpuLoadFiles = {"/sys/devices/gpu.0/load", "/sys/devices/platform/gpu.0/load",
                                                "/sys/devices/platform/bus@0/17000000.gpu/load"};

std::vector<std::string> split_words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::optional<int64_t> read_int(const SysRoot& root, const std::string& path) {
  auto text = root.read_text(path);
  if (!text) return std::nullopt;
  auto v = parse_sysfs_int(*text, path);
  if (!v) return std::nullopt;
  return *v;
}

std::vector<int64_t> read_freq_list(const SysRoot& root, const std::string& path, int64_t scale) {
  std::vector<int64_t> out;
  auto text = root.read_text(path);
  if (!text) return out;
  for (const auto& w : split_words(*text)) {
    auto v = parse_sysfs_int(w, path);
    auto hz = v ? frequency_hz(*v, scale) : std::nullopt;
    if (hz && *hz > 0) out.push_back(*hz);  // 0 Hz is no frequency to pin to
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::string> read_words(const SysRoot& root, const std::string& path) {
  auto text = root.read_text(path);
  return text ? split_words(*text) : std::vector<std::string>{};
}

void discover_cpufreq(const SysRoot& root, ClockInventory& inv) {
  auto names = root.list_dir(kCpufreq);
  if (!names) return;
  for (const auto& n : *names) {
    if (n.rfind("policy", 0) != 0) continue;
    ClockDomain d;
    d.kind = DomainKind::kCpu;
    d.name = "cpu" + n.substr(6);
    d.dir = join_path(kCpufreq, n);
    auto cpus = root.read_text(join_path(d.dir, "related_cpus"));
    d.cpus = parse_cpu_list(cpus ? *cpus : n.substr(6));
    d.available_hz = read_freq_list(root, join_path(d.dir, "scaling_available_frequencies"), 1000);
    d.governors = read_words(root, join_path(d.dir, "scaling_available_governors"));
    d.writable = root.exists(join_path(d.dir, "scaling_min_freq")) && root.exists(join_path(d.dir, "scaling_max_freq"));
    inv.domains.push_back(std::move(d));
  }
}

bool is_gpu_devfreq(const SysRoot& root, const std::string& name) {
  if (name.rfind("gpu-", 0) == 0) return true;
  auto of_name = root.read_text(join_path(join_path(kDevfreq, name), "device/of_node/name"));
  return of_name && std::find(kGpuOfNames.begin(), kGpuOfNames.end(), *of_name) != kGpuOfNames.end();
}

std::string find_gpu_load(const SysRoot& root, const std::string& devfreq_dir) {
  std::string beside = join_path(devfreq_dir, "device/load");
  if (root.exists(beside)) return beside;
  for (const auto& f : kGpuLoadFiles) {
    if (root.exists(f)) return f;
  }
  return {};
}

void discover_devfreq(const SysRoot& root, ClockInventory& inv) {
  auto names = root.list_dir(kDevfreq);
  if (!names) return;
  for (const auto& n : *names) {
    bool gpu = is_gpu_devfreq(root, n);
    bool emc = n == "bwmgr";  // Thor exposes the EMC as a devfreq device
    if (!gpu && !emc) continue;
    ClockDomain d;
    d.kind = gpu ? DomainKind::kGpu : DomainKind::kEmc;
    d.name = gpu ? (n.rfind("gpu-", 0) == 0 ? n : std::string("gpu")) : "emc";
    d.dir = join_path(kDevfreq, n);
    d.available_hz = read_freq_list(root, join_path(d.dir, "available_frequencies"), 1);
    d.governors = read_words(root, join_path(d.dir, "available_governors"));
    d.writable = root.exists(join_path(d.dir, "min_freq")) && root.exists(join_path(d.dir, "max_freq"));
    if (gpu) d.load_file = find_gpu_load(root, d.dir);
    inv.domains.push_back(std::move(d));
  }
}

constexpr const char* kTegraBwmgr = "/sys/kernel/debug/tegra_bwmgr";
constexpr const char* kBpmpEmc = "/sys/kernel/debug/bpmp/debug/clk/emc";
constexpr const char* kT210OverrideEmc = "/sys/kernel/debug/clk/override.emc";

// T210 lists no rate table in debugfs: the lowest and highest rates its
// bandwidth manager allows (tegra_bwmgr emc_min_rate / emc_max_rate) are the
// rates energyd knows, so a pin or a sweep takes one of those two.
std::vector<int64_t> t210_limit_rates(const SysRoot& root) {
  std::vector<int64_t> out;
  for (const char* f : {"emc_min_rate", "emc_max_rate"}) {
    auto v = read_freq_list(root, join_path(kTegraBwmgr, f), 1);
    out.insert(out.end(), v.begin(), v.end());
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// EMC through debugfs (root only, and only where debugfs is mounted).
void discover_emc_debugfs(const SysRoot& root, ClockInventory& inv) {
  for (const char* dir : {kBpmpEmc, kT210OverrideEmc, "/sys/kernel/debug/clk/emc"}) {
    if (!root.is_dir(dir)) continue;
    ClockDomain d;
    d.kind = DomainKind::kEmc;
    d.name = "emc";
    d.dir = dir;
    d.available_hz = read_freq_list(root, join_path(dir, "possible_rates"), 1);
    if (d.available_hz.empty() && d.dir == kT210OverrideEmc) d.available_hz = t210_limit_rates(root);
    EmcPinFiles pin = emc_pin_files(d);
    d.writable = !pin.lock.empty() && root.exists(pin.lock) && root.exists(pin.rate);
    inv.domains.push_back(std::move(d));
    return;
  }
}

void discover_thermal(const SysRoot& root, ClockInventory& inv) {
  auto names = root.list_dir(kThermal);
  if (!names) return;
  for (const auto& n : *names) {
    if (n.rfind("thermal_zone", 0) != 0) continue;
    std::string dir = join_path(kThermal, n);
    auto type = root.read_text(join_path(dir, "type"));
    if (type) inv.thermal.push_back(ThermalZone{*type, dir});
  }
}

void read_cpu_state(const SysRoot& root, const ClockDomain& d, DomainState& s) {
  s.cur_hz = read_int(root, join_path(d.dir, "scaling_cur_freq"));
  s.min_hz = read_int(root, join_path(d.dir, "scaling_min_freq"));
  s.max_hz = read_int(root, join_path(d.dir, "scaling_max_freq"));
  for (auto* v : {&s.cur_hz, &s.min_hz, &s.max_hz}) {
    if (*v) *v = frequency_hz(**v, 1000);  // cpufreq files are kHz
  }
  auto gov = root.read_text(join_path(d.dir, "scaling_governor"));
  s.governor = gov ? *gov : "";
  for (int cpu : d.cpus) {
    auto online = root.read_text("/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/online");
    if (!online || *online != "0") s.online_cpus.push_back(cpu);  // cpu0 often has no online file
  }
  if (!s.cur_hz) s.error = "cannot read " + join_path(d.dir, "scaling_cur_freq");
}

// The file of a debugfs EMC limit ("min" or "max"): beside the rate on
// T186/T194/T234 (bpmp clk/emc/min_rate); on T210 (Nano, L4T 32) the clk
// directory has none and tegra_bwmgr keeps them (emc_min_rate, emc_max_rate).
std::string debugfs_limit_file(const SysRoot& root, const ClockDomain& d, const std::string& which) {
  std::string own = join_path(d.dir, which + "_rate");
  if (root.exists(own) || !root.is_dir(kTegraBwmgr)) return own;
  return join_path(kTegraBwmgr, "emc_" + which + "_rate");
}

void read_devfreq_state(const SysRoot& root, const ClockDomain& d, DomainState& s) {
  bool debugfs = d.dir.rfind("/sys/kernel/debug", 0) == 0;
  s.cur_hz = read_int(
      root, join_path(d.dir, debugfs ? (root.exists(join_path(d.dir, "rate")) ? "rate" : "clk_rate") : "cur_freq"));
  s.min_hz = read_int(root, debugfs ? debugfs_limit_file(root, d, "min") : join_path(d.dir, "min_freq"));
  s.max_hz = read_int(root, debugfs ? debugfs_limit_file(root, d, "max") : join_path(d.dir, "max_freq"));
  auto gov = root.read_text(join_path(d.dir, "governor"));
  s.governor = gov ? *gov : "";
  if (!d.load_file.empty()) s.load_permille = read_int(root, d.load_file);
  if (EmcPinFiles pin = emc_pin_files(d); !pin.lock.empty()) {
    if (auto lock = root.read_text(pin.lock)) s.lock_text = *lock;
    if (auto rate = root.read_text(pin.rate)) s.rate_request_text = *rate;
    if (s.lock_text == "1" && s.cur_hz) s.min_hz = s.max_hz = s.cur_hz;  // held: its limits are the rate
  }
  if (!s.cur_hz) s.error = "cannot read the current frequency in " + d.dir;
}

}  // namespace

const char* domain_kind_name(DomainKind kind) {
  switch (kind) {
    case DomainKind::kCpu: return "cpu";
    case DomainKind::kGpu: return "gpu";
    case DomainKind::kEmc: return "emc";
  }
  return "unknown";
}

ENERGY_TICK_PATH std::optional<int64_t> frequency_hz(int64_t value, int64_t scale) {
  if (value < 0 || scale <= 0 || value > kMaxPlausibleHz / scale) return std::nullopt;
  return value * scale;
}

std::vector<int> parse_cpu_list(const std::string& text) {
  std::vector<int> out;
  std::string norm = text;
  std::replace(norm.begin(), norm.end(), ',', ' ');
  for (const auto& part : split_words(norm)) {
    size_t dash = part.find('-');
    auto lo = parse_sysfs_int(part.substr(0, dash), "cpu list");
    auto hi = dash == std::string::npos ? lo : parse_sysfs_int(part.substr(dash + 1), "cpu list");
    if (!lo || !hi || *lo < 0 || *hi > kMaxCpuNumber || *hi < *lo) continue;
    for (int64_t c = *lo; c <= *hi; ++c) out.push_back(static_cast<int>(c));
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

EmcPinFiles emc_pin_files(const ClockDomain& d) {
  if (d.kind != DomainKind::kEmc) return {};
  if (d.dir == kBpmpEmc) return {join_path(d.dir, "mrq_rate_locked"), join_path(d.dir, "rate")};
  if (d.dir == kT210OverrideEmc) return {join_path(d.dir, "clk_state"), join_path(d.dir, "clk_update_rate")};
  return {};
}

ClockInventory discover_clocks(const SysRoot& root) {
  ClockInventory inv;
  discover_cpufreq(root, inv);
  discover_devfreq(root, inv);
  bool have_emc = std::any_of(inv.domains.begin(), inv.domains.end(),
                              [](const ClockDomain& d) { return d.kind == DomainKind::kEmc; });
  if (!have_emc) discover_emc_debugfs(root, inv);
  discover_thermal(root, inv);
  if (inv.domains.empty()) inv.notes.push_back("No cpufreq policies or GPU devfreq devices found.");
  return inv;
}

DomainState read_domain(const SysRoot& root, const ClockDomain& d) {
  DomainState s;
  s.name = d.name;
  if (d.kind == DomainKind::kCpu)
    read_cpu_state(root, d, s);
  else
    read_devfreq_state(root, d, s);
  return s;
}

std::vector<ThermalReading> read_thermal(const SysRoot& root, const std::vector<ThermalZone>& zones) {
  std::vector<ThermalReading> out;
  for (const auto& z : zones) {
    ThermalReading r{z.type, read_int(root, join_path(z.dir, "temp")), false};
    r.gated = r.temp_mc && *r.temp_mc == kThermalGatedMilliC;
    out.push_back(r);
  }
  return out;
}

}  // namespace energy
