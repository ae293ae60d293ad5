#include "run_args.h"

#include <charconv>
#include <set>

#include "energy/protocol.h"

namespace energy::daemon {
namespace {

constexpr size_t kMaxTagKeyChars = 200;

Error invalid(const std::string& message) { return make_error(ErrorCode::kInvalid, message); }

std::string quoted(const char* key) { return std::string("argument \"") + key + "\""; }

// Every key of `args` must be one of `known`.
Status only_known(const nlohmann::json& args, const std::set<std::string>& known, const char* verb) {
  for (const auto& item : args.items()) {
    if (known.count(item.key()) != 0) continue;
    std::string list;
    for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
    return invalid(std::string(verb) + ": unknown argument \"" + item.key() + "\" (expected " + list + ")");
  }
  return ok_status();
}

std::optional<int64_t> decimal_id(const std::string& text) {
  int64_t id = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size() || id <= 0) return std::nullopt;
  return id;
}

// An id given as a positive integer or a decimal string.
Result<std::optional<int64_t>> optional_id(const nlohmann::json& args, const char* key) {
  auto it = args.find(key);
  if (it == args.end() || it->is_null()) return std::optional<int64_t>();
  std::optional<int64_t> id;
  if (it->is_number_integer()) id = it->get<int64_t>();
  if (it->is_string()) id = decimal_id(it->get<std::string>());
  if (!id || *id <= 0) return invalid(quoted(key) + " must be a run id (a positive integer), got " + it->dump());
  return id;
}

Result<std::optional<RunState>> optional_state(const nlohmann::json& args) {
  auto it = args.find("state");
  if (it == args.end() || it->is_null()) return std::optional<RunState>();
  auto s = it->is_string() ? run_state_from_name(it->get<std::string>()) : std::nullopt;
  if (!s) return invalid("argument \"state\" must be \"open\", \"stopped\" or \"interrupted\", got " + it->dump());
  return s;
}

Result<int64_t> list_limit(const nlohmann::json& args) {
  auto limit = protocol::arg_optional_int(args, "limit");
  if (!limit) return limit.take_error();
  int64_t n = limit->value_or(kRunsListDefaultLimit);
  if (n < 1 || n > kRunsListMaxLimit) {
    return invalid("argument \"limit\" must be 1.." + std::to_string(kRunsListMaxLimit) + ", got " + std::to_string(n));
  }
  return n;
}

Status fill_times(const nlohmann::json& args, RunFilter& f) {
  auto since = protocol::arg_optional_int(args, "since_wall_ns");
  if (!since) return since.take_error();
  auto until = protocol::arg_optional_int(args, "until_wall_ns");
  if (!until) return until.take_error();
  f.since_wall_ns = *since;
  f.until_wall_ns = *until;
  if (since->has_value() && until->has_value() && **until < **since) {
    return invalid("argument \"until_wall_ns\" is before \"since_wall_ns\"");
  }
  return ok_status();
}

}  // namespace

Result<nlohmann::json> parse_string_object(const nlohmann::json& args, const char* key) {
  auto it = args.find(key);
  if (it == args.end() || it->is_null()) return nlohmann::json::object();
  if (!it->is_object()) return invalid(quoted(key) + " must be an object of strings");
  for (const auto& item : it->items()) {
    if (item.key().empty() || item.key().size() > kMaxTagKeyChars) {
      return invalid(quoted(key) + ": keys must be 1-" + std::to_string(kMaxTagKeyChars) + " characters");
    }
    if (!item.value().is_string()) {
      return invalid(quoted(key) + ": the value of \"" + item.key() + "\" must be a string, got " +
                     item.value().dump());
    }
  }
  return *it;
}

Result<RunFilter> parse_runs_list_args(const nlohmann::json& args) {
  auto known =
      only_known(args, {"name", "tags", "since_wall_ns", "until_wall_ns", "state", "limit", "before_id"}, "runs.list");
  if (!known) return known.take_error();
  RunFilter f;
  if (args.contains("name")) {
    auto name = protocol::arg_string(args, "name");
    if (!name) return name.take_error();
    f.name = *name;
  }
  auto tags = parse_string_object(args, "tags");
  if (!tags) return tags.take_error();
  for (const auto& item : tags->items()) f.tags[item.key()] = item.value().get<std::string>();
  auto times = fill_times(args, f);
  if (!times) return times.take_error();
  auto state = optional_state(args);
  if (!state) return state.take_error();
  f.state = *state;
  auto limit = list_limit(args);
  if (!limit) return limit.take_error();
  f.limit = *limit;
  auto before = optional_id(args, "before_id");
  if (!before) return before.take_error();
  f.before_id = *before;
  return f;
}

Result<RunRef> parse_run_ref(const nlohmann::json& args, const char* key) {
  auto it = args.find(key);
  if (it == args.end()) return invalid(quoted(key) + " is missing (a run id or name)");
  if (it->is_number_integer() && it->get<int64_t>() > 0) return RunRef{it->get<int64_t>(), ""};
  if (!it->is_string() || it->get<std::string>().empty()) {
    return invalid(quoted(key) + " must be a run id or name, got " + it->dump());
  }
  std::string text = it->get<std::string>();
  return RunRef{decimal_id(text), text};
}

Result<RunExportArgs> parse_run_export_args(const nlohmann::json& args) {
  auto known = only_known(args, {"run", "since_ns", "rail"}, "export of a run");
  if (!known) return known.take_error();
  auto id = optional_id(args, "run");
  if (!id) return id.take_error();
  if (!id->has_value()) return invalid("argument \"run\" is missing (a run id)");
  RunExportArgs out;
  out.run_id = **id;
  auto since = protocol::arg_optional_int(args, "since_ns");
  if (!since) return since.take_error();
  out.since_ns = *since;
  if (args.contains("rail")) {
    auto rail = protocol::arg_string(args, "rail");
    if (!rail) return rail.take_error();
    out.rail = *rail;
  }
  return out;
}

Result<std::optional<int64_t>> parse_baseline_arg(const nlohmann::json& args) { return optional_id(args, "baseline"); }

}  // namespace energy::daemon
