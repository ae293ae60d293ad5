// energyctl pin / unpin: clock pins held as leases (docs/CLOCKS.md), and the
// leases table `energyctl clocks` shows.
//
//   energyctl pin [--cpu F] [--gpu F] [--emc F] [--domain NAME=F]... [--governor G]
//                 [--allow-offline-cpus] (--for DURATION | --run ID|NAME | --hold)
//   energyctl unpin LEASE... | --all
// F is min, max, a frequency with a unit (1.2GHz, 624.75MHz) or LO:HI.
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cstdio>
#include <iostream>

#include "command.h"
#include "duration_arg.h"
#include "pin_args.h"
#include "table.h"

namespace energy::cli {
namespace {

using nlohmann::json;

struct PinCli {
  json args = empty_pin_args();
  bool hold = false;
};

Status set_lease(PinCli& p, const std::string& kind, const std::string& value) {
  if (p.args.contains("lease") || p.hold)
    return make_error(ErrorCode::kInvalid, "choose one lease: --for, --run or --hold");
  if (kind == "hold") {
    p.hold = true;
    p.args["lease"] = "connection";
    return ok_status();
  }
  p.args["lease"] = kind;
  if (kind == "run" && value.empty()) return make_error(ErrorCode::kInvalid, "--run needs a run id or name, got ''");
  if (kind == "run") {
    p.args["run"] = value;
    return ok_status();
  }
  auto ms = parse_duration_ms(value);
  if (!ms) return make_error(ErrorCode::kInvalid, "--for: " + ms.error().message);
  p.args["duration_ms"] = *ms;
  return ok_status();
}

Status parse_option(PinCli& p, const std::string& opt, const std::string& value) {
  if (is_pin_option(opt) || is_pin_flag(opt)) return apply_pin_option(opt, value, p.args);
  if (opt == "--for") return set_lease(p, "duration", value);
  if (opt == "--run") return set_lease(p, "run", value);
  if (opt == "--hold") return set_lease(p, "hold", "");
  return make_error(ErrorCode::kInvalid, "unknown pin option '" + opt + "'");
}

Result<PinCli> parse_pin(const Args& args) {
  PinCli p;
  if (auto st = no_words(args, "pin"); !st) return st.take_error();
  auto applied = for_each_option(
      args, [&](const std::string& flag, const std::string& value) { return parse_option(p, flag, value); });
  if (!applied) return applied.take_error();
  if (!pins_anything(p.args))
    return make_error(ErrorCode::kInvalid, "pin needs a domain: --cpu, --gpu, --emc or --domain");
  if (!p.args.contains("lease")) {
    return make_error(ErrorCode::kInvalid,
                      "pin needs a lease saying when to put the clocks back: --for DURATION, "
                      "--run ID|NAME or --hold");
  }
  return p;
}

std::string lease_owner(const json& lease) {
  std::string kind = lease.value("kind", "");
  if (kind == "run") return "until run " + std::to_string(lease.value("run", 0)) + " stops";
  if (kind == "duration") return "for " + duration_text(lease.value("expires_in_ms", 0) / 1000.0) + " more";
  return "while client connection " + std::to_string(lease.value("connection", 0)) + " stays open";
}

void print_pin(const json& res) {
  const json& lease = member(res, "lease");
  std::cout << "lease " << lease.value("id", 0) << ": pinned " << lease_owner(lease) << "\n";
  Table t({{"DOMAIN"},
           {"REQUESTED MHz", Align::kRight},
           {"ACHIEVED MHz", Align::kRight},
           {"CUR MHz", Align::kRight},
           {"GOVERNOR"}});
  for (const auto& d : member(res, "domains")) {
    const json& q = member(d, "requested");
    const json& a = member(d, "achieved");
    std::string gov = a.value("governor", "");
    if (!q.value("governor", "").empty() && q.value("governor", "") != gov)
      gov += " (asked " + q.value("governor", "") + ")";
    t.add_row({d.value("domain", ""), range_text(member(q, "min_hz"), member(q, "max_hz")),
               range_text(member(a, "min_hz"), member(a, "max_hz")), mhz_text(member(a, "cur_hz")), gov});
  }
  std::cout << t.render();
}

// Exit 1 when a lease could not be restored (its record is kept and retried).
int print_unpin(const Context& ctx, const json& res) {
  int code = kExitOk;
  for (const auto& r : member(res, "released")) {
    if (!r.value("restored", false)) code = kExitFailed;
  }
  if (ctx.json) {
    print_json(res);
    return code;
  }
  for (const auto& r : member(res, "released")) {
    if (r.value("restored", false))
      std::cout << "lease " << r.value("lease", 0) << ": clocks restored\n";
    else
      std::cout << "lease " << r.value("lease", 0) << ": NOT restored: " << safe_text(r, "error")
                << " (energyd retries)\n";
  }
  return code;
}

int report(const Error& e, int exit_code) {
  print_error(e.describe());
  return exit_code;
}

// Waits for Ctrl-C / SIGTERM (then unpins) or for energyd to close the connection.
int hold(const Context& ctx, const json& args) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigprocmask(SIG_BLOCK, &set, nullptr);
  UniqueFd sfd(::signalfd(-1, &set, SFD_CLOEXEC));
  auto client = connect_daemon(ctx);
  if (!client) return report(client.error(), kExitUnreachable);
  auto res = client->call("clocks.pin", args);
  if (!res) return report(res.error(), kExitFailed);
  if (ctx.json)
    print_json(*res);
  else
    print_pin(*res);
  std::cout.flush();
  std::fprintf(stderr, "holding the pin; Ctrl-C restores the clocks\n");
  pollfd p[2] = {{sfd.get(), POLLIN, 0}, {client->native_handle(), POLLIN, 0}};
  while (::poll(p, 2, -1) < 0 && errno == EINTR) {
  }
  if ((p[0].revents & POLLIN) == 0) {
    std::fprintf(stderr, "energyctl: energyd closed the connection; the lease has ended\n");
    return kExitFailed;
  }
  auto done = client->call("clocks.unpin", {{"lease", member(*res, "lease").value("id", 0)}});
  if (!done) return report(done.error(), kExitFailed);
  return print_unpin(ctx, *done);
}

std::string files_changed(const json& lease) {
  std::string out;
  for (const auto& d : member(lease, "domains")) {
    for (const auto& f : member(d, "files")) {
      if (f.value("external_change", false)) out += (out.empty() ? "" : ", ") + f.value("path", "");
    }
  }
  return out.empty() ? "-" : out;
}

}  // namespace

std::string render_leases(const json& res) {
  if (member(res, "leases").empty()) return "no clock leases (nothing pinned)\n";
  Table t({{"LEASE", Align::kRight}, {"STATE"}, {"HELD"}, {"DOMAINS"}, {"CHANGED BY OTHERS"}});
  for (const auto& l : member(res, "leases")) {
    std::string domains;
    for (const auto& d : member(l, "domains")) {
      domains += (domains.empty() ? "" : " ") + d.value("domain", "") + "=" +
                 range_text(member(d, "requested_min_hz"), member(d, "requested_max_hz"));
    }
    t.add_row({std::to_string(l.value("id", 0)), l.value("state", ""), lease_owner(l), domains, files_changed(l)});
  }
  return t.render();
}

int cmd_pin(const Context& ctx, const Args& args) {
  auto p = parse_pin(args);
  if (!p) return usage_error(ctx, p.error().message);
  if (p->hold) return hold(ctx, p->args);
  auto out = call_daemon(ctx, "clocks.pin", p->args);
  if (out.exit_code != kExitOk) return out.exit_code;
  if (ctx.json)
    print_json(out.result);
  else
    print_pin(out.result);
  return kExitOk;
}

namespace {

// The clocks.unpin arguments: {"all": true} or {"leases": [ids]}.
Result<json> unpin_request(const Args& args) {
  bool all = !args.options.empty();  // --all, the only option
  if (all && !args.words.empty()) return make_error(ErrorCode::kInvalid, "unpin takes lease ids or --all, not both");
  if (all) return json{{"all", true}};
  if (args.words.empty())
    return make_error(ErrorCode::kInvalid, "unpin needs lease ids or --all (energyctl clocks lists the leases)");
  json ids = json::array();
  for (const auto& a : args.words) {
    if (a.empty() || a.find_first_not_of("0123456789") != std::string::npos || a.size() > 18)
      return make_error(ErrorCode::kInvalid, "'" + a + "' is not a lease id");
    ids.push_back(std::stoll(a));
  }
  return json{{"leases", ids}};
}

}  // namespace

int cmd_unpin(const Context& ctx, const Args& args) {
  auto req = unpin_request(args);
  if (!req) return usage_error(ctx, req.error().message);
  auto out = call_daemon(ctx, "clocks.unpin", *req);
  if (out.exit_code != kExitOk) return out.exit_code;
  return print_unpin(ctx, out.result);
}

}  // namespace energy::cli
