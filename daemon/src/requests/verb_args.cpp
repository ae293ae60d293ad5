#include "verb_args.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>
#include <utility>

#include "energy/clock_pin.h"

namespace energy::daemon {
namespace {

using nlohmann::json;

// ---- the declarations -----------------------------------------------------

constexpr int64_t kMaxInt = INT64_MAX;

ArgSpec flag(const char* name) { return {name, ArgType::kBool, false, 0, 0, {}}; }
ArgSpec integer(const char* name, int64_t min, int64_t max) { return {name, ArgType::kInt, false, min, max, {}}; }
ArgSpec text(const char* name, int64_t min, int64_t max) { return {name, ArgType::kText, false, min, max, {}}; }
ArgSpec choice(const char* name, std::vector<const char*> choices) {
  return {name, ArgType::kChoice, false, 0, 0, std::move(choices)};
}
ArgSpec of_type(const char* name, ArgType type, int64_t max = 0) { return {name, type, false, 0, max, {}}; }
ArgSpec required(ArgSpec a) {
  a.required = true;
  return a;
}

std::vector<VerbSpec> declarations() {
  return {
      {"status", Verb::kStatus, "status", {}},
      {"rails", Verb::kRails, "rails", {}},
      {"clocks", Verb::kClocks, "clocks", {}},
      {"clocks.leases", Verb::kClocksLeases, "clocks.leases", {}},
      {"energy.counters", Verb::kEnergyCounters, "energy.counters", {}},
      {"export",
       Verb::kExport,
       "export",
       {integer("since_wall_ns", 0, kMaxInt), integer("until_wall_ns", 0, kMaxInt), text("rail", 0, kMaxShortText)}},
      {"export",
       Verb::kExportRun,
       "export of a run",
       {required(of_type("run", ArgType::kRunId)), integer("since_ns", 0, kMaxInt), text("rail", 0, kMaxShortText)}},
      {"runs.list",
       Verb::kRunsList,
       "runs.list",
       {text("name", 1, kMaxNameChars), of_type("tags", ArgType::kTags, kMaxTags), integer("since_wall_ns", 0, kMaxInt),
        integer("until_wall_ns", 0, kMaxInt), choice("state", {"open", "stopped", "interrupted"}),
        integer("limit", 1, kRunsListMaxLimit), of_type("before_id", ArgType::kRunId)}},
      {"runs.show", Verb::kRunsShow, "runs.show", {required(of_type("run", ArgType::kRunRef))}},
      {"mark.start",
       Verb::kMarkStart,
       "mark.start",
       {required(text("name", 1, kMaxNameChars)), of_type("tags", ArgType::kTags, kMaxTags),
        of_type("baseline", ArgType::kRunId), flag("baseline_run"), of_type("pin", ArgType::kPin),
        of_type("items", ArgType::kPositive, kMaxItems), flag("end_with_connection"),
        of_type("min_coverage", ArgType::kPositive, 1), of_type("max_gap_periods", ArgType::kPositive, 1000),
        integer("max_failed_reads", 0, kMaxGateFailedReads), flag("exclusive"), integer("pid", 1, kMaxPid)}},
      {"mark.stop",
       Verb::kMarkStop,
       "mark.stop",
       {required(of_type("run", ArgType::kRunRef)), of_type("tags", ArgType::kTags, kMaxTags),
        flag("baseline_interrupted"), of_type("items", ArgType::kPositive, kMaxItems),
        integer("command_start_ns", 1, kMaxInt), integer("command_end_ns", 1, kMaxInt)}},
      {"clocks.pin",
       Verb::kClocksPin,
       "clocks.pin",
       {required(of_type("domains", ArgType::kDomains, kMaxDomains)), text("governor", 0, kMaxShortText),
        choice("lease", {"connection", "duration", "run"}), integer("duration_ms", 1, kMaxDurationMs),
        of_type("run", ArgType::kRunRef), flag("allow_offline_cpus")}},
      {"clocks.unpin",
       Verb::kClocksUnpin,
       "clocks.unpin",
       {integer("lease", 1, kMaxInt), of_type("leases", ArgType::kLeaseIds, kMaxLeaseIds), flag("all")}},
  };
}

constexpr const char* kSweepStates[] = {"running", "interrupted", "complete"};

std::vector<VerbSpec> sweep_declarations() {
  std::vector<const char*> states(std::begin(kSweepStates), std::end(kSweepStates));
  return {
      {"sweep.create",
       Verb::kSweepCreate,
       "sweep.create",
       {required(text("name", 1, kMaxNameChars)), required(of_type("spec", ArgType::kObject, kMaxSweepSpecBytes))}},
      {"sweep.list",
       Verb::kSweepList,
       "sweep.list",
       {choice("state", states), integer("limit", 1, kSweepsListMaxLimit), integer("before_id", 1, kMaxInt)}},
      {"sweep.show", Verb::kSweepShow, "sweep.show", {required(integer("sweep", 1, kMaxInt))}},
      {"sweep.add_run",
       Verb::kSweepAddRun,
       "sweep.add_run",
       {required(integer("sweep", 1, kMaxInt)), required(of_type("run", ArgType::kRunId)),
        required(integer("point", 0, kMaxSweepPoint)), required(integer("repeat", 0, kMaxSweepPoint)),
        required(choice("role", {"measure", "warmup", "baseline", "rejected"})),
        integer("cooldown_ms", 0, kMaxCooldownMs)}},
      {"sweep.set_state",
       Verb::kSweepSetState,
       "sweep.set_state",
       {required(integer("sweep", 1, kMaxInt)), required(choice("state", states))}},
  };
}

// mark.start's `pin`: clocks.pin's arguments without the lease (the run is the lease).
const VerbSpec& pin_object_spec() {
  static const VerbSpec kSpec{"mark.start",
                              Verb::kMarkStart,
                              "mark.start: argument \"pin\"",
                              {required(of_type("domains", ArgType::kDomains, kMaxDomains)),
                               text("governor", 0, kMaxShortText), flag("allow_offline_cpus")}};
  return kSpec;
}

// ---- describing values in messages ----------------------------------------

constexpr size_t kExcerptChars = 40;

// The JSON type of `v` and an excerpt, without recursing into containers.
std::string what_came(const json& v) {
  if (v.is_array()) return "an array of " + std::to_string(v.size()) + " element(s)";
  if (v.is_object()) return "an object of " + std::to_string(v.size()) + " member(s)";
  std::string text = v.dump(-1, ' ', true, json::error_handler_t::replace);  // ASCII: safe to cut
  if (text.size() > kExcerptChars) text = text.substr(0, kExcerptChars) + "...";
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "boolean " + text;
  if (v.is_number_float()) return "number " + text;
  if (v.is_number()) return "integer " + text;
  return "string " + text;
}

std::string quoted(const std::string& s) {
  std::string text = json(s).dump(-1, ' ', true, json::error_handler_t::replace);
  return text.size() > kExcerptChars ? text.substr(0, kExcerptChars) + "...\"" : text;
}

std::string range_text(int64_t min, int64_t max) { return std::to_string(min) + ".." + std::to_string(max); }

std::string expected(const ArgSpec& a) {
  switch (a.type) {
    case ArgType::kBool: return "true or false";
    case ArgType::kInt: return "an integer " + range_text(a.min, a.max);
    case ArgType::kText: return "a string of " + std::to_string(a.min) + "-" + std::to_string(a.max) + " characters";
    case ArgType::kChoice: {
      std::string list;
      for (const char* c : a.choices) list += (list.empty() ? "\"" : ", \"") + std::string(c) + "\"";
      return "one of " + list;
    }
    case ArgType::kRunRef: return "a run id or name (a positive integer or a string of 1-200 characters)";
    case ArgType::kRunId: return "a run id (a positive integer or a decimal string)";
    case ArgType::kTags: return "an object of up to " + std::to_string(a.max) + " string values";
    case ArgType::kLeaseIds: return "an array of up to " + std::to_string(a.max) + " lease ids (positive integers)";
    case ArgType::kPositive: return "a number above 0 and at most " + std::to_string(a.max);
    case ArgType::kPin:
      return "an object of clocks.pin arguments without \"lease\" (e.g. {\"domains\": {\"gpu\": \"max\"}})";
    case ArgType::kObject: return "a JSON object of at most " + std::to_string(a.max) + " bytes serialised";
    case ArgType::kDomains:
      return "an object naming 1-" + std::to_string(a.max) +
             " domains, each with a frequency string, e.g. {\"cpu\": \"max\", \"gpu\": \"612MHz\"}";
  }
  return "?";
}

// ---- text ------------------------------------------------------------------

// The code point of the UTF-8 sequence at s[i] and its length, or length 0
// when the bytes there are not valid UTF-8 (overlong forms and surrogates
// included).
std::pair<uint32_t, size_t> utf8_at(const std::string& s, size_t i) {
  auto byte = [&](size_t k) { return static_cast<uint32_t>(static_cast<unsigned char>(s[k])); };
  uint32_t b0 = byte(i);
  if (b0 < 0x80) return {b0, 1};
  size_t len = b0 >= 0xF0 ? 4 : b0 >= 0xE0 ? 3 : b0 >= 0xC0 ? 2 : 0;
  if (len == 0 || b0 > 0xF4 || i + len > s.size()) return {0, 0};
  uint32_t cp = b0 & (0x7Fu >> len);
  for (size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xC0u) != 0x80u) return {0, 0};
    cp = (cp << 6) | (byte(i + k) & 0x3Fu);
  }
  static constexpr uint32_t kMinForLength[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMinForLength[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return {0, 0};
  return {cp, len};
}

bool is_control(uint32_t cp) { return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F); }

std::string code_point_text(uint32_t cp) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(cp));
  return buf;
}

// ---- reading values ---------------------------------------------------------

using DomainSpecs = std::vector<std::pair<std::string, std::string>>;
using Value =
    std::variant<bool, int64_t, double, std::string, RunRef, Tags, std::vector<int64_t>, DomainSpecs, PinOrder>;
using Values = std::map<std::string, Value>;

Status read_pin_domains(const VerbSpec& spec, const Values& v, PinOrder& order);

std::optional<int64_t> decimal_id(const std::string& text) {
  int64_t id = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size() || id <= 0) return std::nullopt;
  return id;
}

// An integer that fits int64_t, or nullopt (floats, unsigned above INT64_MAX, other types).
std::optional<int64_t> as_int64(const json& v) {
  if (v.is_number_unsigned()) {
    auto u = v.get<uint64_t>();
    return u > static_cast<uint64_t>(INT64_MAX) ? std::nullopt : std::optional<int64_t>(static_cast<int64_t>(u));
  }
  if (v.is_number_integer()) return v.get<int64_t>();
  return std::nullopt;
}

class Reader {
 public:
  explicit Reader(const VerbSpec& spec) : spec_(spec) {}
  Result<Values> read(const json& args) const;

 private:
  std::string arg(const ArgSpec& a) const { return std::string(spec_.label) + ": argument \"" + a.name + "\""; }
  Error wrong(const ArgSpec& a, const json& v) const {
    return make_error(ErrorCode::kInvalid, arg(a) + " must be " + expected(a) + ", got " + what_came(v));
  }
  Status known_keys(const json& args) const;
  Result<Value> value(const ArgSpec& a, const json& v) const;
  Result<Value> integer_value(const ArgSpec& a, const json& v) const;
  Result<Value> text_value(const ArgSpec& a, const json& v) const;
  Result<Value> choice_value(const ArgSpec& a, const json& v) const;
  Result<Value> run_ref_value(const ArgSpec& a, const json& v) const;
  Result<Value> run_id_value(const ArgSpec& a, const json& v) const;
  Result<Value> tags_value(const ArgSpec& a, const json& v) const;
  Result<Value> lease_ids_value(const ArgSpec& a, const json& v) const;
  Result<Value> domains_value(const ArgSpec& a, const json& v) const;
  Result<Value> pin_value(const ArgSpec& a, const json& v) const;
  Result<Value> positive_value(const ArgSpec& a, const json& v) const;
  Result<Value> object_value(const ArgSpec& a, const json& v) const;

  const VerbSpec& spec_;
};

Status Reader::known_keys(const json& args) const {
  for (const auto& item : args.items()) {
    bool known = false;
    for (const auto& a : spec_.args) known = known || item.key() == a.name;
    if (known) continue;
    std::string list;
    for (const auto& a : spec_.args) list += (list.empty() ? "" : ", ") + std::string(a.name);
    return make_error(ErrorCode::kInvalid,
                      std::string(spec_.label) + ": unknown argument " + quoted(item.key()) +
                          (list.empty() ? " (it takes no arguments)" : " (expected " + list + ")"));
  }
  return ok_status();
}

Result<Values> Reader::read(const json& args) const {
  if (!args.is_object()) return make_error(ErrorCode::kInvalid, std::string(spec_.label) + ": args must be an object");
  if (auto st = known_keys(args); !st) return st.take_error();
  Values out;
  for (const auto& a : spec_.args) {
    auto it = args.find(a.name);
    if (it == args.end() || it->is_null()) {
      if (a.required) return make_error(ErrorCode::kInvalid, arg(a) + " is missing (expected " + expected(a) + ")");
      continue;
    }
    auto v = value(a, *it);
    if (!v) return v.take_error();
    out.emplace(a.name, std::move(v).value());
  }
  return out;
}

Result<Value> Reader::value(const ArgSpec& a, const json& v) const {
  switch (a.type) {
    case ArgType::kBool:
      if (!v.is_boolean()) return wrong(a, v);
      return Value(v.get<bool>());
    case ArgType::kInt: return integer_value(a, v);
    case ArgType::kText: return text_value(a, v);
    case ArgType::kChoice: return choice_value(a, v);
    case ArgType::kRunRef: return run_ref_value(a, v);
    case ArgType::kRunId: return run_id_value(a, v);
    case ArgType::kTags: return tags_value(a, v);
    case ArgType::kLeaseIds: return lease_ids_value(a, v);
    case ArgType::kDomains: return domains_value(a, v);
    case ArgType::kPin: return pin_value(a, v);
    case ArgType::kPositive: return positive_value(a, v);
    case ArgType::kObject: return object_value(a, v);
  }
  return wrong(a, v);
}

Result<Value> Reader::integer_value(const ArgSpec& a, const json& v) const {
  auto n = as_int64(v);
  if (!n || *n < a.min || *n > a.max) return wrong(a, v);
  return Value(*n);
}

Result<Value> Reader::text_value(const ArgSpec& a, const json& v) const {
  if (!v.is_string()) return wrong(a, v);
  const auto& s = v.get_ref<const std::string&>();
  if (auto st = check_text(arg(a), s, a.min, a.max); !st) return st.take_error();
  return Value(s);
}

Result<Value> Reader::choice_value(const ArgSpec& a, const json& v) const {
  if (!v.is_string()) return wrong(a, v);
  const auto& s = v.get_ref<const std::string&>();
  for (const char* c : a.choices) {
    if (s == c) return Value(s);
  }
  return wrong(a, v);
}

Result<Value> Reader::run_ref_value(const ArgSpec& a, const json& v) const {
  if (auto n = as_int64(v)) {
    if (*n <= 0) return wrong(a, v);
    return Value(RunRef{*n, ""});
  }
  if (!v.is_string()) return wrong(a, v);
  const auto& s = v.get_ref<const std::string&>();
  if (s.empty()) return wrong(a, v);
  if (auto st = check_text(arg(a), s, 1, kMaxNameChars); !st) return st.take_error();
  return Value(RunRef{decimal_id(s), s});
}

Result<Value> Reader::run_id_value(const ArgSpec& a, const json& v) const {
  std::optional<int64_t> id = as_int64(v);
  if (v.is_string()) id = decimal_id(v.get_ref<const std::string&>());
  if (!id || *id <= 0) return wrong(a, v);
  return Value(*id);
}

Result<Value> Reader::tags_value(const ArgSpec& a, const json& v) const {
  if (!v.is_object()) return wrong(a, v);
  if (static_cast<int64_t>(v.size()) > a.max) {
    return make_error(ErrorCode::kInvalid, arg(a) + " has " + std::to_string(v.size()) + " tags; at most " +
                                               std::to_string(a.max) + " are allowed");
  }
  Tags tags;
  for (const auto& item : v.items()) {
    std::string key = arg(a) + ": key " + quoted(item.key());
    if (auto st = check_text(key, item.key(), 1, kMaxNameChars); !st) return st.take_error();
    if (!item.value().is_string()) {
      return make_error(ErrorCode::kInvalid, arg(a) + ": the value of " + quoted(item.key()) +
                                                 " must be a string, got " + what_came(item.value()));
    }
    const auto& value = item.value().get_ref<const std::string&>();
    if (auto st = check_text(arg(a) + ": the value of " + quoted(item.key()), value, 0, kMaxTagValueChars); !st) {
      return st.take_error();
    }
    tags.emplace(item.key(), value);
  }
  return Value(std::move(tags));
}

Result<Value> Reader::lease_ids_value(const ArgSpec& a, const json& v) const {
  if (!v.is_array() || static_cast<int64_t>(v.size()) > a.max) return wrong(a, v);
  std::vector<int64_t> ids;
  for (const auto& item : v) {
    auto n = as_int64(item);
    if (!n || *n <= 0) {
      return make_error(ErrorCode::kInvalid,
                        arg(a) + ": a lease id must be a positive integer, got " + what_came(item));
    }
    ids.push_back(*n);
  }
  return Value(std::move(ids));
}

Result<Value> Reader::domains_value(const ArgSpec& a, const json& v) const {
  if (!v.is_object() || v.empty() || static_cast<int64_t>(v.size()) > a.max) return wrong(a, v);
  DomainSpecs out;
  for (const auto& item : v.items()) {
    std::string domain = arg(a) + ": domain " + quoted(item.key());
    if (auto st = check_text(domain, item.key(), 1, kMaxShortText); !st) return st.take_error();
    if (!item.value().is_string()) {
      return make_error(
          ErrorCode::kInvalid,
          domain + ": the frequency must be a string such as \"max\" or \"612MHz\", got " + what_came(item.value()));
    }
    const auto& freq = item.value().get_ref<const std::string&>();
    if (auto st = check_text(domain + ": the frequency", freq, 1, kMaxShortText); !st) return st.take_error();
    out.emplace_back(item.key(), freq);
  }
  return Value(std::move(out));
}

Result<Value> Reader::pin_value(const ArgSpec& a, const json& v) const {
  if (!v.is_object()) return wrong(a, v);
  auto values = Reader(pin_object_spec()).read(v);
  if (!values) return values.take_error();
  PinOrder order;
  if (auto st = read_pin_domains(pin_object_spec(), *values, order); !st) return st.take_error();
  return Value(std::move(order));
}

// JSON has no NaN or infinity, but a number too large for a double parses as infinity.
Result<Value> Reader::positive_value(const ArgSpec& a, const json& v) const {
  if (!v.is_number()) return wrong(a, v);
  double d = v.get<double>();
  if (!std::isfinite(d) || d <= 0 || d > static_cast<double>(a.max)) return wrong(a, v);
  return Value(d);
}

// Serialised compactly; text that is not valid UTF-8 cannot come from the
// protocol's parser, and is replaced rather than thrown on.
Result<Value> Reader::object_value(const ArgSpec& a, const json& v) const {
  if (!v.is_object()) return wrong(a, v);
  std::string text = v.dump(-1, ' ', false, json::error_handler_t::replace);
  if (static_cast<int64_t>(text.size()) > a.max) {
    return make_error(ErrorCode::kInvalid, arg(a) + " is " + std::to_string(text.size()) +
                                               " bytes serialised; at most " + std::to_string(a.max) + " are allowed");
  }
  return Value(std::move(text));
}

// ---- typed arguments of each verb ------------------------------------------

template <typename T>
std::optional<T> get(const Values& values, const char* name) {
  auto it = values.find(name);
  if (it == values.end()) return std::nullopt;
  const T* v = std::get_if<T>(&it->second);
  return v != nullptr ? std::optional<T>(*v) : std::nullopt;
}

Error invalid(const VerbSpec& spec, const std::string& message) {
  return make_error(ErrorCode::kInvalid, std::string(spec.label) + ": " + message);
}

Status no_reserved_tags(const VerbSpec& spec, const Tags& tags, const char* instead) {
  for (const auto& [key, value] : tags) {
    if (key.rfind(kReservedTagPrefix, 0) != 0) continue;
    return invalid(spec, "argument \"tags\": the key " + quoted(key) + " is reserved (keys starting \"" +
                             kReservedTagPrefix + "\" are set by energyd only" + instead + ")");
  }
  return ok_status();
}

Status times_in_order(const VerbSpec& spec, std::optional<int64_t> since, std::optional<int64_t> until) {
  if (since && until && *until < *since) {
    return invalid(spec, "argument \"until_wall_ns\" (" + std::to_string(*until) + ") is before \"since_wall_ns\" (" +
                             std::to_string(*since) + ")");
  }
  return ok_status();
}

std::string run_key(const RunRef& ref) { return ref.name.empty() ? std::to_string(ref.id.value_or(0)) : ref.name; }

Result<VerbArgs> export_args(const VerbSpec& spec, const Values& v) {
  ExportArgs out;
  auto since = get<int64_t>(v, "since_wall_ns");
  auto until = get<int64_t>(v, "until_wall_ns");
  if (auto st = times_in_order(spec, since, until); !st) return st.take_error();
  out.since_wall_ns = since.value_or(0);
  out.until_wall_ns = until.value_or(INT64_MAX);
  out.rail = get<std::string>(v, "rail").value_or("");
  return VerbArgs(out);
}

Result<VerbArgs> export_run_args(const VerbSpec&, const Values& v) {
  RunExportArgs out;
  out.run_id = get<int64_t>(v, "run").value_or(0);
  out.since_ns = get<int64_t>(v, "since_ns");
  out.rail = get<std::string>(v, "rail").value_or("");
  return VerbArgs(out);
}

Result<VerbArgs> runs_list_args(const VerbSpec& spec, const Values& v) {
  RunFilter f;
  f.name = get<std::string>(v, "name");
  f.tags = get<Tags>(v, "tags").value_or(Tags());
  f.since_wall_ns = get<int64_t>(v, "since_wall_ns");
  f.until_wall_ns = get<int64_t>(v, "until_wall_ns");
  if (auto st = times_in_order(spec, f.since_wall_ns, f.until_wall_ns); !st) return st.take_error();
  if (auto state = get<std::string>(v, "state")) f.state = run_state_from_name(*state);
  f.limit = get<int64_t>(v, "limit").value_or(kRunsListDefaultLimit);
  f.before_id = get<int64_t>(v, "before_id");
  return VerbArgs(f);
}

Result<VerbArgs> runs_show_args(const VerbSpec&, const Values& v) {
  return VerbArgs(get<RunRef>(v, "run").value_or(RunRef{}));
}

Result<VerbArgs> mark_start_args(const VerbSpec& spec, const Values& v) {
  MarkStartArgs out;
  out.name = get<std::string>(v, "name").value_or("");
  out.tags = get<Tags>(v, "tags").value_or(Tags());
  if (auto st = no_reserved_tags(spec, out.tags, "; a baseline run is asked for with \"baseline_run\": true"); !st) {
    return st.take_error();
  }
  out.baseline = get<int64_t>(v, "baseline");
  out.baseline_run = get<bool>(v, "baseline_run").value_or(false);
  if (out.baseline && out.baseline_run) {
    return invalid(spec, "a baseline run (\"baseline_run\": true) cannot itself use a baseline (\"baseline\")");
  }
  out.pin = get<PinOrder>(v, "pin");
  out.items = get<double>(v, "items");
  out.end_with_connection = get<bool>(v, "end_with_connection").value_or(false);
  out.min_coverage = get<double>(v, "min_coverage");
  out.max_gap_periods = get<double>(v, "max_gap_periods");
  if (out.max_gap_periods && *out.max_gap_periods < kMinGateGapPeriods) {
    return invalid(spec, "argument \"max_gap_periods\" (" + json(*out.max_gap_periods).dump() +
                             ") is below 1: a gap of one period is every reading's spacing");
  }
  out.max_failed_reads = get<int64_t>(v, "max_failed_reads");
  out.exclusive = get<bool>(v, "exclusive").value_or(false);
  out.pid = get<int64_t>(v, "pid");
  return VerbArgs(out);
}

Result<VerbArgs> mark_stop_args(const VerbSpec& spec, const Values& v) {
  MarkStopArgs out;
  out.run = run_key(get<RunRef>(v, "run").value_or(RunRef{}));
  out.tags = get<Tags>(v, "tags").value_or(Tags());
  if (auto st = no_reserved_tags(spec, out.tags, "; a cut-short baseline is \"baseline_interrupted\": true"); !st) {
    return st.take_error();
  }
  out.baseline_interrupted = get<bool>(v, "baseline_interrupted").value_or(false);
  out.items = get<double>(v, "items");
  auto start = get<int64_t>(v, "command_start_ns"), end = get<int64_t>(v, "command_end_ns");
  if (start.has_value() != end.has_value()) {
    return invalid(spec, "\"command_start_ns\" and \"command_end_ns\" come together (the command's span)");
  }
  if (start && *start > *end) {
    return invalid(spec, "\"command_start_ns\" (" + std::to_string(*start) + ") is after \"command_end_ns\" (" +
                             std::to_string(*end) + ")");
  }
  if (start) out.command = CommandSpan{*start, *end};
  return VerbArgs(out);
}

Status pin_lease(const VerbSpec& spec, const Values& v, PinArgs& out) {
  auto kind = parse_lease_kind(get<std::string>(v, "lease").value_or("connection"));
  if (!kind) return invalid(spec, kind.error().message);
  out.order.kind = *kind;
  auto ms = get<int64_t>(v, "duration_ms");
  auto run = get<RunRef>(v, "run");
  bool duration = *kind == LeaseKind::kDuration, for_run = *kind == LeaseKind::kRun;
  if (duration != ms.has_value()) {
    return invalid(
        spec, duration ? "a duration lease needs \"duration_ms\": 1.." + std::to_string(kMaxDurationMs) + " (30 days)"
                       : "\"duration_ms\" is only for \"lease\": \"duration\"");
  }
  if (for_run != run.has_value()) {
    return invalid(
        spec, for_run ? "a run lease needs \"run\": the run's id or name" : "\"run\" is only for \"lease\": \"run\"");
  }
  out.order.duration_ns = ms.value_or(0) * kNsPerMs;  // at most 30 days: no overflow
  if (run) out.run_key = run_key(*run);
  return ok_status();
}

// The domains, governor and allow_offline_cpus of clocks.pin (and of mark.start's `pin`).
Status read_pin_domains(const VerbSpec& spec, const Values& v, PinOrder& order) {
  std::string governor = get<std::string>(v, "governor").value_or("");
  for (const auto& [domain, freq] : get<DomainSpecs>(v, "domains").value_or(DomainSpecs())) {
    auto range = parse_freq_range(freq);
    if (!range) return invalid(spec, "argument \"domains\": " + quoted(domain) + ": " + range.error().message);
    order.requests.push_back(PinRequest{domain, *range, governor});
  }
  order.offline = get<bool>(v, "allow_offline_cpus").value_or(false) ? OfflineCpus::kAllow : OfflineCpus::kRefuse;
  return ok_status();
}

Result<VerbArgs> pin_args(const VerbSpec& spec, const Values& v) {
  PinArgs out;
  if (auto st = read_pin_domains(spec, v, out.order); !st) return st.take_error();
  if (auto st = pin_lease(spec, v, out); !st) return st.take_error();
  return VerbArgs(std::move(out));
}

Result<VerbArgs> unpin_args(const VerbSpec& spec, const Values& v) {
  UnpinArgs out;
  out.leases = get<std::vector<int64_t>>(v, "leases").value_or(std::vector<int64_t>());
  if (auto one = get<int64_t>(v, "lease")) out.leases.insert(out.leases.begin(), *one);
  out.all = get<bool>(v, "all").value_or(false);
  if (out.all && !out.leases.empty()) return invalid(spec, "give lease ids or \"all\": true, not both");
  if (!out.all && out.leases.empty()) return invalid(spec, "needs \"lease\", \"leases\" or \"all\": true");
  return VerbArgs(std::move(out));
}

Result<VerbArgs> sweep_create_args(const VerbSpec&, const Values& v) {
  return VerbArgs(
      SweepCreateArgs{get<std::string>(v, "name").value_or(""), get<std::string>(v, "spec").value_or("{}")});
}

Result<VerbArgs> sweep_list_args(const VerbSpec&, const Values& v) {
  SweepFilter f;
  if (auto state = get<std::string>(v, "state")) f.state = sweep_state_from_name(*state);
  f.limit = get<int64_t>(v, "limit").value_or(kSweepsListDefaultLimit);
  f.before_id = get<int64_t>(v, "before_id");
  return VerbArgs(f);
}

Result<VerbArgs> sweep_show_args(const VerbSpec&, const Values& v) {
  return VerbArgs(SweepRef{get<int64_t>(v, "sweep").value_or(0)});
}

Result<VerbArgs> sweep_add_run_args(const VerbSpec&, const Values& v) {
  SweepRunRecord r;
  r.sweep_id = get<int64_t>(v, "sweep").value_or(0);
  r.run_id = get<int64_t>(v, "run").value_or(0);
  r.point = get<int64_t>(v, "point").value_or(0);
  r.repeat = get<int64_t>(v, "repeat").value_or(0);
  r.role = sweep_role_from_name(get<std::string>(v, "role").value_or("")).value_or(SweepRole::kMeasure);
  r.cooldown_ms = get<int64_t>(v, "cooldown_ms");
  return VerbArgs(r);
}

Result<VerbArgs> sweep_state_args(const VerbSpec&, const Values& v) {
  auto state = sweep_state_from_name(get<std::string>(v, "state").value_or(""));
  return VerbArgs(SweepStateArgs{get<int64_t>(v, "sweep").value_or(0), state.value_or(SweepState::kRunning)});
}

using Builder = std::function<Result<VerbArgs>(const VerbSpec&, const Values&)>;

Builder builder_of(Verb verb) {
  switch (verb) {
    case Verb::kExport: return export_args;
    case Verb::kExportRun: return export_run_args;
    case Verb::kRunsList: return runs_list_args;
    case Verb::kRunsShow: return runs_show_args;
    case Verb::kMarkStart: return mark_start_args;
    case Verb::kMarkStop: return mark_stop_args;
    case Verb::kClocksPin: return pin_args;
    case Verb::kClocksUnpin: return unpin_args;
    case Verb::kSweepCreate: return sweep_create_args;
    case Verb::kSweepList: return sweep_list_args;
    case Verb::kSweepShow: return sweep_show_args;
    case Verb::kSweepAddRun: return sweep_add_run_args;
    case Verb::kSweepSetState: return sweep_state_args;
    default: return [](const VerbSpec&, const Values&) { return Result<VerbArgs>(VerbArgs(NoArgs{})); };
  }
}

const VerbSpec* spec_for(const protocol::Request& request) {
  bool run_form = request.args.is_object() && request.args.contains("run");
  for (const auto& s : verb_specs()) {
    if (request.verb != s.verb) continue;
    if (s.id == Verb::kExport && run_form) continue;
    if (s.id == Verb::kExportRun && !run_form) continue;
    return &s;
  }
  return nullptr;
}

}  // namespace

const std::vector<VerbSpec>& verb_specs() {
  static const std::vector<VerbSpec> kSpecs = [] {
    auto specs = declarations();
    for (auto& s : sweep_declarations()) specs.push_back(std::move(s));
    return specs;
  }();
  return kSpecs;
}

Status check_text(const std::string& what, const std::string& text, int64_t min_chars, int64_t max_chars) {
  int64_t chars = 0;
  for (size_t i = 0; i < text.size(); ++chars) {
    auto [cp, len] = utf8_at(text, i);
    if (len == 0) {
      return make_error(ErrorCode::kInvalid, what + " is not valid UTF-8 (byte " + std::to_string(i + 1) + " of " +
                                                 std::to_string(text.size()) + ")");
    }
    if (is_control(cp)) {
      return make_error(ErrorCode::kInvalid, what + " contains the control character " + code_point_text(cp) +
                                                 " at character " + std::to_string(chars + 1));
    }
    i += len;
  }
  if (chars < min_chars || chars > max_chars) {
    return make_error(ErrorCode::kInvalid, what + " must be " + std::to_string(min_chars) + "-" +
                                               std::to_string(max_chars) + " characters, got " + std::to_string(chars));
  }
  return ok_status();
}

Result<VerbCall> read_verb_args(const protocol::Request& request) {
  const VerbSpec* spec = spec_for(request);
  if (spec == nullptr) return make_error(ErrorCode::kInvalid, "unknown verb " + quoted(request.verb));
  auto values = Reader(*spec).read(request.args);
  if (!values) return values.take_error();
  auto args = builder_of(spec->id)(*spec, *values);
  if (!args) return args.take_error();
  return VerbCall{spec->id, std::move(args).value()};
}

}  // namespace energy::daemon
