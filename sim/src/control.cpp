#include "control.h"

#include <functional>

#include "energy/protocol.h"
#include "study.h"

namespace energy::sim {
namespace {

using nlohmann::json;

struct Board {
  LiveBoard& board;
  LiveFs& fs;
};

Error bad_request(std::string message) { return make_error(ErrorCode::kInvalid, std::move(message)); }

// ---- arguments ---------------------------------------------------------------

Result<std::int64_t> required_int(const json& args, const char* key) {
  Result<std::optional<std::int64_t>> value = protocol::arg_optional_int(args, key);
  if (!value) return value.take_error();
  if (!*value) return bad_request(std::string("argument \"") + key + "\" is missing");
  return **value;
}

Result<std::int64_t> int_in(const json& args, const char* key, std::int64_t low, std::int64_t high) {
  Result<std::int64_t> value = required_int(args, key);
  if (value && (*value < low || *value > high)) {
    return bad_request(std::string("argument \"") + key + "\" must be " + std::to_string(low) + ".." +
                       std::to_string(high));
  }
  return value;
}

Result<std::string> optional_string(const json& args, const char* key) {
  if (!args.contains(key) || args.at(key).is_null()) return std::string();
  return protocol::arg_string(args, key);
}

// ---- reports -------------------------------------------------------------------

const char* role_name(RailRole role) {
  switch (role) {
    case RailRole::kComponents: return "components";
    case RailRole::kInput: return "input";
    case RailRole::kSystem5v: return "system_5v";
    case RailRole::kConstant: return "constant";
  }
  return "?";
}

json rail_report(const PowerModel& model, std::size_t r, std::int64_t now) {
  const RailModel& rail = model.topology().rails[r];
  const RailLevel& level = model.level(r, now);
  const bool overridden = model.controls().overrides.count(rail.id) != 0;
  return {{"rail", rail.label.empty() ? rail.id : rail.label},
          {"id", rail.id},
          {"role", role_name(rail.role)},
          {"disabled", rail.disabled},
          {"power_mw", model.power_mw(r, now)},
          {"bus_mv", level.bus_mv},
          {"current_ma", model.current_ma(r, now)},
          {"override", overridden}};
}

json gpu_report(const GpuSpec& spec, const GpuState& s) {
  return {{"gpu", spec.devfreq_name},   {"governor", s.governor},
          {"min_hz", s.min_hz},         {"max_hz", s.max_hz},
          {"cur_hz", s.cur_hz},         {"load_permille", s.load_permille},
          {"railgated", s.cur_hz == 0}, {"railgate_enable", s.railgate_enabled}};
}

json cpu_report(const BoardState& governed) {
  json policies = json::array();
  for (const auto& [policy, p] : governed.policies) {
    policies.push_back({{"policy", policy},
                        {"governor", p.governor},
                        {"min_khz", p.min_khz},
                        {"max_khz", p.max_khz},
                        {"cur_khz", p.cur_khz}});
  }
  json online = json::array();
  for (const auto& [cpu, on] : governed.cpu_online) {
    if (on) online.push_back(cpu);
  }
  return {{"policies", policies}, {"online", online}};
}

json fault_report(const BoardSpec& spec, const std::vector<FaultTable::Entry>& entries) {
  json out = json::array();
  for (const FaultTable::Entry& e : entries) {
    json f = {{"id", e.rail_id}, {"kind", fault_kind_name(e.fault.kind)}};
    for (const PowerMonitorSpec& m : spec.monitors) {
      for (const ChannelSpec& c : m.channels) {
        if (rail_id(m, c) == e.rail_id) f["rail"] = c.label;
      }
    }
    if (e.fault.reads) f["count"] = *e.fault.reads;
    if (e.fault.block_ms) f["ms"] = *e.fault.block_ms;
    out.push_back(std::move(f));
  }
  return out;
}

json model_report(const PowerModel& model, std::int64_t now) {
  const BoardState governed = model.governed();
  json rails = json::array();
  for (std::size_t r = 0; r < model.rail_count(); ++r) rails.push_back(rail_report(model, r, now));
  json gpus = json::array();
  for (const GpuSpec& g : model.spec().gpus) gpus.push_back(gpu_report(g, governed.gpus.at(g.devfreq_name)));
  json totals = json::array();
  for (int r : model.topology().total_rails)
    totals.push_back(model.topology().rails[static_cast<std::size_t>(r)].label);
  return {{"now_ns", now},
          {"history_start_ns", model.history_start_ns()},
          {"rails", rails},
          {"gpus", gpus},
          {"cpu", cpu_report(governed)},
          {"cpu_load_permille", model.controls().cpu_load_permille},
          {"total_rails", totals}};
}

// ---- commands --------------------------------------------------------------------

Result<json> cmd_status(Board& b, const json&) {
  json out;
  b.board.inspect([&out](const PowerModel& model, std::int64_t now) { out = model_report(model, now); });
  const TreeOptions numbering = b.fs.numbering();
  out["board"] = b.board.spec().id;
  out["l4t"] = b.board.spec().l4t;
  out["started_ns"] = b.board.started_ns();
  out["cpu_load_pinned"] = b.board.cpu_load_pinned();
  out["hwmon_offset"] = numbering.hwmon_offset;
  out["iio_offset"] = numbering.iio_offset;
  out["faults"] = fault_report(b.board.spec(), b.fs.faults());
  out["vanished"] = b.fs.vanished_devices();
  return out;
}

Result<json> cmd_now(Board& b, const json&) { return json{{"now_ns", b.board.now_ns()}}; }

Result<json> cmd_energy(Board& b, const json& args) {
  Result<std::string> rail = protocol::arg_string(args, "rail");
  Result<std::int64_t> from = required_int(args, "from_ns");
  Result<std::int64_t> to = required_int(args, "to_ns");
  if (!rail) return rail.take_error();
  if (!from) return from.take_error();
  if (!to) return to.take_error();
  Result<double> energy = b.board.energy_uj(*rail, *from, *to);
  if (!energy) return energy.take_error();
  return json{{"rail", *rail}, {"from_ns", *from}, {"to_ns", *to}, {"energy_uj", *energy}};
}

Result<json> cmd_power(Board& b, const json& args) {
  Result<std::string> rail = protocol::arg_string(args, "rail");
  Result<std::optional<std::int64_t>> t = protocol::arg_optional_int(args, "t_ns");
  if (!rail) return rail.take_error();
  if (!t) return t.take_error();
  const std::int64_t at = t->value_or(b.board.now_ns());
  Result<double> power = b.board.power_mw(*rail, at);
  if (!power) return power.take_error();
  return json{{"rail", *rail}, {"t_ns", at}, {"power_mw", *power}};
}

Result<json> cmd_gpu(Board& b, const json& args) {
  Result<std::string> name = optional_string(args, "gpu");
  if (!name) return name.take_error();
  if (b.board.spec().gpus.empty()) return make_error(ErrorCode::kNotFound, b.board.spec().id + " has no GPU");
  json out;
  b.board.inspect([&](const PowerModel& model, std::int64_t) {
    const BoardState governed = model.governed();
    for (const GpuSpec& g : model.spec().gpus) {
      if (out.is_null() && (name->empty() || *name == g.devfreq_name))
        out = gpu_report(g, governed.gpus.at(g.devfreq_name));
    }
  });
  if (out.is_null()) return make_error(ErrorCode::kNotFound, "no GPU '" + *name + "'");
  return out;
}

// The CPU policies as the governors set them now (cur_khz effective).
Result<json> cmd_cpu(Board& b, const json&) {
  json out;
  b.board.inspect([&out](const PowerModel& model, std::int64_t) {
    out = cpu_report(governed_state(model.spec(), model.controls()));
    out["load_permille"] = model.controls().cpu_load_permille;
  });
  return out;
}

// The memory clock now: its rate, its top rate and whether a pin holds it
// (all 0 / false on a board whose EMC is not modelled). The live workload
// stretches its memory time by top / rate (emc_slowdown()).
Result<json> cmd_emc(Board& b, const json&) {
  json out;
  b.board.inspect([&out](const PowerModel& model, std::int64_t) {
    const EmcState emc = governed_state(model.spec(), model.controls()).emc;
    const std::vector<std::uint64_t>& rates = model.spec().emc.rates_hz;
    out = {{"rate_hz", emc.rate_hz}, {"top_hz", rates.empty() ? 0 : rates.back()}, {"locked", emc.locked}};
  });
  return out;
}

Result<json> cmd_set_gpu_load(Board& b, const json& args) {
  Result<std::int64_t> permille = int_in(args, "permille", 0, 1000);
  Result<std::string> gpu = optional_string(args, "gpu");
  if (!permille) return permille.take_error();
  if (!gpu) return gpu.take_error();
  Status set = b.board.set_gpu_load(*gpu, static_cast<std::uint32_t>(*permille));
  if (!set) return set.take_error();
  return json{{"permille", *permille}};
}

// {"threads": N, "spinning": S?}: N computing and S spin-waiting threads
// among the board's CPUs (a study workload's phase), pinned as their power
// load (a spinning thread counts kSpinActivity, study.h), at most 1000, with
// the busiest CPU at 1000 when N + S >= 1 (what the sampled CPU governor follows).
Result<json> pin_cpu_threads(Board& b, const json& args) {
  Result<std::int64_t> threads = int_in(args, "threads", 0, 1024);
  if (!threads) return threads.take_error();
  std::int64_t spinning = 0;
  if (args.contains("spinning")) {
    Result<std::int64_t> s = int_in(args, "spinning", 0, 1024);
    if (!s) return s.take_error();
    spinning = *s;
  }
  const std::size_t cpus = std::max<std::size_t>(1, b.board.spec().cpu.all_cpus().size());
  const auto busy = static_cast<std::uint32_t>(*threads);
  const auto spin = static_cast<std::uint32_t>(spinning);
  const std::uint32_t permille = cpu_power_permille(busy, spin, cpus);
  const std::uint32_t peak = cpu_peak_permille(busy, spin);
  b.board.pin_cpu_load(permille, peak);
  return json{{"source", "pinned"},
              {"permille", permille},
              {"peak_permille", peak},
              {"threads", *threads},
              {"spinning", spinning}};
}

// {"permille": N} pins the CPU load; no permille (or null, or "host") follows the host again.
Result<json> cmd_set_cpu_load(Board& b, const json& args) {
  if (args.contains("threads")) return pin_cpu_threads(b, args);
  const bool host = !args.contains("permille") || args.at("permille").is_null() ||
                    (args.at("permille").is_string() && args.at("permille").get<std::string>() == "host");
  if (host) {
    b.board.pin_cpu_load(std::nullopt);
    return json{{"source", "host"}};
  }
  Result<std::int64_t> permille = int_in(args, "permille", 0, 1000);
  if (!permille) return permille.take_error();
  b.board.pin_cpu_load(static_cast<std::uint32_t>(*permille));
  return json{{"source", "pinned"}, {"permille", *permille}};
}

Result<json> cmd_set_rail(Board& b, const json& args) {
  Result<std::string> rail = protocol::arg_string(args, "rail");
  Result<std::int64_t> mv = int_in(args, "mv", 0, 1000000);
  Result<std::int64_t> ma = int_in(args, "ma", -1000000, 1000000);
  if (!rail) return rail.take_error();
  if (!mv) return mv.take_error();
  if (!ma) return ma.take_error();
  Status set = b.board.set_rail(*rail, RailState{static_cast<std::int32_t>(*mv), static_cast<std::int32_t>(*ma)});
  if (!set) return set.take_error();
  return json{{"rail", *rail}, {"mv", *mv}, {"ma", *ma}};
}

Result<json> cmd_clear_rail(Board& b, const json& args) {
  Result<std::string> rail = optional_string(args, "rail");
  if (!rail) return rail.take_error();
  Status cleared = b.board.clear_rail(*rail);
  if (!cleared) return cleared.take_error();
  return json::object();
}

Result<FaultSpec> fault_spec(const json& args) {
  Result<std::string> kind_name = protocol::arg_string(args, "kind");
  if (!kind_name) return kind_name.take_error();
  Result<FaultKind> kind = parse_fault_kind(*kind_name);
  Result<std::optional<std::int64_t>> count = protocol::arg_optional_int(args, "count");
  Result<std::optional<std::int64_t>> ms = protocol::arg_optional_int(args, "ms");
  if (!kind) return kind.take_error();
  if (!count) return count.take_error();
  if (!ms) return ms.take_error();
  if (*count && **count < 1) return bad_request("argument \"count\" must be at least 1");
  FaultSpec spec{*kind, std::nullopt, *ms};
  if (*count) spec.reads = static_cast<std::uint64_t>(**count);
  return spec;
}

Result<json> cmd_fault(Board& b, const json& args) {
  Result<std::string> rail = protocol::arg_string(args, "rail");
  if (!rail) return rail.take_error();
  Result<FaultSpec> spec = fault_spec(args);
  if (!spec) return spec.take_error();
  Status injected = b.fs.inject(*rail, *spec);
  if (!injected) return injected.take_error();
  return json{{"rail", *rail}, {"kind", fault_kind_name(spec->kind)}};
}

Result<json> cmd_clear_fault(Board& b, const json& args) {
  Result<std::string> rail = optional_string(args, "rail");
  if (!rail) return rail.take_error();
  Status cleared = b.fs.clear_faults(*rail);
  if (!cleared) return cleared.take_error();
  return json::object();
}

Result<json> cmd_renumber(Board& b, const json& args) {
  Result<std::optional<std::int64_t>> hwmon = protocol::arg_optional_int(args, "hwmon_offset");
  Result<std::optional<std::int64_t>> iio = protocol::arg_optional_int(args, "iio_offset");
  if (!hwmon) return hwmon.take_error();
  if (!iio) return iio.take_error();
  if (!*hwmon && !*iio) return bad_request("renumber needs \"hwmon_offset\" and/or \"iio_offset\"");
  TreeOptions options = b.fs.numbering();
  for (const auto& [value, target] : {std::pair{*hwmon, &options.hwmon_offset}, std::pair{*iio, &options.iio_offset}}) {
    if (value && (*value < 0 || *value > 10000)) return bad_request("offsets must be 0..10000");
    if (value) *target = static_cast<int>(*value);
  }
  Status renumbered = b.fs.renumber(options);
  if (!renumbered) return renumbered.take_error();
  return json{{"hwmon_offset", options.hwmon_offset}, {"iio_offset", options.iio_offset}};
}

Result<json> cmd_vanish(Board& b, const json& args) {
  Result<std::string> device = protocol::arg_string(args, "device");
  if (!device) return device.take_error();
  Status done = b.fs.vanish(*device);
  if (!done) return done.take_error();
  return json{{"device", *device}};
}

Result<json> cmd_restore(Board& b, const json& args) {
  Result<std::string> device = protocol::arg_string(args, "device");
  if (!device) return device.take_error();
  Status done = b.fs.restore(*device);
  if (!done) return done.take_error();
  return json{{"device", *device}};
}

struct ControlCommand {
  const char* name;
  Result<json> (*run)(Board&, const json&);
};

constexpr ControlCommand kControlCommands[] = {
    {"status", cmd_status},
    {"now", cmd_now},
    {"energy", cmd_energy},
    {"power", cmd_power},
    {"gpu", cmd_gpu},
    {"set_gpu_load", cmd_set_gpu_load},
    {"set_cpu_load", cmd_set_cpu_load},
    {"cpu", cmd_cpu},
    {"emc", cmd_emc},
    {"set_rail", cmd_set_rail},
    {"clear_rail", cmd_clear_rail},
    {"fault", cmd_fault},
    {"clear_fault", cmd_clear_fault},
    {"renumber", cmd_renumber},
    {"vanish", cmd_vanish},
    {"restore", cmd_restore},
};

std::string command_names() {
  std::string out;
  for (const ControlCommand& c : kControlCommands) out += (out.empty() ? "" : ", ") + std::string(c.name);
  return out;
}

Result<json> dispatch(Board& b, const json& request) {
  if (!request.is_object()) return make_error(ErrorCode::kProtocol, "a request must be a JSON object");
  Result<std::string> cmd = protocol::arg_string(request, "cmd");
  if (!cmd) return make_error(ErrorCode::kProtocol, cmd.error().message);
  for (const ControlCommand& c : kControlCommands) {
    if (*cmd == c.name) return c.run(b, request);
  }
  return bad_request("unknown command '" + *cmd + "' (commands: " + command_names() + ")");
}

}  // namespace

json control_error_reply(const Error& error) {
  return {{"ok", false}, {"error", {{"code", error_code_name(error.code)}, {"message", error.describe()}}}};
}

json handle_control(LiveBoard& board, LiveFs& fs, const json& request) {
  Board b{board, fs};
  json reply;
  try {
    Result<json> result = dispatch(b, request);
    if (result) {
      reply = std::move(result).value();
      reply["ok"] = true;
    } else {
      reply = control_error_reply(result.error());
    }
  } catch (const std::exception& e) {  // nlohmann type errors, bad_alloc: never unwind into the server
    reply = control_error_reply(make_error(ErrorCode::kInvalid, std::string("bad request: ") + e.what()));
  }
  if (request.is_object() && request.contains("id")) reply["id"] = request.at("id");
  return reply;
}

}  // namespace energy::sim
