// Client and ScopedRun against an in-process fake energyd: a thread serving
// a temporary Unix socket with scripted replies (no daemon, no processes).
#include "energy/client.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <functional>
#include <future>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "energy/protocol.h"
#include "energy/scoped_run.h"

namespace energy {
namespace {

using Handler = std::function<nlohmann::json(const protocol::Request&)>;

// Serves one connection at a time; each request gets handler(request) as its
// whole reply frame (so tests can send malformed replies too).
class FakeDaemon {
 public:
  explicit FakeDaemon(Handler handler) : handler_(std::move(handler)) {
    char tmpl[] = "/tmp/energy-client-XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir_ = tmpl;
    listen_ = UniqueFd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path().c_str(), sizeof addr.sun_path - 1);
    if (::bind(listen_.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(listen_.get(), 4) != 0) {
      throw std::runtime_error("cannot listen on " + path());
    }
    int p[2];
    if (::pipe2(p, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
    stop_read_ = UniqueFd(p[0]);
    stop_write_ = UniqueFd(p[1]);
    thread_ = std::thread([this] { serve(); });
  }
  ~FakeDaemon() {
    (void)!::write(stop_write_.get(), "x", 1);
    thread_.join();
    std::filesystem::remove_all(dir_);
  }
  std::string path() const { return dir_ + "/energyd.sock"; }
  std::vector<protocol::Request> requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }

 private:
  // Waits for `fd` to be readable; false when the test is over.
  bool wait_readable(int fd) {
    pollfd p[2] = {{fd, POLLIN, 0}, {stop_read_.get(), POLLIN, 0}};
    while (::poll(p, 2, -1) < 0) {
    }
    return (p[1].revents & POLLIN) == 0;
  }
  void serve() {
    while (wait_readable(listen_.get())) {
      UniqueFd conn(::accept4(listen_.get(), nullptr, nullptr, SOCK_CLOEXEC));
      if (conn) serve_connection(conn.get());
    }
  }
  void serve_connection(int fd) {
    protocol::FrameDecoder decoder(protocol::kMaxRequestBytes);
    char buf[4096];
    while (wait_readable(fd)) {
      ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) return;
      decoder.feed(buf, static_cast<size_t>(n));
      for (auto msg = decoder.next(); msg.ok() && msg->has_value(); msg = decoder.next()) {
        auto req = protocol::parse_request(**msg);
        if (!req) return;
        {
          std::lock_guard<std::mutex> lock(mu_);
          requests_.push_back(*req);
        }
        std::string out = protocol::encode_frame(handler_(*req));
        if (::send(fd, out.data(), out.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(out.size())) return;
      }
    }
  }

  Handler handler_;
  std::string dir_;
  UniqueFd listen_, stop_read_, stop_write_;
  std::mutex mu_;
  std::vector<protocol::Request> requests_;
  std::thread thread_;
};

nlohmann::json run_json(int64_t id, const std::string& name) {
  return {{"id", id},         {"name", name},         {"state", "open"}, {"tags", {{"batch", "8"}}},
          {"start_ns", 1000}, {"start_wall_ns", 2000}};
}

nlohmann::json report_json(int64_t id) {
  return {{"run", {{"id", id}, {"state", "stopped"}}}, {"duration_s", 1.5}, {"total", {{"energy_j", 7.5}}}};
}

// A daemon with one run (id 3) to open and close; other runs are unknown.
nlohmann::json one_run_daemon(const protocol::Request& req) {
  if (req.verb == "mark.start") return protocol::make_ok(req.id, run_json(3, req.args["name"]));
  if (req.verb == "mark.stop" && req.args["run"] == "3") return protocol::make_ok(req.id, report_json(3));
  if (req.verb == "mark.stop") {
    return protocol::make_error_reply(
        req.id,
        make_error(ErrorCode::kNotFound, "no open run named or numbered '" + req.args["run"].get<std::string>() + "'"));
  }
  return protocol::make_ok(req.id, {{"version", "test"}});
}

Client connect_to_path(const std::string& path) {
  auto c = Client::connect(path);
  if (!c) throw std::runtime_error(c.error().describe());
  return std::move(c).value();
}

Client connect_to(const FakeDaemon& d) { return connect_to_path(d.path()); }

// A temporary directory holding a listening Unix socket that nothing accepts
// on unless a test does.
class TempListener {
 public:
  explicit TempListener(int backlog) {
    char tmpl[] = "/tmp/energy-client-XXXXXX";
    if (::mkdtemp(tmpl) == nullptr) throw std::runtime_error("mkdtemp failed");
    dir_ = tmpl;
    fd_ = UniqueFd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_un addr = address();
    if (::bind(fd_.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd_.get(), backlog) != 0) {
      throw std::runtime_error("cannot listen on " + path());
    }
  }
  ~TempListener() { std::filesystem::remove_all(dir_); }
  std::string path() const { return dir_ + "/energyd.sock"; }
  sockaddr_un address() const {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path().c_str(), sizeof addr.sun_path - 1);
    return addr;
  }
  int fd() const { return fd_.get(); }
  void close() { fd_.reset(); }

 private:
  std::string dir_;
  UniqueFd fd_;
};

// Serves the first connection to a TempListener with `serve(fd)` on a
// thread. The test must connect once.
class OneConnectionServer {
 public:
  explicit OneConnectionServer(std::function<void(int fd)> serve) : listener_(4) {
    thread_ = std::thread([this, serve = std::move(serve)] {
      UniqueFd conn(::accept4(listener_.fd(), nullptr, nullptr, SOCK_CLOEXEC));
      if (conn) serve(conn.get());
    });
  }
  ~OneConnectionServer() { thread_.join(); }
  std::string path() const { return listener_.path(); }

 private:
  TempListener listener_;
  std::thread thread_;
};

void send_frame(int fd, const nlohmann::json& message) {
  std::string out = protocol::encode_frame(message);
  (void)!::send(fd, out.data(), out.size(), MSG_NOSIGNAL);
}

// Reads one request frame from `fd`; its id, or 0 when the stream ended.
int64_t read_request_id(int fd) {
  protocol::FrameDecoder decoder(protocol::kMaxRequestBytes);
  char buf[4096];
  for (;;) {
    auto msg = decoder.next();
    if (!msg) return 0;
    if (msg->has_value()) return protocol::request_id_or_zero(**msg);
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return 0;
    decoder.feed(buf, static_cast<size_t>(n));
  }
}

// Waits (at most 5 s) until `fd` shows `events`; true when it did.
bool wait_for(int fd, short events) {
  pollfd p{fd, events, 0};
  return ::poll(&p, 1, 5000) == 1 && (p.revents & events) != 0;
}

Error refused_connection() { return make_error(ErrorCode::kDenied, "too many connections from uid 1000"); }

Client connect_with(const std::string& path, ClientTimeouts timeouts) {
  auto c = Client::connect(path, timeouts);
  if (!c) throw std::runtime_error(c.error().describe());
  return std::move(c).value();
}

ClientTimeouts short_reply(std::chrono::milliseconds reply) {
  ClientTimeouts t;
  t.reply = reply;
  return t;
}

TEST(Client, MarkStartSendsNameAndTagsAndReturnsTheRun) {
  FakeDaemon d(one_run_daemon);
  Client c = connect_to(d);
  auto run = c.mark_start("resnet50", {{"batch", "8"}});
  ASSERT_TRUE(run.ok()) << run.error().describe();
  EXPECT_EQ(run->id, 3);
  EXPECT_EQ(run->name, "resnet50");
  EXPECT_EQ(run->tags.at("batch"), "8");
  EXPECT_EQ(run->start_ns, 1000);
  EXPECT_EQ(run->start_wall_ns, 2000);
  auto reqs = d.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].verb, "mark.start");
  EXPECT_EQ(reqs[0].args["tags"], nlohmann::json({{"batch", "8"}}));
}

TEST(Client, MarkStopByIdSendsTheIdAsADecimalStringAndReturnsTheReport) {
  FakeDaemon d(one_run_daemon);
  Client c = connect_to(d);
  auto report = c.mark_stop(int64_t{3});
  ASSERT_TRUE(report.ok()) << report.error().describe();
  EXPECT_DOUBLE_EQ((*report)["total"]["energy_j"].get<double>(), 7.5);
  EXPECT_EQ(d.requests().at(0).args["run"], "3");
}

TEST(Client, DaemonErrorsKeepTheirCodeAndMessage) {
  FakeDaemon d(one_run_daemon);
  Client c = connect_to(d);
  auto r = c.mark_stop("nope");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(r.error().message, "no open run named or numbered 'nope'");
}

TEST(Client, MarkStartReplyWithoutAnIdIsAProtocolError) {
  FakeDaemon d([](const protocol::Request& req) { return protocol::make_ok(req.id, {{"name", "x"}}); });
  Client c = connect_to(d);
  auto r = c.mark_start("x");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kProtocol);
  EXPECT_NE(r.error().message.find("mark.start"), std::string::npos) << r.error().message;
}

TEST(Client, MalformedErrorReplyIsAProtocolErrorNotAnException) {
  FakeDaemon d([](const protocol::Request& req) {
    return nlohmann::json{{"v", 1}, {"id", req.id}, {"ok", false}, {"error", "not an object"}};
  });
  Client c = connect_to(d);
  auto r = c.status();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kProtocol);
}

TEST(Client, OversizedRequestIsRefusedBeforeSending) {
  FakeDaemon d(one_run_daemon);
  Client c = connect_to(d);
  auto r = c.mark_start("big", {{"blob", std::string(protocol::kMaxRequestBytes, 'x')}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kInvalid);
  EXPECT_NE(r.error().message.find("exceeds"), std::string::npos);
  EXPECT_TRUE(d.requests().empty());
}

// energyd refuses a connection with one id-0 error frame, then closes it.
TEST(Client, RefusedConnectionShowsTheDaemonsCodeAndMessage) {
  OneConnectionServer server([](int fd) { send_frame(fd, protocol::make_error_reply(0, refused_connection())); });
  Client c = connect_to_path(server.path());
  auto r = c.status();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kDenied) << r.error().describe();
  EXPECT_NE(r.error().message.find("too many connections from uid 1000"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find(server.path()), std::string::npos) << r.error().message;
}

// The daemon has closed before the request is written: the send fails with
// EPIPE, and the refusal still waiting in the socket is what is reported.
TEST(Client, RefusalIsReadEvenWhenTheSendFailsWithBrokenPipe) {
  OneConnectionServer server([](int fd) { send_frame(fd, protocol::make_error_reply(0, refused_connection())); });
  Client c = connect_to_path(server.path());
  ASSERT_TRUE(wait_for(c.native_handle(), POLLHUP));
  auto r = c.status();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kDenied) << r.error().describe();
  EXPECT_NE(r.error().message.find("too many connections"), std::string::npos) << r.error().message;
}

// A request whose envelope energyd refuses is answered with id 0.
TEST(Client, IdZeroErrorReplyToARequestIsTheDaemonsWord) {
  OneConnectionServer server([](int fd) {
    if (read_request_id(fd) == 0) return;
    send_frame(fd, protocol::make_error_reply(0, make_error(ErrorCode::kProtocol, "the request has no integer id")));
    read_request_id(fd);  // until the client closes
  });
  Client c = connect_to_path(server.path());
  auto r = c.status();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kProtocol);
  EXPECT_NE(r.error().message.find("the request has no integer id"), std::string::npos) << r.error().message;
}

TEST(Client, ReplyThatNeverComesTimesOutNamingSocketAndWait) {
  OneConnectionServer server([](int fd) {
    while (read_request_id(fd) != 0) {
    }
  });
  Client c = connect_with(server.path(), short_reply(std::chrono::milliseconds(100)));
  auto r = c.status();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kTimeout);
  EXPECT_NE(r.error().message.find(server.path()), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("100 ms"), std::string::npos) << r.error().message;
}

// The reply wait bounds the whole reply, not each silence between bytes: a
// daemon trickling a reply over 2 s does not hold a 200 ms call.
TEST(Client, ReplyTimeoutBoundsTheWholeReplyNotEachRead) {
  OneConnectionServer server([](int fd) {
    int64_t id = read_request_id(fd);
    std::string frame = protocol::encode_frame(protocol::make_ok(id, {{"pad", std::string(100, 'x')}}));
    for (char byte : frame) {
      if (::send(fd, &byte, 1, MSG_NOSIGNAL) != 1) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  });
  Client c = connect_with(server.path(), short_reply(std::chrono::milliseconds(200)));
  auto r = c.status();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kTimeout) << r.error().describe();
}

// After a timed-out call, its late reply is skipped, not taken as the next one's.
TEST(Client, LateReplyToATimedOutRequestIsSkipped) {
  OneConnectionServer server([](int fd) {
    int64_t first = read_request_id(fd);
    int64_t second = read_request_id(fd);  // sent once the first timed out
    send_frame(fd, protocol::make_ok(first, {{"which", "first"}}));
    send_frame(fd, protocol::make_ok(second, {{"which", "second"}}));
    read_request_id(fd);
  });
  Client c = connect_with(server.path(), short_reply(std::chrono::milliseconds(300)));
  auto first = c.status();
  ASSERT_FALSE(first.ok());
  ASSERT_EQ(first.error().code, ErrorCode::kTimeout);
  auto second = c.call("status", nlohmann::json::object());
  ASSERT_TRUE(second.ok()) << second.error().describe();
  EXPECT_EQ((*second)["which"], "second");
}

// connect() on a Unix socket blocks while the listen backlog is full (energyd
// overloaded or out of descriptors); the connect timeout bounds it.
TEST(Client, ConnectTimesOutWhenTheListenBacklogIsFull) {
  TempListener listener(0);
  std::vector<UniqueFd> queued;
  for (int i = 0; i < 16; ++i) {  // fill the backlog; nothing accepts
    UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    sockaddr_un addr = listener.address();
    if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) break;
    queued.push_back(std::move(fd));
  }
  ClientTimeouts t;
  t.connect = std::chrono::milliseconds(100);
  auto pending = std::async(std::launch::async, [&] { return Client::connect(listener.path(), t); });
  if (pending.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
    listener.close();  // wakes the blocked connect so that the test ends
    FAIL() << "connect still blocked after 5 s";
  }
  auto c = pending.get();
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, ErrorCode::kTimeout) << c.error().describe();
  EXPECT_NE(c.error().message.find(listener.path()), std::string::npos) << c.error().message;
  EXPECT_NE(c.error().message.find("100 ms"), std::string::npos) << c.error().message;
}

TEST(ScopedRun, DestructorStopsTheRunAndHandsOverTheReport) {
  FakeDaemon d(one_run_daemon);
  Client c = connect_to(d);
  std::optional<double> energy;
  {
    auto run = ScopedRun::start(c, "w", {}, [&](const Result<nlohmann::json>& r) {
      if (r) energy = (*r)["total"]["energy_j"].get<double>();
    });
    ASSERT_TRUE(run.ok()) << run.error().describe();
    EXPECT_EQ(run->info().id, 3);
  }
  ASSERT_TRUE(energy.has_value());
  EXPECT_DOUBLE_EQ(*energy, 7.5);
  auto reqs = d.requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[1].verb, "mark.stop");
  EXPECT_EQ(reqs[1].args["run"], "3");
}

TEST(ScopedRun, StopsTheRunWhenAnExceptionUnwinds) {
  FakeDaemon d(one_run_daemon);
  Client c = connect_to(d);
  try {
    auto run = ScopedRun::start(c, "w");
    ASSERT_TRUE(run.ok());
    throw std::runtime_error("workload failed");
  } catch (const std::runtime_error&) {
  }
  auto reqs = d.requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[1].verb, "mark.stop");
}

TEST(ScopedRun, ExplicitStopClosesOnceAndRepeatsItsOutcome) {
  FakeDaemon d(one_run_daemon);
  Client c = connect_to(d);
  {
    auto run = ScopedRun::start(c, "w");
    ASSERT_TRUE(run.ok());
    EXPECT_FALSE(run->stopped());
    ASSERT_TRUE(run->stop().ok());
    EXPECT_TRUE(run->stopped());
    EXPECT_DOUBLE_EQ(run->stop().value()["duration_s"].get<double>(), 1.5);
  }
  EXPECT_EQ(d.requests().size(), 2u);
}

TEST(ScopedRun, FailedImplicitStopReachesTheCallbackAndDoesNotThrow) {
  FakeDaemon d([](const protocol::Request& req) {
    if (req.verb == "mark.start") return protocol::make_ok(req.id, run_json(9, "w"));
    return protocol::make_error_reply(req.id, make_error(ErrorCode::kStorage, "database is locked"));
  });
  Client c = connect_to(d);
  std::optional<Error> seen;
  {
    auto run = ScopedRun::start(c, "w", {}, [&](const Result<nlohmann::json>& r) {
      if (!r) seen = r.error();
      throw std::runtime_error("a callback that throws must not escape the destructor");
    });
    ASSERT_TRUE(run.ok());
  }
  ASSERT_TRUE(seen.has_value());
  EXPECT_EQ(seen->code, ErrorCode::kStorage);
  EXPECT_EQ(seen->message, "database is locked");
}

TEST(ScopedRun, MovedRunIsStoppedOnceByItsNewOwner) {
  FakeDaemon d(one_run_daemon);
  Client c = connect_to(d);
  {
    auto run = ScopedRun::start(c, "w");
    ASSERT_TRUE(run.ok());
    ScopedRun owner(std::move(run).value());
    EXPECT_EQ(owner.info().id, 3);
  }
  EXPECT_EQ(d.requests().size(), 2u);
}

TEST(ScopedRun, StartErrorIsReturnedAndNothingIsStopped) {
  FakeDaemon d([](const protocol::Request& req) {
    return protocol::make_error_reply(req.id, make_error(ErrorCode::kInvalid, "run name must be 1-200 characters"));
  });
  Client c = connect_to(d);
  auto run = ScopedRun::start(c, "");
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error().code, ErrorCode::kInvalid);
  EXPECT_EQ(d.requests().size(), 1u);
}

}  // namespace
}  // namespace energy
