#include "energy/residency.h"

#include <algorithm>
#include <map>

namespace energy {
namespace {

// Calls f(ns, value) for each stretch of the window: value is the row in
// force, or nullptr before the source's first row. Rows after the window's
// end do not matter; rows at or before its start only set the first state.
template <typename F>
void for_each_stretch(const ContextSeries& s, EnergyWindow w, F&& f) {
  const ContextValue* state = nullptr;
  int64_t from = w.begin_ns;
  for (const auto& r : s.rows) {
    if (r.t_ns <= w.begin_ns) {
      state = &r.v;
      continue;
    }
    if (r.t_ns >= w.end_ns) break;
    if (r.t_ns > from) f(r.t_ns - from, state);
    from = std::max(from, r.t_ns);
    state = &r.v;
  }
  if (w.end_ns > from) f(w.end_ns - from, state);
}

double share_of(int64_t ns, int64_t window_ns) {
  return window_ns > 0 ? static_cast<double>(ns) / static_cast<double>(window_ns) : 0.0;
}

// Frequency changes observed inside the window: a known value differing from
// the last known one (an unknown stretch between two equal values is no change).
int64_t count_changes(const ContextSeries& s, EnergyWindow w) {
  std::optional<int64_t> last;
  int64_t changes = 0;
  for (const auto& r : s.rows) {
    if (r.t_ns >= w.end_ns) break;
    if (!r.v.number) continue;
    if (r.t_ns > w.begin_ns && last && *last != *r.v.number) ++changes;
    last = r.v.number;
  }
  return changes;
}

void add_frequencies(const ContextSeries& s, EnergyWindow w, int64_t window_ns, DomainResidency& d) {
  std::map<int64_t, int64_t> by_hz;
  d.unknown_ns = 0;
  for_each_stretch(s, w, [&](int64_t ns, const ContextValue* v) {
    if (v == nullptr || !v->number) {
      d.unknown_ns += ns;
      return;
    }
    by_hz[*v->number] += ns;
  });
  for (auto it = by_hz.rbegin(); it != by_hz.rend(); ++it) {
    d.residency.push_back(FrequencyShare{it->first, it->second, share_of(it->second, window_ns)});
  }
  if (!by_hz.empty()) {
    d.min_hz = by_hz.begin()->first;
    d.max_hz = by_hz.rbegin()->first;
  }
  d.changes = count_changes(s, w);
}

void add_governors(const ContextSeries& s, EnergyWindow w, int64_t window_ns, DomainResidency& d) {
  std::map<std::string, int64_t> by_name;
  d.governor_unknown_ns = 0;
  for_each_stretch(s, w, [&](int64_t ns, const ContextValue* v) {
    if (v == nullptr || !v->text) {
      d.governor_unknown_ns += ns;
      return;
    }
    by_name[*v->text] += ns;
  });
  for (const auto& [name, ns] : by_name) d.governors.push_back(GovernorShare{name, ns, share_of(ns, window_ns)});
  std::stable_sort(d.governors.begin(), d.governors.end(),
                   [](const GovernorShare& a, const GovernorShare& b) { return a.ns > b.ns; });
}

ThermalRange thermal_range(const ContextSeries& s, EnergyWindow w) {
  ThermalRange t;
  t.zone = s.name;
  for_each_stretch(s, w, [&](int64_t ns, const ContextValue* v) {
    if (v != nullptr && v->number) {
      t.known_ns += ns;
      t.min_mc = std::min(t.min_mc.value_or(*v->number), *v->number);
      t.max_mc = std::max(t.max_mc.value_or(*v->number), *v->number);
    } else if (v != nullptr && v->text == std::string(kThermalGatedText)) {
      t.gated_ns += ns;
    }
  });
  return t;
}

DomainResidency& domain_entry(std::map<std::string, DomainResidency>& domains, const std::string& name,
                              int64_t window_ns) {
  auto [it, fresh] = domains.try_emplace(name);
  if (fresh) {
    it->second.domain = name;
    it->second.kind = clock_domain_kind(name);
    it->second.unknown_ns = window_ns;  // until a series says otherwise
    it->second.governor_unknown_ns = window_ns;
  }
  return it->second;
}

nlohmann::json optional_json(const std::optional<int64_t>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

nlohmann::json celsius_json(const std::optional<int64_t>& mc) {
  return mc ? nlohmann::json(static_cast<double>(*mc) / 1000.0) : nlohmann::json();
}

double seconds(int64_t ns) { return static_cast<double>(ns) / 1e9; }

}  // namespace

std::string clock_domain_kind(const std::string& domain) {
  if (domain.rfind("cpu", 0) == 0) return "cpu";
  if (domain == "gpu" || domain.rfind("gpu-", 0) == 0) return "gpu";
  if (domain == "emc") return "emc";
  return "other";
}

RunContext summarize_context(const std::vector<ContextSeries>& series, EnergyWindow window) {
  RunContext ctx;
  ctx.window_ns = std::max<int64_t>(0, window.end_ns - window.begin_ns);
  std::map<std::string, DomainResidency> domains;
  std::map<std::string, ThermalRange> zones;
  for (const auto& s : series) {
    switch (s.kind) {
      case ContextKind::kClock:
        add_frequencies(s, window, ctx.window_ns, domain_entry(domains, s.name, ctx.window_ns));
        break;
      case ContextKind::kGovernor:
        add_governors(s, window, ctx.window_ns, domain_entry(domains, s.name, ctx.window_ns));
        break;
      case ContextKind::kThermal: zones[s.name] = thermal_range(s, window); break;
    }
  }
  for (auto& [name, d] : domains) ctx.clocks.push_back(std::move(d));
  for (auto& [name, z] : zones) ctx.thermal.push_back(std::move(z));
  return ctx;
}

nlohmann::json clocks_to_json(const RunContext& ctx) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& d : ctx.clocks) {
    nlohmann::json residency = nlohmann::json::array();
    for (const auto& f : d.residency)
      residency.push_back({{"hz", f.hz}, {"seconds", seconds(f.ns)}, {"share", f.share}});
    nlohmann::json governors = nlohmann::json::array();
    for (const auto& g : d.governors) {
      governors.push_back({{"governor", g.governor}, {"seconds", seconds(g.ns)}, {"share", g.share}});
    }
    out.push_back({{"domain", d.domain},
                   {"kind", d.kind},
                   {"residency", std::move(residency)},
                   {"governors", std::move(governors)},
                   {"min_hz", optional_json(d.min_hz)},
                   {"max_hz", optional_json(d.max_hz)},
                   {"changes", d.changes},
                   {"unknown_s", seconds(d.unknown_ns)},
                   {"known_share", share_of(ctx.window_ns - d.unknown_ns, ctx.window_ns)},
                   {"governor_unknown_s", seconds(d.governor_unknown_ns)}});
  }
  return out;
}

nlohmann::json thermal_to_json(const RunContext& ctx) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& t : ctx.thermal) {
    out.push_back({{"zone", t.zone},
                   {"min_c", celsius_json(t.min_mc)},
                   {"max_c", celsius_json(t.max_mc)},
                   {"known_share", share_of(t.known_ns, ctx.window_ns)},
                   {"gated_share", share_of(t.gated_ns, ctx.window_ns)}});
  }
  return out;
}

}  // namespace energy
