#include "options.h"

#include "energy/client.h"

namespace energy::exporter {

namespace {

constexpr int64_t kMaxTimeoutMs = 60000;

Result<std::chrono::milliseconds> parse_timeout(const std::string& v) {
  bool digits = !v.empty() && v.size() <= 6 && v.find_first_not_of("0123456789") == std::string::npos;
  int64_t ms = digits ? std::stoll(v) : 0;
  if (ms < 1 || ms > kMaxTimeoutMs) {
    return make_error(ErrorCode::kInvalid, "--timeout-ms must be an integer 1-60000, got \"" + v + "\"");
  }
  return std::chrono::milliseconds(ms);
}

// Applies one option that takes a value.
Status apply(Options& o, const std::string& name, const std::string& value) {
  if (name == "--socket") {
    if (value.empty()) return make_error(ErrorCode::kInvalid, "--socket must be a path, got \"\"");
    o.socket_path = value;
    return ok_status();
  }
  if (name == "--listen") {
    auto l = parse_listen_address(value);
    if (!l) return l.take_error();
    o.listen = *l;
    return ok_status();
  }
  auto t = parse_timeout(value);
  if (!t) return t.take_error();
  o.timeout = *t;
  return ok_status();
}

}  // namespace

Result<Options> parse_options(const std::vector<std::string>& args) {
  Options o;
  o.socket_path = default_socket_path();
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h")
      o.help = true;
    else if (a == "--version")
      o.version = true;
    else if (a == "--socket" || a == "--listen" || a == "--timeout-ms") {
      if (i + 1 == args.size()) return make_error(ErrorCode::kInvalid, a + " needs a value");
      if (auto st = apply(o, a, args[++i]); !st) return st.take_error();
    } else {
      return make_error(ErrorCode::kInvalid, "unknown argument \"" + a + "\"; see --help");
    }
  }
  return o;
}

std::string usage() {
  return "usage: energyd-exporter [--listen ADDR:PORT] [--socket PATH] [--timeout-ms N]\n"
         "Serves energyd's readings and joule counters at http://ADDR:PORT/metrics for Prometheus.\n"
         "  --listen ADDR:PORT  default 127.0.0.1:9862 ([::1]:PORT for IPv6, :PORT for every IPv4 address)\n"
         "  --socket PATH       energyd's socket (default $ENERGYD_SOCKET or /run/energyd/energyd.sock)\n"
         "  --timeout-ms N      bound on each wait for energyd, 1-60000 (default 2000)\n";
}

}  // namespace energy::exporter
