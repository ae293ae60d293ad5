// `energyd-sim ctl`: one command to a running simulator, the reply printed
// as one line of JSON (for jq and shell scripts).
#include "cli_internal.h"
#include "control_client.h"

namespace energy::sim {
namespace {

constexpr const char* kCtlHelp =
    "Usage: energyd-sim ctl --control SOCKET COMMAND [KEY=VALUE]...\n\n"
    "Sends {\"cmd\": COMMAND, KEY: VALUE, ...} to a running `energyd-sim run` and prints the\n"
    "reply as one line of JSON. VALUE is sent as an integer when it is one, as true / false\n"
    "/ null for those words, else as a string. Exit code 0 when the reply is ok, 1 when the\n"
    "simulator refused the command (the reply names why), 2 for a bad argument.\n\n"
    "Commands (all times are CLOCK_BOOTTIME ns; rails by label or rail id):\n"
    "  status                                   board, rails with true power, GPUs, CPUs, faults\n"
    "  now                                      the simulator's clock\n"
    "  energy rail=R from_ns=T0 to_ns=T1        exact true energy in uJ (rail=total: the board total)\n"
    "  power rail=R [t_ns=T]                    true power in mW at T (default now)\n"
    "  gpu [gpu=NAME]                           a GPU's limits, governor, effective frequency, load\n"
    "  set_gpu_load permille=N [gpu=NAME]       GPU load 0..1000 (first GPU by default)\n"
    "  set_cpu_load [permille=N]                pin the CPU load; without permille follow the host\n"
    "  set_rail rail=R mv=V ma=I                hold a rail constant (no ripple)\n"
    "  clear_rail [rail=R]                      release one override, or all\n"
    "  fault rail=R kind=K [count=N] [ms=M]     K: eio etimedout enodata eagain block vanish\n"
    "  clear_fault [rail=R]                     clear one rail's fault, or all\n"
    "  renumber [hwmon_offset=N] [iio_offset=N] move the hwmon / iio devices to new numbers\n"
    "  vanish device=BUS-ADDR                   unbind an i2c monitor (e.g. 1-0040)\n"
    "  restore device=BUS-ADDR                  bind it again\n"
    "Example: energyd-sim ctl --control /tmp/b.ctl fault rail=VDD_IN kind=eio count=3\n";

nlohmann::json value_of(const std::string& text) {
  if (text == "true") return true;
  if (text == "false") return false;
  if (text == "null") return nullptr;
  Result<std::int64_t> number = parse_integer(text, "value");
  if (number) return *number;
  return text;
}

struct CtlRequest {
  std::string control;
  nlohmann::json request = nlohmann::json::object();
};

Status add_pair(nlohmann::json& request, const std::string& pair) {
  const std::size_t eq = pair.find('=');
  if (eq == 0 || eq == std::string::npos) {
    return make_error(ErrorCode::kInvalid, "argument '" + pair + "' is not KEY=VALUE");
  }
  request[pair.substr(0, eq)] = value_of(pair.substr(eq + 1));
  return ok_status();
}

Result<CtlRequest> parse_ctl(const std::vector<std::string>& args) {
  CtlRequest out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--control" && i + 1 < args.size()) {
      out.control = args[++i];
    } else if (arg.rfind("--control=", 0) == 0) {
      out.control = arg.substr(10);
    } else if (arg.rfind("--", 0) == 0) {
      return make_error(ErrorCode::kInvalid, "unknown option '" + arg + "'");
    } else if (!out.request.contains("cmd")) {
      out.request["cmd"] = arg;
    } else if (Status added = add_pair(out.request, arg); !added) {
      return added.take_error();
    }
  }
  if (out.control.empty()) return make_error(ErrorCode::kInvalid, "option '--control' is required");
  if (!out.request.contains("cmd")) return make_error(ErrorCode::kInvalid, "no COMMAND given");
  return out;
}

}  // namespace

int run_ctl(const CliContext& cli, const std::vector<std::string>& args) {
  if (wants_help(args)) {
    cli.out << kCtlHelp;
    return kExitOk;
  }
  Result<CtlRequest> request = parse_ctl(args);
  if (!request) return cli.usage_error("ctl", request.error());
  Result<ControlClient> client = ControlClient::connect(request->control);
  if (!client) return cli.failure("ctl", client.error());
  Result<nlohmann::json> reply = client->exchange(request->request, std::chrono::seconds(30));
  if (!reply) return cli.failure("ctl", reply.error());
  cli.out << reply->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  const auto ok = reply->find("ok");
  return ok != reply->end() && ok->is_boolean() && ok->get<bool>() ? kExitOk : kExitFailure;
}

}  // namespace energy::sim
