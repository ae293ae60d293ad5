#include "sweep_args.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <iterator>

#include "duration_arg.h"
#include "gate_args.h"
#include "number_arg.h"

namespace energy::cli {
namespace {

constexpr int kMaxSweepRepeat = 1000;
constexpr int kMaxWarmup = 100;
constexpr int64_t kMaxSearchRuns = 1'000'000;
constexpr int64_t kMaxWaitMs = 3'600'000;

Error invalid(const std::string& message) { return make_error(ErrorCode::kInvalid, message); }

Result<int64_t> parse_wait(const std::string& flag, const std::string& value) {
  auto ms = parse_duration_ms(value);
  if (!ms) return invalid(flag + ": " + ms.error().message);
  if (*ms > kMaxWaitMs) return invalid(flag + " must be at most 1h, got '" + value + "'");
  return *ms;
}

Result<Cooldown> parse_cooldown(const std::string& value) {
  if (value == "auto") return Cooldown{CooldownMode::kAuto, kAutoCooldownTimeoutMs};
  if (value == "off") return Cooldown{CooldownMode::kOff, 0};
  auto ms = parse_duration_ms(value);
  if (!ms) return invalid("--cooldown must be auto, off or a duration (500ms, 30s, 2m), got '" + value + "'");
  if (*ms > kMaxWaitMs) return invalid("--cooldown must be at most 1h, got '" + value + "'");
  return Cooldown{CooldownMode::kFixed, *ms};
}

Result<uint64_t> parse_seed(const std::string& value) {
  bool digits = !value.empty() && value.size() <= 20 &&
                std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; });
  errno = 0;
  unsigned long long v = digits ? std::strtoull(value.c_str(), nullptr, 10) : 0;
  if (!digits || errno == ERANGE)
    return invalid("--seed must be a whole number from 0 to 18446744073709551615, got '" + value + "'");
  return static_cast<uint64_t>(v);
}

Status parse_items(const std::string& value, ItemsRule& out) {
  if (value.size() > 2 && value.front() == '{' && value.back() == '}') {
    out.param = value.substr(1, value.size() - 2);
    if (!valid_param_name(out.param)) return invalid("--items: '" + value + "' names no valid parameter");
    return ok_status();
  }
  auto n = parse_positive_option("--items", value);
  if (!n) return invalid(n.error().message + " (or {NAME} of a --param)");
  out.count = *n;
  return ok_status();
}

Status add_clock(const std::string& flag, const std::string& value, SweepArgs& out) {
  std::string domain = flag.substr(2);
  for (const auto& c : out.clocks) {
    if (c.first == domain) return invalid(flag + " given twice; list every value in one " + flag.c_str());
  }
  if (value.empty()) return invalid(flag + " needs a list of frequencies, got ''");
  out.clocks.emplace_back(domain, value);
  return ok_status();
}

// Each run is tagged with every parameter (NAME=value), beside the tags
// energyctl sets itself; a run holds at most 32 tags, each value at most
// 1000 characters (docs/PROTOCOL.md, mark.start).
constexpr size_t kMaxParams = 20;
constexpr size_t kMaxParamValueChars = 1000;

bool reserved_tag(const std::string& name) {
  static const char* const kTags[] = {"sweep", "sweep_point", "sweep_repeat", "sweep_role",      "command", "cpu",
                                      "gpu",   "emc",         "exit_status",  "sweep_left_open", "signal"};
  for (const char* t : kTags) {
    if (name == t) return true;
  }
  return false;
}

Status check_param(const ParamAxis& axis, const SweepArgs& out) {
  if (out.params.size() >= kMaxParams) return invalid("--param: at most 20 parameters (a run holds at most 32 tags)");
  if (reserved_tag(axis.name))
    return invalid("--param " + axis.name + ": energyctl tags each run with '" + axis.name +
                   "' itself; use another name");
  for (const auto& v : axis.values) {
    if (v.size() > kMaxParamValueChars)
      return invalid("--param " + axis.name + ": a value is longer than 1000 characters (it is stored as a tag)");
  }
  return ok_status();
}

Status add_param(const std::string& value, SweepArgs& out) {
  auto axis = parse_param_axis(value);
  if (!axis) return axis.take_error();
  if (auto st = check_param(*axis, out); !st) return st;
  for (const auto& p : out.params) {
    if (p.name == axis->name) return invalid("--param " + p.name + " given twice");
  }
  out.params.push_back(std::move(axis).value());
  return ok_status();
}

Status set_whole(const std::string& flag, const std::string& value, int64_t lo, int64_t hi, int& out) {
  auto n = parse_whole_option(flag, value, lo, hi);
  if (!n) return n.take_error();
  out = static_cast<int>(*n);
  return ok_status();
}

Status apply_number(const std::string& flag, const std::string& value, SweepArgs& out) {
  if (flag == "--repeat") return set_whole(flag, value, 1, kMaxSweepRepeat, out.repeat);
  if (flag == "--max-repeat") return set_whole(flag, value, 2, kMaxSweepRepeat, out.max_repeat);
  if (flag == "--max-runs") {
    auto n = parse_whole_option(flag, value, 1, kMaxSearchRuns);
    if (!n) return n.take_error();
    out.max_runs = static_cast<size_t>(*n);
    return ok_status();
  }
  if (flag == "--warmup") return set_whole(flag, value, 0, kMaxWarmup, out.warmup);
  auto pct = parse_positive_option("--ci", value);
  if (!pct) return pct.take_error();
  if (*pct > 100) return invalid("--ci must be a percentage above 0 and at most 100, got '" + value + "'");
  out.ci_pct = *pct;
  return ok_status();
}

Status apply_text(const std::string& flag, const std::string& value, SweepArgs& out) {
  if (flag == "--name") {
    if (value.empty() || value.size() > protocol::kMaxNameChars)
      return invalid("--name must be 1 to 200 characters, got " + std::to_string(value.size()));
    out.name = value;
  } else if (flag == "--progress") {
    if (value != "text" && value != "json") return invalid("--progress must be text or json, got '" + value + "'");
    out.progress_json = value == "json";
  } else if (flag == "--resume") {
    auto id = parse_whole_option("--resume", value, 1, INT64_MAX);
    if (!id) return id.take_error();
    out.resume = *id;
  } else {
    auto seed = parse_seed(value);
    if (!seed) return seed.take_error();
    out.seed = *seed;
  }
  return ok_status();
}

Status apply_timing(const std::string& flag, const std::string& value, SweepArgs& out) {
  if (flag == "--cooldown") {
    auto c = parse_cooldown(value);
    if (!c) return c.take_error();
    out.cooldown = *c;
    return ok_status();
  }
  auto ms = parse_wait("--baseline", value);
  if (!ms) return ms.take_error();
  out.baseline_ms = *ms;
  return ok_status();
}

Status apply_option(const std::string& flag, const std::string& value, SweepArgs& out) {
  if (flag == "--cpu" || flag == "--gpu" || flag == "--emc") return add_clock(flag, value, out);
  if (flag == "--param") return add_param(value, out);
  if (flag == "--dvfs" || flag == "--json" || flag == "--search") {
    (flag == "--dvfs" ? out.dvfs : flag == "--json" ? out.json : out.search) = true;
    return ok_status();
  }
  if (flag == "--csv") return invalid("--csv goes with sweep export ID, not with running a sweep");
  if (flag == "--items") return parse_items(value, out.items);
  if (flag == "--repeat" || flag == "--max-repeat" || flag == "--max-runs" || flag == "--warmup" || flag == "--ci")
    return apply_number(flag, value, out);
  if (flag == "--name" || flag == "--resume" || flag == "--seed" || flag == "--progress")
    return apply_text(flag, value, out);
  if (flag == "--cooldown" || flag == "--baseline") return apply_timing(flag, value, out);
  if (flag == "--retries") return set_whole(flag, value, 0, kMaxGateRetries, out.retries);
  if (is_gate_option(flag, false)) return apply_gate_option(flag, value, out.gate);
  if (flag == "--exclusive") return invalid("--exclusive goes with run and mark start; a sweep's runs never overlap");
  return invalid("unknown option '" + flag + "' for sweep");
}

bool given(const Args& args, const std::string& flag) {
  return std::any_of(args.options.begin(), args.options.end(), [&](const auto& o) { return o.first == flag; });
}

// The parameter --items {NAME} names: declared, every value a positive number.
Status check_items_param(const SweepArgs& a) {
  if (a.items.param.empty()) return ok_status();
  auto p = std::find_if(a.params.begin(), a.params.end(), [&](const ParamAxis& x) { return x.name == a.items.param; });
  if (p == a.params.end()) return invalid("--items {" + a.items.param + "}: no --param " + a.items.param);
  for (const auto& v : p->values) {
    if (!parse_positive_option("--items", v))
      return invalid("--items {" + a.items.param + "}: value '" + v + "' is not a number above 0");
  }
  return ok_status();
}

// --search drives one search over the clock axes per combination of
// parameter values; --ci and --warmup have no meaning for it, and it
// compares points from 2 runs each.
Status check_search(const Args& args, SweepArgs& a) {
  if (!a.search) {
    if (given(args, "--max-runs")) return invalid("--max-runs needs --search");
    return ok_status();
  }
  if (a.ci_pct) return invalid("--ci does not go with --search: the search decides how often to run a point");
  if (a.warmup > 0) return invalid("--warmup does not go with --search");
  if (a.repeat < 2) return invalid("--search compares points by their CI: --repeat must be at least 2");
  if (!given(args, "--max-repeat")) a.max_repeat = std::max(a.repeat, kSearchDefaultMaxRepeat);
  if (a.max_repeat < a.repeat) return invalid("--max-repeat must be at least --repeat");
  if (a.clocks.empty()) a.clocks = {{"cpu", "all"}, {"gpu", "all"}};
  return ok_status();
}

Status check_combination(const Args& args, SweepArgs& a) {
  if (a.resume) {
    auto others = std::count_if(args.options.begin(), args.options.end(), [](const auto& o) {
      return o.first != "--resume" && o.first != "--json" && o.first != "--progress";
    });
    if (others > 0 || !a.command.empty())
      return invalid(
          "--resume ID takes no other option and no command (only --json and --progress): the sweep's own are used");
    return ok_status();
  }
  if (a.command.empty()) return invalid("sweep needs a command: energyctl sweep [OPTIONS] -- CMD [ARGS...]");
  if (auto st = check_search(args, a); !st) return st;
  if (a.ci_pct && given(args, "--repeat")) return invalid("--repeat and --ci exclude each other");
  if (!a.ci_pct && !a.search && given(args, "--max-repeat")) return invalid("--max-repeat needs --ci or --search");
  if (a.clocks.empty() && a.params.empty())
    return invalid("sweep needs at least one axis: --cpu, --gpu, --emc or --param");
  return check_items_param(a);
}

// The domains of `kind` in a `clocks` reply, and the frequencies all of them list.
Result<std::vector<int64_t>> common_table(const nlohmann::json& clocks, const std::string& kind) {
  std::optional<std::vector<int64_t>> common;
  for (const auto& d : member(clocks, "domains")) {
    if (d.value("kind", "") != kind) continue;
    std::vector<int64_t> table;
    for (const auto& hz : member(d, "available_hz")) {
      if (hz.is_number_integer() && hz.get<int64_t>() > 0) table.push_back(hz.get<int64_t>());
    }
    std::sort(table.begin(), table.end());
    if (!common) common = table;
    std::vector<int64_t> both;
    std::set_intersection(common->begin(), common->end(), table.begin(), table.end(), std::back_inserter(both));
    common = both;
  }
  if (!common) return invalid("--" + kind + ": this board has no " + kind + " clock domain");
  if (common->empty()) return invalid("--" + kind + ": the " + kind + " domains list no frequency in common");
  return *common;
}

}  // namespace

Result<SweepArgs> parse_sweep_args(const Args& args) {
  SweepArgs out;
  auto applied = for_each_option(
      args, [&](const std::string& flag, const std::string& value) { return apply_option(flag, value, out); });
  if (!applied) return applied.take_error();
  out.command = args.words;
  out.json = out.json || args.json;
  std::sort(out.clocks.begin(), out.clocks.end(), [](const auto& a, const auto& b) {
    auto rank = [](const std::string& d) { return d == "cpu" ? 0 : d == "gpu" ? 1 : 2; };
    return rank(a.first) < rank(b.first);
  });
  if (auto st = check_combination(args, out); !st) return st.take_error();
  return out;
}

Result<std::vector<ClockAxis>> resolve_clock_axes(const SweepArgs& args, const nlohmann::json& clocks) {
  std::vector<ClockAxis> out;
  for (const auto& [domain, list] : args.clocks) {
    auto table = common_table(clocks, domain);
    if (!table) return table.take_error();
    auto axis = parse_clock_axis(domain, list, *table);
    if (!axis) return axis.take_error();
    out.push_back(std::move(axis).value());
  }
  return out;
}

SweepSpec make_spec(const SweepArgs& args, std::vector<ClockAxis> clocks, uint64_t seed) {
  SweepSpec s;
  s.command = args.command;
  s.axes.clocks = std::move(clocks);
  s.axes.params = args.params;
  s.dvfs = args.dvfs;
  s.repeat = args.ci_pct ? args.max_repeat : args.repeat;
  s.ci_pct = args.ci_pct;
  s.warmup = args.warmup;
  s.cooldown = args.cooldown;
  s.baseline_ms = args.baseline_ms;
  s.items = args.items;
  s.seed = seed;
  if (args.search) s.search = SearchSpec{args.repeat, args.max_repeat, args.max_runs};
  s.gate = args.gate;
  s.retries = args.retries;
  return s;
}

std::optional<double> point_items(const SweepSpec& spec, const SweepPoint& point) {
  if (spec.items.count) return spec.items.count;
  for (const auto& p : point_params(spec.axes, point)) {
    if (p.name == spec.items.param) return std::strtod(p.value.c_str(), nullptr);
  }
  return std::nullopt;
}

}  // namespace energy::cli
