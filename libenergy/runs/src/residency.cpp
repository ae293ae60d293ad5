#include "energy/residency.h"

#include <algorithm>
#include <map>

namespace energy {
namespace {

double share_of(int64_t ns, int64_t window_ns) {
  return window_ns > 0 ? static_cast<double>(ns) / static_cast<double>(window_ns) : 0.0;
}

double seconds_of(int64_t ns) { return static_cast<double>(ns) / 1e9; }

// Turns one source's rows into stretches of the window: each value holds
// from its row to the next; rows at or before the window's start only set
// the state it starts in, rows at or after its end do not matter. Before
// the first row the state is unknown (none).
class Stretches {
 public:
  explicit Stretches(EnergyWindow w) : w_(w), from_(w.begin_ns) {}

  // Calls f(ns, value-or-null) for the stretch the row ends.
  template <typename F>
  void row(const ContextRow& r, F&& f) {
    if (r.t_ns <= w_.begin_ns) {
      state_ = r.v;
      return;
    }
    if (r.t_ns >= w_.end_ns) return;
    if (r.t_ns > from_) f(r.t_ns - from_, state_ ? &*state_ : nullptr);
    from_ = std::max(from_, r.t_ns);
    state_ = r.v;
  }
  template <typename F>
  void finish(F&& f) {
    if (w_.end_ns > from_) f(w_.end_ns - from_, state_ ? &*state_ : nullptr);
    from_ = w_.end_ns;
  }

 private:
  EnergyWindow w_;
  int64_t from_;
  std::optional<ContextValue> state_;
};

struct FrequencyTally {
  std::map<int64_t, int64_t> ns_by_hz;
  int64_t unknown_ns = 0;
  int64_t changes = 0;
  std::optional<int64_t> last_known;  // for changes: an unknown stretch between equal values is none
};

struct GovernorTally {
  std::map<std::string, int64_t> ns_by_name;
  int64_t unknown_ns = 0;
};

struct DomainTally {
  std::optional<FrequencyTally> frequency;  // none: no clock series
  std::optional<GovernorTally> governor;
};

void fill_frequencies(const FrequencyTally& f, int64_t window_ns, DomainResidency& d) {
  for (auto it = f.ns_by_hz.rbegin(); it != f.ns_by_hz.rend(); ++it) {
    d.residency.push_back(FrequencyShare{it->first, it->second, share_of(it->second, window_ns)});
  }
  if (!f.ns_by_hz.empty()) {
    d.min_hz = f.ns_by_hz.begin()->first;
    d.max_hz = f.ns_by_hz.rbegin()->first;
  }
  d.unknown_ns = f.unknown_ns;
  d.changes = f.changes;
}

void fill_governors(const GovernorTally& g, int64_t window_ns, DomainResidency& d) {
  for (const auto& [name, ns] : g.ns_by_name) d.governors.push_back(GovernorShare{name, ns, share_of(ns, window_ns)});
  std::stable_sort(d.governors.begin(), d.governors.end(),
                   [](const GovernorShare& a, const GovernorShare& b) { return a.ns > b.ns; });
  d.governor_unknown_ns = g.unknown_ns;
}

nlohmann::json optional_json(const std::optional<int64_t>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

nlohmann::json celsius_json(const std::optional<int64_t>& mc) {
  return mc ? nlohmann::json(static_cast<double>(*mc) / 1000.0) : nlohmann::json();
}

}  // namespace

struct ContextSummary::State {
  explicit State(EnergyWindow w) : window(w), stretches(w) {}

  EnergyWindow window;
  int64_t window_ns() const { return std::max<int64_t>(0, window.end_ns - window.begin_ns); }
  std::map<std::string, DomainTally> domains;
  std::map<std::string, ThermalRange> zones;
  // The source being streamed.
  std::optional<ContextKind> kind;
  std::string name;
  Stretches stretches;

  void stretch(int64_t ns, const ContextValue* v);
  void count_change(const ContextRow& r);
  void close_source();
};

void ContextSummary::State::stretch(int64_t ns, const ContextValue* v) {
  switch (*kind) {
    case ContextKind::kClock: {
      auto& f = *domains[name].frequency;
      if (v != nullptr && v->number)
        f.ns_by_hz[*v->number] += ns;
      else
        f.unknown_ns += ns;
      break;
    }
    case ContextKind::kGovernor: {
      auto& g = *domains[name].governor;
      if (v != nullptr && v->text)
        g.ns_by_name[*v->text] += ns;
      else
        g.unknown_ns += ns;
      break;
    }
    case ContextKind::kThermal: {
      auto& t = zones[name];
      if (v != nullptr && v->number) {
        t.known_ns += ns;
        t.min_mc = std::min(t.min_mc.value_or(*v->number), *v->number);
        t.max_mc = std::max(t.max_mc.value_or(*v->number), *v->number);
      } else if (v != nullptr && v->text == std::string(kThermalGatedText)) {
        t.gated_ns += ns;
      }
      break;
    }
  }
}

void ContextSummary::State::count_change(const ContextRow& r) {
  auto& f = *domains[name].frequency;
  if (r.t_ns >= window.end_ns || !r.v.number) return;
  if (r.t_ns > window.begin_ns && f.last_known && *f.last_known != *r.v.number) ++f.changes;
  f.last_known = r.v.number;
}

void ContextSummary::State::close_source() {
  if (!kind) return;
  stretches.finish([this](int64_t ns, const ContextValue* v) { stretch(ns, v); });
  kind.reset();
}

ContextSummary::ContextSummary(EnergyWindow window) : state_(std::make_unique<State>(window)) {}
ContextSummary::~ContextSummary() = default;

void ContextSummary::source(ContextKind kind, const std::string& name) {
  State& s = *state_;
  s.close_source();
  s.kind = kind;
  s.name = name;
  s.stretches = Stretches(s.window);
  if (kind == ContextKind::kClock) s.domains[name].frequency.emplace();
  if (kind == ContextKind::kGovernor) s.domains[name].governor.emplace();
  if (kind == ContextKind::kThermal) s.zones[name].zone = name;
}

void ContextSummary::row(const ContextRow& r) {
  State& s = *state_;
  if (!s.kind) return;
  if (*s.kind == ContextKind::kClock) s.count_change(r);
  s.stretches.row(r, [&s](int64_t ns, const ContextValue* v) { s.stretch(ns, v); });
}

RunContext ContextSummary::finish() {
  State& s = *state_;
  s.close_source();
  RunContext ctx;
  ctx.window_ns = s.window_ns();
  for (const auto& [name, tally] : s.domains) {
    DomainResidency d;
    d.domain = name;
    d.kind = clock_domain_kind(name);
    d.unknown_ns = ctx.window_ns;  // a domain without a clock (or governor) series never knew it
    d.governor_unknown_ns = ctx.window_ns;
    if (tally.frequency) fill_frequencies(*tally.frequency, ctx.window_ns, d);
    if (tally.governor) fill_governors(*tally.governor, ctx.window_ns, d);
    ctx.clocks.push_back(std::move(d));
  }
  for (auto& [name, zone] : s.zones) ctx.thermal.push_back(std::move(zone));
  return ctx;
}

std::string clock_domain_kind(const std::string& domain) {
  if (domain.rfind("cpu", 0) == 0) return "cpu";
  if (domain == "gpu" || domain.rfind("gpu-", 0) == 0) return "gpu";
  if (domain == "emc") return "emc";
  return "other";
}

RunContext summarize_context(const std::vector<ContextSeries>& series, EnergyWindow window) {
  ContextSummary summary(window);
  for (const auto& s : series) {
    summary.source(s.kind, s.name);
    for (const auto& r : s.rows) summary.row(r);
  }
  return summary.finish();
}

nlohmann::json clocks_to_json(const RunContext& ctx) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& d : ctx.clocks) {
    nlohmann::json residency = nlohmann::json::array();
    for (const auto& f : d.residency)
      residency.push_back({{"hz", f.hz}, {"seconds", seconds_of(f.ns)}, {"share", f.share}});
    nlohmann::json governors = nlohmann::json::array();
    for (const auto& g : d.governors) {
      governors.push_back({{"governor", g.governor}, {"seconds", seconds_of(g.ns)}, {"share", g.share}});
    }
    out.push_back({{"domain", d.domain},
                   {"kind", d.kind},
                   {"residency", std::move(residency)},
                   {"governors", std::move(governors)},
                   {"min_hz", optional_json(d.min_hz)},
                   {"max_hz", optional_json(d.max_hz)},
                   {"changes", d.changes},
                   {"unknown_s", seconds_of(d.unknown_ns)},
                   {"known_share", share_of(ctx.window_ns - d.unknown_ns, ctx.window_ns)},
                   {"governor_unknown_s", seconds_of(d.governor_unknown_ns)}});
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
