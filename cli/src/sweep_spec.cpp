// sweep.create's `spec` (sweep_args.h): written and read by energyctl only;
// energyd stores it verbatim. "format" versions the layout.
#include <cstdlib>

#include "sweep_args.h"

namespace energy::cli {
namespace {

constexpr int kSpecFormat = 1;

using json = nlohmann::json;

Error bad_spec(const std::string& what) {
  return make_error(ErrorCode::kInvalid, "the stored sweep spec is not one this energyctl reads: " + what);
}

const char* mode_name(CooldownMode m) {
  return m == CooldownMode::kAuto ? "auto" : m == CooldownMode::kFixed ? "fixed" : "off";
}

json items_json(const ItemsRule& items) {
  if (items.count) return {{"count", *items.count}};
  if (!items.param.empty()) return {{"param", items.param}};
  return nullptr;
}

json axes_json(const SweepAxes& axes) {
  json clocks = json::array(), params = json::array();
  for (const auto& c : axes.clocks) clocks.push_back({{"domain", c.domain}, {"hz", c.hz}});
  for (const auto& p : axes.params) params.push_back({{"name", p.name}, {"values", p.values}});
  return {{"clocks", clocks}, {"params", params}};
}

bool is_whole(const json& j, int64_t lo, int64_t hi) {
  return j.is_number_integer() && j.get<int64_t>() >= lo && j.get<int64_t>() <= hi;
}

Status read_clocks(const json& list, SweepAxes& axes) {
  if (!list.is_array()) return bad_spec("\"clocks\" is not a list");
  for (const auto& c : list) {
    ClockAxis axis;
    if (!c.is_object() || !c.value("domain", json()).is_string() || !c.value("hz", json()).is_array())
      return bad_spec("a clock axis needs \"domain\" and \"hz\"");
    axis.domain = c["domain"].get<std::string>();
    for (const auto& hz : c["hz"]) {
      if (!is_whole(hz, 1, INT64_MAX)) return bad_spec("a clock axis holds a frequency that is not whole Hz");
      axis.index.push_back(axis.hz.size());
      axis.hz.push_back(hz.get<int64_t>());
    }
    axes.clocks.push_back(std::move(axis));
  }
  return ok_status();
}

Status read_params(const json& list, SweepAxes& axes) {
  if (!list.is_array()) return bad_spec("\"params\" is not a list");
  for (const auto& p : list) {
    ParamAxis axis;
    if (!p.is_object() || !p.value("name", json()).is_string() || !p.value("values", json()).is_array())
      return bad_spec("a parameter needs \"name\" and \"values\"");
    axis.name = p["name"].get<std::string>();
    for (const auto& v : p["values"]) {
      if (!v.is_string()) return bad_spec("parameter " + axis.name + " holds a value that is not text");
      axis.values.push_back(v.get<std::string>());
    }
    if (!valid_param_name(axis.name) || axis.values.empty()) return bad_spec("parameter '" + axis.name + "'");
    axes.params.push_back(std::move(axis));
  }
  return ok_status();
}

Status read_cooldown(const json& c, Cooldown& out) {
  if (!c.is_object() || !is_whole(c.value("ms", json()), 0, INT64_MAX)) return bad_spec("\"cooldown\"");
  std::string mode = c.value("mode", json()).is_string() ? c["mode"].get<std::string>() : "";
  if (mode != "auto" && mode != "fixed" && mode != "off") return bad_spec("cooldown mode '" + mode + "'");
  out.mode = mode == "auto" ? CooldownMode::kAuto : mode == "fixed" ? CooldownMode::kFixed : CooldownMode::kOff;
  out.ms = c["ms"].get<int64_t>();
  return ok_status();
}

Status read_items(const json& items, ItemsRule& out) {
  if (items.is_null()) return ok_status();
  if (items.is_object() && items.value("count", json()).is_number() && items["count"].get<double>() > 0) {
    out.count = items["count"].get<double>();
  } else if (items.is_object() && items.value("param", json()).is_string()) {
    out.param = items["param"].get<std::string>();
  } else {
    return bad_spec("\"items\"");
  }
  return ok_status();
}

Status read_counts(const json& j, SweepSpec& s) {
  if (!is_whole(j.value("repeat", json()), 1, 1000) || !is_whole(j.value("warmup", json()), 0, 100))
    return bad_spec("\"repeat\" or \"warmup\"");
  s.repeat = j["repeat"].get<int>();
  s.warmup = j["warmup"].get<int>();
  const json& ci = j.value("ci_pct", json());
  if (!ci.is_null() && !(ci.is_number() && ci.get<double>() > 0 && ci.get<double>() <= 100))
    return bad_spec("\"ci_pct\"");
  if (ci.is_number()) s.ci_pct = ci.get<double>();
  const json& base = j.value("baseline_ms", json());
  if (is_whole(base, 1, INT64_MAX)) s.baseline_ms = base.get<int64_t>();
  const json& seed_j = j.value("seed", json());
  std::string seed = seed_j.is_string() ? seed_j.get<std::string>() : "";
  if (seed.empty() || seed.find_first_not_of("0123456789") != std::string::npos) return bad_spec("\"seed\"");
  s.seed = std::strtoull(seed.c_str(), nullptr, 10);
  const json& dvfs = j.value("dvfs", json());
  if (!dvfs.is_boolean()) return bad_spec("\"dvfs\"");
  s.dvfs = dvfs.get<bool>();
  return ok_status();
}

json search_json(const std::optional<SearchSpec>& search) {
  if (!search) return json();
  return {{"repeats", search->repeats}, {"max_repeats", search->max_repeats}, {"max_runs", search->max_runs}};
}

// "search": null (a grid) or the --search options.
Status read_search(const json& j, SweepSpec& s) {
  if (j.is_null()) return ok_status();
  if (!j.is_object() || !is_whole(j.value("repeats", json()), 2, 1000) ||
      !is_whole(j.value("max_repeats", json()), 2, 1000) || !is_whole(j.value("max_runs", json()), 0, 1'000'000) ||
      j["max_repeats"].get<int>() < j["repeats"].get<int>())
    return bad_spec("\"search\"");
  s.search = SearchSpec{j["repeats"].get<int>(), j["max_repeats"].get<int>(), j["max_runs"].get<size_t>()};
  return ok_status();
}

// "gate" and "retries": absent in specs stored before sweeps had gates (the defaults then).
Status read_gate(const json& j, SweepSpec& s) {
  const json& gate = j.value("gate", json::object());
  if (!gate.is_object()) return bad_spec("\"gate\"");
  for (const auto& [key, v] : gate.items()) {
    bool ok = v.is_number() && ((key == "min_coverage" && v.get<double>() > 0 && v.get<double>() <= 1) ||
                                (key == "max_gap_periods" && v.get<double>() >= 1 && v.get<double>() <= 1000));
    if (!ok) return bad_spec("\"gate\"");
  }
  s.gate = gate;
  const json& retries = j.value("retries", json(kDefaultGateRetries));
  if (!is_whole(retries, 0, kMaxGateRetries)) return bad_spec("\"retries\"");
  s.retries = retries.get<int>();
  return ok_status();
}

Status read_command(const json& j, SweepSpec& s) {
  if (!j.value("command", json()).is_array() || j["command"].empty()) return bad_spec("\"command\"");
  for (const auto& w : j["command"]) {
    if (!w.is_string()) return bad_spec("a command word is not text");
    s.command.push_back(w.get<std::string>());
  }
  return ok_status();
}

}  // namespace

json spec_to_json(const SweepSpec& s) {
  json ci = s.ci_pct ? json(*s.ci_pct) : json();
  json base = s.baseline_ms ? json(*s.baseline_ms) : json();
  return {{"format", kSpecFormat},
          {"command", s.command},
          {"axes", axes_json(s.axes)},
          {"dvfs", s.dvfs},
          {"repeat", s.repeat},
          {"ci_pct", ci},
          {"warmup", s.warmup},
          {"cooldown", {{"mode", mode_name(s.cooldown.mode)}, {"ms", s.cooldown.ms}}},
          {"baseline_ms", base},
          {"items", items_json(s.items)},
          {"seed", std::to_string(s.seed)},
          {"search", search_json(s.search)},
          {"gate", s.gate},
          {"retries", s.retries}};
}

Result<SweepSpec> spec_from_json(const json& j) {
  if (!j.is_object() || j.value("format", json()) != kSpecFormat) return bad_spec("\"format\" is not 1");
  SweepSpec s;
  const json& axes = j.value("axes", json());
  if (!axes.is_object()) return bad_spec("\"axes\"");
  for (const Status& st :
       {read_command(j, s), read_clocks(axes.value("clocks", json()), s.axes),
        read_params(axes.value("params", json()), s.axes), read_cooldown(j.value("cooldown", json()), s.cooldown),
        read_items(j.value("items", json()), s.items), read_counts(j, s), read_search(j.value("search", json()), s),
        read_gate(j, s)}) {
    if (!st) return st.error();
  }
  return s;
}

}  // namespace energy::cli
