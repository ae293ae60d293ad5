// Issue 19 ("Hostile input and faults") on a live simulated board: the frames
// that crashed energyd -- a non-integer id, wrong argument types, arguments
// nested 10,000 deep -- are each answered with an error, and the daemon still
// serves `status` afterwards.
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "board_fixture.h"
#include "raw_client.h"

namespace energy::testing {
namespace {

struct HostileFrame {
  std::string name;
  std::string payload;
  std::string code;   // the error code expected
  std::string words;  // in the error message
};

std::string nested_args(size_t depth) {
  return R"({"v":1,"id":9,"verb":"status","args":{"a":)" + std::string(depth, '[') + std::string(depth, ']') + "}}";
}

std::vector<HostileFrame> hostile_frames() {
  return {
      {"string id", R"({"v":1,"id":"x","verb":"status"})", "protocol", "integer field \"id\""},
      {"null id", R"({"v":1,"id":null,"verb":"status"})", "protocol", "integer field \"id\""},
      {"boolean id", R"({"v":1,"id":true,"verb":"status"})", "protocol", "integer field \"id\""},
      {"array id", R"({"v":1,"id":[1],"verb":"status"})", "protocol", "integer field \"id\""},
      {"object id", R"({"v":1,"id":{"a":1},"verb":"status"})", "protocol", "integer field \"id\""},
      {"export rail:1", R"({"v":1,"id":1,"verb":"export","args":{"rail":1}})", "invalid",
       "export: argument \"rail\" must be a string"},
      {"clocks.unpin all:1", R"({"v":1,"id":1,"verb":"clocks.unpin","args":{"all":1}})", "invalid",
       "clocks.unpin: argument \"all\" must be true or false"},
      {"export huge unsigned", R"({"v":1,"id":1,"verb":"export","args":{"until_wall_ns":18446744073709551615}})",
       "invalid", "\"until_wall_ns\""},
      {"runs.list float limit", R"({"v":1,"id":1,"verb":"runs.list","args":{"limit":2.5}})", "invalid", "\"limit\""},
      {"mark.start name 5", R"({"v":1,"id":1,"verb":"mark.start","args":{"name":5}})", "invalid", "\"name\""},
      {"mark.stop run []", R"({"v":1,"id":1,"verb":"mark.stop","args":{"run":[]}})", "invalid", "\"run\""},
      {"clocks.pin domains []", R"({"v":1,"id":1,"verb":"clocks.pin","args":{"domains":[]}})", "invalid",
       "\"domains\""},
      {"runs.show run {}", R"({"v":1,"id":1,"verb":"runs.show","args":{"run":{}}})", "invalid", "\"run\""},
      {"ESC in a run name", R"({"v":1,"id":1,"verb":"mark.start","args":{"name":"a\u001b[2J"}})", "invalid",
       "U+001B at character 2"},
      {"10,000-deep args", nested_args(10000), "protocol", "nested 10002 levels deep; the limit is 32"},
  };
}

class HostileInput : public ::testing::Test {
 protected:
  void SetUp() override {
    daemon_ = std::make_unique<SimulatedDaemon>(BoardSpec{});
    ASSERT_TRUE(daemon_->started()) << daemon_->setup_error();
  }

  // The reply to one raw frame on a connection of its own.
  nlohmann::json send_raw(const std::string& payload) {
    int fd = connect_to(daemon_->socket());
    if (fd < 0) return {{"connect", fd}};
    send_all(fd, raw_frame(payload));
    std::string reply = read_reply(fd);
    ::close(fd);
    auto j = nlohmann::json::parse(reply, nullptr, false);
    return j.is_discarded() ? nlohmann::json{{"not json", reply}} : j;
  }

  std::unique_ptr<SimulatedDaemon> daemon_;
};

TEST_F(HostileInput, EveryCrashingFrameOfTheIssueIsAnsweredWithAnErrorAndTheDaemonServesOn) {
  for (const auto& f : hostile_frames()) {
    auto reply = send_raw(f.payload);
    ASSERT_TRUE(reply.contains("ok")) << f.name << ": " << reply.dump().substr(0, 500) << "\n" << daemon_->log();
    EXPECT_EQ(reply["ok"], false) << f.name;
    EXPECT_EQ(reply["error"]["code"], f.code) << f.name << ": " << reply.dump();
    std::string message = reply["error"].value("message", std::string());
    EXPECT_NE(message.find(f.words), std::string::npos) << f.name << ": " << message;
  }
  auto status = send_raw(R"({"v":1,"id":2,"verb":"status"})");
  EXPECT_EQ(status["ok"], true) << status.dump().substr(0, 500);
  EXPECT_EQ(daemon_->ctl({"status"}).exit_code, 0);
  EXPECT_EQ(daemon_->log().find("BUG:"), std::string::npos) << "no handler may throw:\n" << daemon_->log();
}

// The million-frame soak found thousands of runs held open by one client:
// each open run costs memory and a line in every status reply. A uid may
// hold max_open_runs_per_user open runs; the next start is refused, naming
// the limit, and a stop makes room again.
TEST(HostileRuns, OneUserCannotOpenRunsWithoutLimit) {
  BoardSpec spec;
  spec.extra_config = "max_open_runs_per_user: 3";
  SimulatedDaemon d(spec);
  ASSERT_TRUE(d.started()) << d.setup_error();
  for (int i = 0; i < 3; ++i) ASSERT_EQ(d.ctl({"mark", "start", "r" + std::to_string(i)}).exit_code, 0) << d.log();
  auto refused = d.ctl({"mark", "start", "r3"});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("max_open_runs_per_user is 3"), std::string::npos) << refused.err;
  EXPECT_EQ(d.ctl_json({"status"})["open_runs"].size(), 3u);
  ASSERT_EQ(d.ctl({"mark", "stop", "r0"}).exit_code, 0);
  EXPECT_EQ(d.ctl({"mark", "start", "r3"}).exit_code, 0) << d.log();
}

}  // namespace
}  // namespace energy::testing
