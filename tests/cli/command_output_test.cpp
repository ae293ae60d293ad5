// energyctl commands against an in-process fake energyd: what they print
// (stdout and stderr captured) for hostile strings and for refusals.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "command.h"
#include "energy/protocol.h"

namespace energy::cli {
namespace {

using Reply = std::function<std::string(const protocol::Request&)>;  // the raw frame to send

// Serves one connection on a temporary socket: each request gets reply(request).
class FakeEnergyd {
 public:
  explicit FakeEnergyd(Reply reply) {
    char tmpl[] = "/tmp/energyctl-test-XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir_ = tmpl;
    listen_ = UniqueFd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path().c_str(), sizeof addr.sun_path - 1);
    if (::bind(listen_.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listen_.get(), 4) != 0)
      throw std::runtime_error("cannot listen on " + path());
    thread_ = std::thread([this, reply = std::move(reply)] { serve(reply); });
  }
  ~FakeEnergyd() {
    thread_.join();
    std::filesystem::remove_all(dir_);
  }
  std::string path() const { return dir_ + "/energyd.sock"; }

 private:
  void serve(const Reply& reply) {
    UniqueFd conn(::accept4(listen_.get(), nullptr, nullptr, SOCK_CLOEXEC));
    protocol::FrameDecoder decoder(protocol::kMaxRequestBytes);
    char buf[4096];
    for (ssize_t n; conn && (n = ::recv(conn.get(), buf, sizeof buf, 0)) > 0;) {
      decoder.feed(buf, static_cast<size_t>(n));
      for (auto msg = decoder.next(); msg.ok() && msg->has_value(); msg = decoder.next()) {
        auto req = protocol::parse_request(**msg);
        if (!req) return;
        std::string out = reply(*req);
        (void)!::send(conn.get(), out.data(), out.size(), MSG_NOSIGNAL);
      }
    }
  }

  std::string dir_;
  UniqueFd listen_;
  std::thread thread_;
};

struct Printed {
  int exit_code = 0;
  std::string out, err;
};

// Runs `command` with stdout and stderr captured.
Printed capture(const std::function<int()>& command) {
  std::ostringstream out;
  auto* old_out = std::cout.rdbuf(out.rdbuf());
  std::fflush(stderr);
  FILE* tmp = std::tmpfile();
  int saved = ::dup(STDERR_FILENO);
  ::dup2(::fileno(tmp), STDERR_FILENO);
  Printed p;
  p.exit_code = command();
  std::fflush(stderr);
  ::dup2(saved, STDERR_FILENO);
  ::close(saved);
  std::cout.rdbuf(old_out);
  p.out = out.str();
  std::rewind(tmp);
  for (int c; (c = std::fgetc(tmp)) != EOF;) p.err += static_cast<char>(c);
  std::fclose(tmp);
  return p;
}

Context context_for(const FakeEnergyd& d) { return Context{d.path(), false, ClientTimeouts{}, ""}; }

const std::string kHostileText =
    "x\x1b]0;owned\x07\x1b[2J\r\xc2\x9b"
    "1m";

bool has_raw_controls(const std::string& text) {
  for (size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\n') || c == 0x7f) return true;
    if (c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) < 0xa0) return true;
  }
  return false;
}

std::string ok_frame(const protocol::Request& req, nlohmann::json result) {
  return protocol::encode_frame(protocol::make_ok(req.id, std::move(result)));
}

nlohmann::json hostile_status() {
  nlohmann::json rail = {
      {"label", kHostileText}, {"driver", kHostileText}, {"device", kHostileText}, {"channel", 1}, {"errno", 5},
      {"error", kHostileText}};
  return {{"version", kHostileText},
          {"board", {{"model", kHostileText}, {"l4t_release", kHostileText}}},
          {"root", kHostileText},
          {"rails", {rail}},
          {"total", {{"rails", {kHostileText}}, {"rule", kHostileText}}},
          {"monitors", {{{"device", kHostileText}, {"driver", kHostileText}, {"error", kHostileText}}}},
          {"sensor_averaging", kHostileText},
          {"sampler", nlohmann::json::object()},
          {"storage", {{"healthy", false}, {"last_error", kHostileText}, {"database", kHostileText}}},
          {"skipped_channels", {{{"device", kHostileText}, {"label", kHostileText}, {"reason", kHostileText}}}},
          {"notes", {kHostileText}},
          {"open_runs", {{{"id", 1}, {"name", kHostileText}}}}};
}

TEST(CommandOutput, StatusPrintsDaemonStringsOnlyAsEscapes) {
  FakeEnergyd d([](const protocol::Request& req) { return ok_frame(req, hostile_status()); });
  auto p = capture([&] { return cmd_status(context_for(d), {}); });
  EXPECT_EQ(p.exit_code, kExitOk) << p.err;
  EXPECT_FALSE(has_raw_controls(p.out)) << p.out;
  EXPECT_NE(p.out.find("x\\x1b]0;owned\\x07\\x1b[2J\\r\\u009b1m"), std::string::npos) << p.out;
}

TEST(CommandOutput, RailsPrintsDaemonStringsOnlyAsEscapes) {
  FakeEnergyd d([](const protocol::Request& req) { return ok_frame(req, hostile_status()); });
  auto p = capture([&] { return cmd_rails(context_for(d), {}); });
  EXPECT_EQ(p.exit_code, kExitOk) << p.err;
  EXPECT_FALSE(has_raw_controls(p.out)) << p.out;
}

TEST(CommandOutput, DaemonErrorMessagesReachStderrOnlyAsEscapes) {
  FakeEnergyd d([](const protocol::Request& req) {
    return protocol::encode_frame(protocol::make_error_reply(
        req.id, make_error(ErrorCode::kNotFound, "no open run named '" + kHostileText + "'")));
  });
  auto p = capture([&] { return cmd_mark(context_for(d), Args{{}, {"stop", "x"}, false, false}); });
  EXPECT_EQ(p.exit_code, kExitFailed);
  EXPECT_FALSE(has_raw_controls(p.err)) << p.err;
  EXPECT_NE(p.err.find("no open run named 'x\\x1b]0;"), std::string::npos) << p.err;
}

// energyd refuses a connection with one id-0 error frame and closes it.
TEST(CommandOutput, RefusedConnectionShowsTheDaemonsReason) {
  FakeEnergyd d([](const protocol::Request&) {
    return protocol::encode_frame(protocol::make_error_reply(
        0, make_error(ErrorCode::kDenied, "too many connections from uid 1000 (max_connections_per_user is 32)")));
  });
  auto p = capture([&] { return cmd_status(context_for(d), {}); });
  EXPECT_EQ(p.exit_code, kExitFailed);
  EXPECT_NE(p.err.find("refused the connection"), std::string::npos) << p.err;
  EXPECT_NE(p.err.find("denied: too many connections from uid 1000"), std::string::npos) << p.err;
  EXPECT_EQ(p.err.find("does not answer request"), std::string::npos) << p.err;
}

}  // namespace
}  // namespace energy::cli
