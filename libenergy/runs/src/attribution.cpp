#include "energy/attribution.h"

#include <algorithm>
#include <charconv>
#include <set>
#include <sstream>

namespace energy {
namespace {

std::vector<std::string> tokens(const std::string& label) {
  std::vector<std::string> out;
  std::string t;
  for (char c : label + "_") {
    if (c == '_' || c == '-' || c == ' ') {
      if (!t.empty()) out.push_back(t);
      t.clear();
    } else {
      t += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

bool has(const std::vector<std::string>& words, const char* w) {
  return std::find(words.begin(), words.end(), w) != words.end();
}

bool parse_int(std::string_view s, int64_t& out) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

std::vector<std::string_view> fields(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\n')) ++i;
    size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\n') ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

}  // namespace

std::vector<std::string> cpu_rail_labels(const std::vector<std::string>& labels) {
  std::vector<std::string> out;
  for (const auto& l : labels) {
    auto w = tokens(l);
    if (has(w, "CPU") && !has(w, "GPU") && !has(w, "CV")) out.push_back(l);
  }
  return out;
}

std::vector<std::string> shared_cpu_rail_labels(const std::vector<std::string>& labels) {
  std::vector<std::string> out;
  for (const auto& l : labels) {
    auto w = tokens(l);
    if (has(w, "CPU") && (has(w, "GPU") || has(w, "CV"))) out.push_back(l);
  }
  return out;
}

// "PID (comm) S PPID ..." where comm may hold spaces and parentheses: the
// fields after the last ')' are state (3), ppid (4), ... utime (14), stime
// (15), cutime (16), cstime (17), numbered as proc(5) numbers them.
std::optional<ProcStat> parse_proc_stat(std::string_view text) {
  size_t open = text.find(" (");
  size_t close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return std::nullopt;
  ProcStat p;
  if (!parse_int(text.substr(0, open), p.pid)) return std::nullopt;
  auto f = fields(text.substr(close + 1));  // f[0] is field 3
  if (f.size() < 15) return std::nullopt;
  if (!parse_int(f[1], p.ppid)) return std::nullopt;
  for (size_t k = 11; k <= 14; ++k) {  // fields 14..17
    int64_t v = 0;
    if (!parse_int(f[k], v) || v < 0) return std::nullopt;
    p.ticks += v;
  }
  return p;
}

std::optional<int64_t> parse_busy_ticks(std::string_view proc_stat) {
  auto line = proc_stat.substr(0, proc_stat.find('\n'));
  auto f = fields(line);
  if (f.size() < 9 || f[0] != "cpu") return std::nullopt;
  int64_t busy = 0;
  for (size_t k : {size_t{1}, size_t{2}, size_t{3}, size_t{6}, size_t{7}, size_t{8}}) {  // not idle, iowait
    int64_t v = 0;
    if (!parse_int(f[k], v) || v < 0) return std::nullopt;
    busy += v;
  }
  return busy;
}

int64_t tree_ticks(const std::vector<ProcStat>& procs, int64_t root) {
  std::map<int64_t, std::vector<const ProcStat*>> children;
  const ProcStat* top = nullptr;
  for (const auto& p : procs) {
    children[p.ppid].push_back(&p);
    if (p.pid == root) top = &p;
  }
  if (top == nullptr) return 0;
  int64_t sum = 0;
  std::vector<const ProcStat*> todo = {top};
  std::set<int64_t> seen;  // a scan racing with pid reuse can show a cycle
  while (!todo.empty()) {
    const ProcStat* p = todo.back();
    todo.pop_back();
    if (!seen.insert(p->pid).second) continue;
    sum += p->ticks;
    auto it = children.find(p->pid);
    if (it == children.end()) continue;
    for (const ProcStat* c : it->second) todo.push_back(c);
  }
  return sum;
}

Result<CpuAttribution> attribute_cpu(const std::vector<CpuSnapshot>& snapshots, int64_t run_id, EnergyWindow run,
                                     const std::function<Result<double>(EnergyWindow)>& cpu_energy_j) {
  CpuAttribution a;
  a.available = true;
  const CpuSnapshot* prev = nullptr;
  for (const auto& s : snapshots) {
    if (s.runs.count(run_id) == 0) continue;
    if (prev != nullptr) {
      EnergyWindow w{std::max(prev->t_ns, run.begin_ns), std::min(s.t_ns, run.end_ns)};
      int64_t mine = s.runs.at(run_id) - prev->runs.at(run_id);
      int64_t busy = s.busy_ns - prev->busy_ns;
      int64_t all = 0;
      for (const auto& [id, cpu] : s.runs) {
        auto before = prev->runs.find(id);
        if (before != prev->runs.end()) all += std::max<int64_t>(0, cpu - before->second);
      }
      int64_t norm = std::max(busy, all);
      if (w.end_ns > w.begin_ns) {
        auto e = cpu_energy_j(w);
        if (!e) return e.take_error();
        a.cpu_rails_j += *e;
        if (norm > 0 && mine > 0) a.attributed_j += *e * static_cast<double>(mine) / static_cast<double>(norm);
      }
      a.cpu_time_s += static_cast<double>(std::max<int64_t>(0, mine)) / 1e9;
      a.board_cpu_time_s += static_cast<double>(std::max<int64_t>(0, busy)) / 1e9;
      ++a.segments;
    }
    prev = &s;
  }
  if (a.segments == 0) {
    a.available = false;
    a.reason = "the kernel's accounting was not read at both ends of the run (energyd restarted while it was open)";
  }
  return a;
}

nlohmann::json attribution_to_json(const CpuAttribution& a, double total_energy_j) {
  if (!a.available) return {{"available", false}, {"pid", a.pid}, {"reason", a.reason}};
  return {{"available", true},
          {"pid", a.pid},
          {"cpu_rails", a.cpu_rails},
          {"cpu_rails_j", a.cpu_rails_j},
          {"attributed_j", a.attributed_j},
          {"shared_j", std::max(0.0, total_energy_j - a.attributed_j)},
          {"cpu_time_s", a.cpu_time_s},
          {"board_cpu_time_s", a.board_cpu_time_s},
          {"segments", a.segments},
          {"gpu",
           "shared: Jetson has no per-process GPU time (NVML does not support the integrated GPU), so GPU, "
           "memory and module energy are not split"}};
}

std::optional<CpuAttribution> attribution_from_json(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("available") || !j["available"].is_boolean()) return std::nullopt;
  CpuAttribution a;
  a.available = j["available"].get<bool>();
  auto num = [&](const char* k) { return j.contains(k) && j[k].is_number() ? j[k].get<double>() : 0.0; };
  a.pid = static_cast<int64_t>(num("pid"));
  if (!a.available) {
    a.reason = j.contains("reason") && j["reason"].is_string() ? j["reason"].get<std::string>() : "";
    return a;
  }
  if (j.contains("cpu_rails") && j["cpu_rails"].is_array()) {
    for (const auto& r : j["cpu_rails"]) {
      if (r.is_string()) a.cpu_rails.push_back(r.get<std::string>());
    }
  }
  a.cpu_rails_j = num("cpu_rails_j");
  a.attributed_j = num("attributed_j");
  a.cpu_time_s = num("cpu_time_s");
  a.board_cpu_time_s = num("board_cpu_time_s");
  a.segments = static_cast<int64_t>(num("segments"));
  return a;
}

}  // namespace energy
