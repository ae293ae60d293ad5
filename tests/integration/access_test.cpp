// S1 and S3 on a live simulated board: every verb x caller class against the
// written policy (docs/SECURITY.md), the socket file's own permissions, the
// per-user connection cap, the deadline for a half-sent frame, a client that
// never reads its replies, and sampling undisturbed throughout.
//
// Clients are forked and switched to numeric uids, gids and supplementary
// groups (setgroups/setgid/setuid), so the test needs root; the daemon is
// configured with numeric group ids, so no /etc/group entries are needed.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <grp.h>

#include "board_fixture.h"
#include "energy/protocol.h"
#include "raw_client.h"

namespace energy::testing {
namespace {

constexpr gid_t kReadGid = 4242;
constexpr gid_t kClockGid = 4343;
constexpr int kCap = 4;

struct Identity {
  const char* name;
  uid_t uid;
  gid_t gid;
  std::vector<gid_t> groups;
};

const Identity kRoot{"root", 0, 0, {}};
const Identity kClock{"clock group", 5001, 5001, {kClockGid}};
const Identity kClockPrimary{"clock group (primary gid)", 5004, kClockGid, {}};
const Identity kRead{"read group", 5002, 5002, {77, kReadGid}};
const Identity kOther{"other user", 5003, 5003, {77}};
const Identity kRead2{"another read-group user", 5005, 5005, {kReadGid}};
const Identity kClock2{"another clock-group user", 5006, 5006, {kClockGid}};

// ---- running code as another user -----------------------------------------

struct ChildOutput {
  pid_t pid = -1;
  std::string text;
};

// Forks; the child drops to `who` and writes body()'s result to a pipe.
ChildOutput run_as(const Identity& who, const std::function<std::string()>& body) {
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) return {-1, "pipe failed"};
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(p[0]);
    std::string out;
    if (::setgroups(who.groups.size(), who.groups.data()) != 0 || ::setgid(who.gid) != 0 || ::setuid(who.uid) != 0) {
      out = std::string("cannot switch user: ") + std::strerror(errno);
    } else {
      out = body();
    }
    if (::write(p[1], out.data(), out.size()) < 0) ::_exit(2);
    ::_exit(0);
  }
  ::close(p[1]);
  ChildOutput r{pid, {}};
  char buf[4096];
  for (;;) {
    pollfd pf{p[0], POLLIN, 0};
    if (::poll(&pf, 1, 60000) <= 0) break;  // a generous bound: the child's own waits are shorter
    ssize_t n = ::read(p[0], buf, sizeof buf);
    if (n <= 0) break;
    r.text.append(buf, static_cast<size_t>(n));
  }
  ::close(p[0]);
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  return r;
}

struct VerbCase {
  const char* verb;
  nlohmann::json args;
  bool clock;  // needs the clock privilege
};

std::vector<VerbCase> all_verbs() {
  return {
      {"status", nlohmann::json::object(), false},
      {"rails", nlohmann::json::object(), false},
      {"clocks", nlohmann::json::object(), false},
      {"export", {{"since_wall_ns", 0}, {"until_wall_ns", 1}}, false},
      {"mark.start", {{"name", "access-matrix"}}, false},
      {"mark.stop", {{"run", "no-such-run"}}, false},
      {"clocks.leases", nlohmann::json::object(), false},
      {"runs.list", nlohmann::json::object(), false},
      {"clocks.pin", {{"domain", "no-such-domain"}}, true},
      {"clocks.unpin", {{"lease", 999999}}, true},
  };
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out(1);
  for (char c : s) {
    if (c == sep)
      out.emplace_back();
    else
      out.back() += c;
  }
  return out;
}

class Access : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root: clients are switched to other uids with setuid";
    BoardSpec spec;
    spec.extra_config = "read_group: \"" + std::to_string(kReadGid) + "\"\nclock_group: \"" +
                        std::to_string(kClockGid) + "\"\nmax_connections_per_user: " + std::to_string(kCap) +
                        "\nclient_deadline_ms: 1000\nclient_output_limit_bytes: 65536\n";
    daemon_ = std::make_unique<SimulatedDaemon>(spec);
    ASSERT_TRUE(daemon_->started()) << daemon_->setup_error();
    ASSERT_EQ(::chmod(daemon_->dir().c_str(), 0755), 0);  // other uids must reach the socket file
    before_ = sampler();
  }

  nlohmann::json sampler() const { return daemon_->ctl_json({"status"})["sampler"]; }

  // The reply to one request sent by `who` on a connection of its own.
  nlohmann::json as(const Identity& who, const std::string& verb, const nlohmann::json& args) {
    std::string sock = daemon_->socket();
    auto r = run_as(who, [&] {
      int fd = connect_to(sock);
      if (fd < 0) return std::string("connect: ") + std::strerror(-fd);
      std::string reply = call(fd, verb, args);
      ::close(fd);
      return reply;
    });
    auto j = nlohmann::json::parse(r.text, nullptr, false);
    EXPECT_TRUE(j.is_object()) << who.name << " " << verb << ": " << r.text;
    return j.is_object() ? j : nlohmann::json::object();
  }

  // The outcome of every verb for `who`, one connection per verb.
  std::vector<std::pair<std::string, pid_t>> outcomes(const Identity& who) {
    std::vector<std::pair<std::string, pid_t>> out;
    std::string sock = daemon_->socket();
    for (const auto& v : all_verbs()) {
      auto r = run_as(who, [&] {
        int fd = connect_to(sock);
        if (fd < 0) return std::string("connect: ") + std::strerror(-fd);
        std::string o = outcome(call(fd, v.verb, v.args));
        ::close(fd);
        return o;
      });
      out.emplace_back(r.text, r.pid);
    }
    return out;
  }

  void expect_matrix_row(const Identity& who, bool clock_ok, bool read_ok) {
    auto got = outcomes(who);
    auto verbs = all_verbs();
    for (size_t i = 0; i < verbs.size(); ++i) {
      bool ok = verbs[i].clock ? clock_ok : read_ok;
      if (ok)
        EXPECT_NE(got[i].first, "denied") << who.name << " x " << verbs[i].verb;
      else
        EXPECT_EQ(got[i].first, "denied") << who.name << " x " << verbs[i].verb;
      EXPECT_EQ(got[i].first.rfind("connect:", 0), std::string::npos) << who.name << " x " << verbs[i].verb;
      if (!ok) {
        std::string line = "refused '" + std::string(verbs[i].verb) + "' from uid " + std::to_string(who.uid) +
                           " pid " + std::to_string(got[i].second);
        EXPECT_NE(daemon_->log().find(line), std::string::npos) << "log lacks: " << line;
      }
    }
  }

  // Sampling kept >= 99.9% of its ticks since SetUp (S3), and kept ticking.
  // Polls (up to 10 s) until a few more ticks have happened.
  void expect_sampling_undisturbed() {
    auto after = sampler();
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (after["ticks"].get<int64_t>() < before_["ticks"].get<int64_t>() + 3 &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      after = sampler();
    }
    int64_t ticks = after["ticks"].get<int64_t>() - before_["ticks"].get<int64_t>();
    int64_t missed = after["missed_ticks"].get<int64_t>() - before_["missed_ticks"].get<int64_t>();
    EXPECT_GE(ticks, 3) << "sampling stopped";
    EXPECT_LE(missed * 1000, ticks + missed) << missed << " missed of " << ticks + missed;
  }

  std::unique_ptr<SimulatedDaemon> daemon_;
  nlohmann::json before_;
};

TEST_F(Access, EveryVerbForEveryCallerClassFollowsThePolicy) {
  expect_matrix_row(kRoot, /*clock_ok=*/true, /*read_ok=*/true);
  expect_matrix_row(kClock, true, true);
  expect_matrix_row(kClockPrimary, true, true);
  expect_matrix_row(kRead, false, true);
  // The socket file is the first gate (0660, read group, clock group by ACL):
  // another user cannot even connect.
  auto r = run_as(kOther, [&] {
    int fd = connect_to(daemon_->socket());
    if (fd >= 0) ::close(fd);
    return fd < 0 ? std::string(std::strerror(-fd)) : std::string("connected");
  });
  EXPECT_EQ(r.text, std::strerror(EACCES));
  // With that gate opened by hand, the daemon's own check refuses every verb.
  ASSERT_EQ(::chmod(daemon_->socket().c_str(), 0666), 0);
  expect_matrix_row(kOther, false, false);
  expect_sampling_undisturbed();
}

TEST_F(Access, SocketFileIsGroupOwnedAndNotWorldAccessible) {
  struct stat st {};
  ASSERT_EQ(::stat(daemon_->socket().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0660u);
  EXPECT_EQ(st.st_gid, kReadGid);
}

TEST_F(Access, ConnectionsPerUserAreCapped) {
  std::string sock = daemon_->socket();
  auto r = run_as(kRead, [&] {
    std::vector<int> held;
    for (int i = 0; i < kCap; ++i) {
      int fd = connect_to(sock);
      if (fd < 0 || outcome(call(fd, "status")) != "ok")
        return std::string("connection ") + std::to_string(i) + " failed";
      held.push_back(fd);
    }
    int extra = connect_to(sock);
    Replies extra_replies(extra);
    std::string refused = extra_replies.next();
    std::string after = extra_replies.next();
    ::close(extra);
    ::close(held.back());
    held.pop_back();
    // The freed slot is usable again (the daemon notices the close on its next loop pass).
    std::string again = "never";
    for (int attempt = 0; attempt < 200 && again != "ok"; ++attempt) {
      int fd = connect_to(sock);
      again = outcome(call(fd, "status"));
      ::close(fd);
      if (again != "ok") std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    for (int fd : held) ::close(fd);
    return outcome(refused) + "|" + after + "|" + again + "|" + refused;
  });
  auto parts = split(r.text, '|');
  ASSERT_EQ(parts.size(), 4u) << r.text;
  EXPECT_EQ(parts[0], "denied") << "the connection over the cap: " << parts[3];
  EXPECT_NE(parts[3].find("max_connections_per_user"), std::string::npos) << parts[3];
  EXPECT_EQ(parts[1], "eof") << "the connection over the cap must be closed";
  EXPECT_EQ(parts[2], "ok") << "a freed slot must be usable again";
  // Another user is not affected by this user's connections.
  EXPECT_EQ(daemon_->ctl({"status"}).exit_code, 0);
  EXPECT_NE(daemon_->log().find("too many connections from uid 5002"), std::string::npos);
  expect_sampling_undisturbed();
}

TEST_F(Access, HalfAFrameIsCutOffAfterTheDeadline) {
  std::string sock = daemon_->socket();
  auto r = run_as(kRead, [&] {
    int fd = connect_to(sock);
    std::string frame = protocol::encode_frame(protocol::make_request(1, "status", nlohmann::json::object()));
    send_all(fd, frame.substr(0, frame.size() / 2));
    auto t0 = std::chrono::steady_clock::now();
    std::string got = read_reply(fd, std::chrono::seconds(30));  // deadline 1 s, checked every 250 ms
    auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0);
    ::close(fd);
    return got + "|" + (took >= std::chrono::milliseconds(900) ? "after-deadline" : "too-early");
  });
  EXPECT_EQ(r.text, "eof|after-deadline");
  EXPECT_NE(daemon_->log().find("sent part of a request frame"), std::string::npos);
  expect_sampling_undisturbed();
}

TEST_F(Access, AClientThatNeverReadsIsCutOffAndOthersAreServed) {
  std::string sock = daemon_->socket();
  auto r = run_as(kRead, [&] {
    int fd = connect_to(sock);
    int small = 4096;
    ::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    std::string frame = protocol::encode_frame(protocol::make_request(1, "rails", nlohmann::json::object()));
    int sent = 0;
    while (sent < 5000 && send_all(fd, frame)) ++sent;     // a rails reply is ~2 KB: far past every buffer
    std::this_thread::sleep_for(std::chrono::seconds(3));  // past the 1 s deadline, checked every 250 ms
    int replies = 0;
    std::string last;
    Replies reader(fd);
    while ((last = reader.next()).front() == '{') ++replies;
    ::close(fd);
    return last + "|" + std::to_string(replies) + "|" + std::to_string(sent);
  });
  auto parts = split(r.text, '|');
  ASSERT_EQ(parts.size(), 3u) << r.text;
  EXPECT_EQ(parts[0], "eof") << r.text;
  EXPECT_LT(std::stoi(parts[1]), std::stoi(parts[2])) << "the daemon never cut the client off: " << r.text;
  std::string log = daemon_->log();
  bool cut = log.find("did not read its replies") != std::string::npos ||
             log.find("client_output_limit_bytes of replies unread") != std::string::npos;
  EXPECT_TRUE(cut) << log.substr(log.size() > 4000 ? log.size() - 4000 : 0);
  EXPECT_EQ(daemon_->ctl({"status"}).exit_code, 0);
  expect_sampling_undisturbed();
}

std::string error_message(const nlohmann::json& reply) {
  return reply.contains("error") ? reply["error"].value("message", std::string()) : reply.dump();
}

// Issue 19, item 12: a run belongs to the uid that started it.
TEST_F(Access, OnlyARunsOwnerOrRootMayStopIt) {
  auto started = as(kRead, "mark.start", {{"name", "owned"}});
  ASSERT_EQ(outcome(started.dump()), "ok") << started.dump();
  EXPECT_EQ(started["result"]["tags"]["energyd.uid"], "5002");
  std::string id = std::to_string(started["result"]["id"].get<int64_t>());
  for (const auto& key : {id, std::string("owned")}) {
    auto refused = as(kRead2, "mark.stop", {{"run", key}});
    EXPECT_EQ(outcome(refused.dump()), "denied") << refused.dump();
    EXPECT_NE(error_message(refused).find("run " + id + " (owned) belongs to uid 5002"), std::string::npos)
        << refused.dump();
  }
  EXPECT_EQ(outcome(as(kRead, "mark.stop", {{"run", id}}).dump()), "ok") << "its owner may";
  auto other = as(kRead, "mark.start", {{"name", "owned-2"}});
  ASSERT_EQ(outcome(other.dump()), "ok") << other.dump();
  EXPECT_EQ(outcome(as(kRoot, "mark.stop", {{"run", "owned-2"}}).dump()), "ok") << "root may";
}

// Issue 19, item 12: a clock lease belongs to the uid that pinned it.
TEST_F(Access, OnlyALeasesOwnerOrRootMayUnpinIt) {
  auto pinned =
      as(kClock, "clocks.pin", {{"domains", {{"gpu", "max"}}}, {"lease", "duration"}, {"duration_ms", 600000}});
  ASSERT_EQ(outcome(pinned.dump()), "ok") << pinned.dump();
  int64_t lease = pinned["result"]["lease"]["id"].get<int64_t>();
  EXPECT_EQ(pinned["result"]["lease"]["owner_uid"], 5001);
  auto refused = as(kClock2, "clocks.unpin", {{"lease", lease}});
  EXPECT_EQ(outcome(refused.dump()), "denied") << refused.dump();
  EXPECT_NE(error_message(refused).find("clock lease " + std::to_string(lease) + " belongs to uid 5001"),
            std::string::npos)
      << refused.dump();
  auto all = as(kClock2, "clocks.unpin", {{"all", true}});
  ASSERT_EQ(outcome(all.dump()), "ok") << all.dump();
  EXPECT_TRUE(all["result"]["released"].empty()) << "\"all\" is the caller's own leases: " << all.dump();
  EXPECT_EQ(as(kRoot, "clocks.leases", nlohmann::json::object())["result"]["leases"].size(), 1u);
  auto by_root = as(kRoot, "clocks.unpin", {{"lease", lease}});
  ASSERT_EQ(outcome(by_root.dump()), "ok") << by_root.dump();
  EXPECT_EQ(by_root["result"]["released"][0]["restored"], true) << by_root.dump();
}

// A run lease belongs to the run's owner; nobody else may pin for the run.
TEST_F(Access, ARunLeaseIsPinnedOnlyForOnesOwnRun) {
  auto run = as(kClock, "mark.start", {{"name", "clocked"}});
  ASSERT_EQ(outcome(run.dump()), "ok") << run.dump();
  nlohmann::json pin = {{"domains", {{"gpu", "max"}}}, {"lease", "run"}, {"run", "clocked"}};
  auto refused = as(kClock2, "clocks.pin", pin);
  EXPECT_EQ(outcome(refused.dump()), "denied") << refused.dump();
  auto by_root = as(kRoot, "clocks.pin", pin);
  ASSERT_EQ(outcome(by_root.dump()), "ok") << by_root.dump();
  EXPECT_EQ(by_root["result"]["lease"]["owner_uid"], 5001) << "the run's owner owns its lease";
  EXPECT_EQ(outcome(as(kClock, "mark.stop", {{"run", "clocked"}}).dump()), "ok");
}

// Issue 15: mark.start with `pin` changes clocks, so it needs the clock
// privilege; a reader is denied and no run is opened.
TEST_F(Access, APinnedMarkStartNeedsTheClockPrivilege) {
  nlohmann::json args = {{"name", "pinned"}, {"pin", {{"domains", {{"gpu", "max"}}}}}};
  auto refused = as(kRead, "mark.start", args);
  EXPECT_EQ(outcome(refused.dump()), "denied") << refused.dump();
  EXPECT_NE(error_message(refused).find("clock privilege"), std::string::npos) << refused.dump();
  EXPECT_TRUE(as(kRoot, "status", nlohmann::json::object())["result"]["open_runs"].empty());
  auto allowed = as(kClock, "mark.start", args);
  ASSERT_EQ(outcome(allowed.dump()), "ok") << allowed.dump();
  EXPECT_EQ(allowed["result"]["clock_pin"]["lease"]["run"], allowed["result"]["id"]) << allowed.dump();
  EXPECT_EQ(allowed["result"]["clock_pin"]["lease"]["owner_uid"], 5001);
  EXPECT_EQ(outcome(as(kClock, "mark.stop", {{"run", "pinned"}}).dump()), "ok");
  EXPECT_TRUE(
      eventually([&] { return as(kRoot, "clocks.leases", nlohmann::json::object())["result"]["leases"].empty(); },
                 std::chrono::milliseconds(5000)));
}

// Issue 19, item 12: reserved tags belong to energyd, and a baseline (which
// every later report uses) needs the clock privilege.
TEST_F(Access, ReservedTagsAndBaselinesAreEnergydsToSet) {
  auto tagged = as(kRead, "mark.start", {{"name", "fake"}, {"tags", {{"energyd.kind", "baseline"}}}});
  EXPECT_EQ(outcome(tagged.dump()), "invalid") << tagged.dump();
  auto forged_owner = as(kRead, "mark.start", {{"name", "fake"}, {"tags", {{"energyd.uid", "0"}}}});
  EXPECT_EQ(outcome(forged_owner.dump()), "invalid") << forged_owner.dump();
  auto baseline = as(kRead, "mark.start", {{"name", "fake"}, {"baseline_run", true}});
  EXPECT_EQ(outcome(baseline.dump()), "denied") << baseline.dump();
  EXPECT_NE(error_message(baseline).find("clock privilege"), std::string::npos) << baseline.dump();
  auto allowed = as(kClock, "mark.start", {{"name", "idle"}, {"baseline_run", true}});
  ASSERT_EQ(outcome(allowed.dump()), "ok") << allowed.dump();
  EXPECT_EQ(allowed["result"]["tags"]["energyd.kind"], "baseline");
  auto stopped = as(kClock, "mark.stop", {{"run", "idle"}, {"baseline_interrupted", true}});
  ASSERT_EQ(outcome(stopped.dump()), "ok") << stopped.dump();
  EXPECT_EQ(stopped["result"]["run"]["tags"]["energyd.kind"], "baseline-interrupted");
}

}  // namespace
}  // namespace energy::testing
