// `energyctl run -- CMD`: marks around a command on a simulated board with
// constant power; stdin/stdout, exit status and signals pass through, and the
// run is closed whatever happens to the command.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <thread>

#include "board_fixture.h"

namespace energy::testing {
namespace {

// energyctl with `input` on its stdin; stdout and stderr captured.
CommandResult run_with_input(const std::vector<std::string>& argv, const std::string& input) {
  TempDir tmp;
  std::ofstream(tmp.path() + "/in") << input;
  std::string out = tmp.path() + "/out", err = tmp.path() + "/err";
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(::open((tmp.path() + "/in").c_str(), O_RDONLY), 0);
    ::dup2(::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600), 1);
    ::dup2(::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600), 2);
    std::vector<char*> args;
    args.reserve(argv.size() + 1);
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), read_file(out), read_file(err)};
}

bool wait_for_file(const std::string& path, std::chrono::seconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (std::filesystem::exists(path) && !read_file(path).empty()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

nlohmann::json parse_json(const std::string& text) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << "not JSON: " << text;
  return j;
}

class RunCommand : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { daemon_ = std::make_unique<SimulatedDaemon>(constant_orin_nano()); }
  static void TearDownTestSuite() { daemon_.reset(); }
  void SetUp() override { ASSERT_TRUE(daemon_->started()) << daemon_->setup_error(); }

  SimulatedDaemon& d() { return *daemon_; }
  std::vector<std::string> ctl_argv(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {ENERGYCTL_BIN, "--socket", daemon_->socket()};
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  }
  // Names of the runs the daemon still has open.
  std::vector<std::string> open_run_names() {
    std::vector<std::string> names;
    auto status = d().ctl_json({"status"});
    for (const auto& r : status["open_runs"]) names.push_back(r["name"]);
    return names;
  }
  // Runs `energyctl run --json --output FILE ARGS...` and returns (exit code, the JSON document).
  std::pair<CommandResult, nlohmann::json> run_json(const std::vector<std::string>& args) {
    std::string file = tmp_.path() + "/report.json";
    std::vector<std::string> full = {"run", "--json", "--output", file};
    full.insert(full.end(), args.begin(), args.end());
    auto r = d().ctl(full);
    return {r, parse_json(read_file(file))};
  }

  TempDir tmp_;
  // NOLINTNEXTLINE(readability-identifier-naming): a fixture's member, named as members are
  static std::unique_ptr<SimulatedDaemon> daemon_;
};

std::unique_ptr<SimulatedDaemon> RunCommand::daemon_;

TEST_F(RunCommand, SuccessfulCommandExitsZeroWithTheReportOnStderr) {
  auto r = d().ctl({"run", "--", "true"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  for (const char* word : {"run ", "(true) stopped", "VDD_IN *", "TOTAL", "command exited with status 0"}) {
    EXPECT_NE(r.err.find(word), std::string::npos) << word << " missing from:\n" << r.err;
  }
}

TEST_F(RunCommand, CommandsExitStatusIsPassedThroughAndRecorded) {
  auto [r, doc] = run_json({"--", "sh", "-c", "exit 3"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(doc["exit_status"], 3);
  EXPECT_EQ(doc["runs"][0]["exit_status"], 3);
  EXPECT_EQ(doc["runs"][0]["report"]["run"]["state"], "stopped");
  EXPECT_TRUE(doc["summary"].is_null()) << "a failed command's energy is not summarized";
}

TEST_F(RunCommand, CommandKilledBySignalIs128PlusN) {
  auto [r, doc] = run_json({"--", "sh", "-c", "kill -TERM $$"});
  EXPECT_EQ(r.exit_code, 128 + SIGTERM) << r.err;
  EXPECT_EQ(doc["runs"][0]["signal"], "SIGTERM");
  EXPECT_EQ(doc["runs"][0]["report"]["run"]["state"], "stopped");
}

TEST_F(RunCommand, StdinAndStdoutPassThroughUntouched) {
  std::string input = "line one\nline two\n";
  auto text = run_with_input(ctl_argv({"run", "--", "cat"}), input);
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(text.out, input);
  EXPECT_NE(text.err.find("TOTAL"), std::string::npos) << text.err;
  std::string file = tmp_.path() + "/cat.json";
  auto with_json = run_with_input(ctl_argv({"--json", "run", "--output", file, "--", "cat"}), input);
  EXPECT_EQ(with_json.exit_code, 0) << with_json.err;
  EXPECT_EQ(with_json.out, input);
  EXPECT_EQ(parse_json(read_file(file))["runs"][0]["report"]["run"]["name"], "cat");
}

TEST_F(RunCommand, JsonOnStdoutComesAfterTheCommandsOutput) {
  auto r = d().ctl({"run", "--json", "--output", "-", "--", "echo", "from-the-command"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string first_line = "from-the-command\n";
  ASSERT_EQ(r.out.compare(0, first_line.size(), first_line), 0) << r.out;
  auto doc = parse_json(r.out.substr(first_line.size()));
  EXPECT_EQ(doc["name"], "echo");
  EXPECT_EQ(doc["command"], nlohmann::json::array({"echo", "from-the-command"}));
}

TEST_F(RunCommand, SigintToEnergyctlReachesTheCommandAndTheRunIsClosed) {
  std::string ready = tmp_.path() + "/ready", file = tmp_.path() + "/int.json";
  ChildProcess ctl(ctl_argv({"--json", "run", "--name", "interrupted", "--output", file, "--", "sh", "-c",
                             "echo $$ > " + ready + "; exec sleep 60"}),
                   tmp_.path() + "/ctl.log");
  ASSERT_TRUE(wait_for_file(ready, std::chrono::seconds(20))) << read_file(tmp_.path() + "/ctl.log");
  EXPECT_EQ(open_run_names(), std::vector<std::string>{"interrupted"});
  EXPECT_EQ(ctl.stop(SIGINT, std::chrono::seconds(20)), 128 + SIGINT) << read_file(tmp_.path() + "/ctl.log");
  auto doc = parse_json(read_file(file));
  EXPECT_EQ(doc["interrupted_by"], "SIGINT");
  EXPECT_EQ(doc["runs"][0]["signal"], "SIGINT") << "the command itself died of the forwarded SIGINT";
  EXPECT_EQ(doc["runs"][0]["report"]["run"]["state"], "stopped");
  EXPECT_TRUE(open_run_names().empty());
}

TEST_F(RunCommand, SigtermIsForwardedToTheCommandWhichMayHandleIt) {
  std::string ready = tmp_.path() + "/ready";
  ChildProcess ctl(ctl_argv({"run", "--name", "trapper", "--", "sh", "-c",
                             "trap 'exit 7' TERM; echo up > " + ready + "; while :; do sleep 0.05; done"}),
                   tmp_.path() + "/ctl.log");
  ASSERT_TRUE(wait_for_file(ready, std::chrono::seconds(20))) << read_file(tmp_.path() + "/ctl.log");
  EXPECT_EQ(ctl.stop(SIGTERM, std::chrono::seconds(20)), 7) << read_file(tmp_.path() + "/ctl.log");
  EXPECT_NE(read_file(tmp_.path() + "/ctl.log").find("(trapper) stopped"), std::string::npos);
  EXPECT_TRUE(open_run_names().empty());
}

TEST_F(RunCommand, CommandNotFoundIs127AndTheRunIsStillClosed) {
  auto [r, doc] = run_json({"--name", "missing", "--", "/nonexistent/energyd-test-command"});
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_NE(r.err.find("/nonexistent/energyd-test-command: command not found"), std::string::npos) << r.err;
  EXPECT_EQ(doc["runs"][0]["report"]["run"]["state"], "stopped");
  EXPECT_TRUE(open_run_names().empty());
}

TEST_F(RunCommand, CommandThatIsNotExecutableIs126) {
  std::string script = tmp_.path() + "/not-executable";
  std::ofstream(script) << "#!/bin/sh\nexit 0\n";
  ::chmod(script.c_str(), 0644);
  auto [r, doc] = run_json({"--", script});
  EXPECT_EQ(r.exit_code, 126);
  EXPECT_NE(r.err.find("cannot execute"), std::string::npos) << r.err;
  EXPECT_EQ(doc["runs"][0]["report"]["run"]["state"], "stopped");
}

TEST_F(RunCommand, RepeatGivesPerRunReportsAndStatisticsWithEnergyPerItem) {
  auto r = d().ctl(
      {"run", "--repeat", "3", "--items", "50", "--tag", "batch=8", "--json", "--output", "-", "--", "sleep", "0.2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = parse_json(r.out);
  ASSERT_EQ(doc["runs"].size(), 3u) << doc.dump(2);
  std::set<int64_t> ids;
  for (const auto& run : doc["runs"]) {
    const auto& rep = run["report"];
    ids.insert(run["run_id"].get<int64_t>());
    EXPECT_EQ(rep["run"]["name"], "sleep");
    EXPECT_EQ(rep["run"]["tags"]["batch"], "8");
    EXPECT_NEAR(rep["total"]["avg_power_w"].get<double>(), 5.0, 0.05);
    EXPECT_NEAR(run["energy_per_item_j"].get<double>(), rep["total"]["energy_j"].get<double>() / 50, 1e-12);
  }
  EXPECT_EQ(ids.size(), 3u);
  EXPECT_EQ(doc["runs"][1]["report"]["run"]["tags"]["repeat"], "2/3");
  const auto& s = doc["summary"];
  EXPECT_EQ(s["runs"], 3);
  double mean = s["energy_j"]["mean"].get<double>();
  EXPECT_LE(s["energy_j"]["min"].get<double>(), mean);
  EXPECT_GE(s["energy_j"]["max"].get<double>(), mean);
  EXPECT_LT(s["energy_j"]["ci95_low"].get<double>(), mean);
  EXPECT_GT(s["energy_j"]["ci95_high"].get<double>(), mean);
  EXPECT_GE(s["duration_s"]["mean"].get<double>(), 0.2);
  EXPECT_NEAR(s["avg_power_w"]["mean"].get<double>(), 5.0, 0.05);
  EXPECT_NEAR(s["energy_per_item_j"]["mean"].get<double>(), mean / 50, 1e-12);
}

TEST_F(RunCommand, RepeatTextShowsRunsAndSummaryTables) {
  auto r = d().ctl({"run", "--repeat", "2", "--items", "10", "--", "true"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* word : {"2 of 2 runs of 'true'", "J PER ITEM", "OVER RUNS", "95% CI", "ENERGY J"}) {
    EXPECT_NE(r.err.find(word), std::string::npos) << word << " missing from:\n" << r.err;
  }
}

TEST_F(RunCommand, RepeatsStopAtTheFirstFailingCommand) {
  auto [r, doc] = run_json({"--repeat", "3", "--", "sh", "-c", "exit 4"});
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_EQ(doc["runs"].size(), 1u);
  EXPECT_TRUE(open_run_names().empty());
}

TEST_F(RunCommand, BadUsageIsExitCodeTwoAndRunsNothing) {
  auto none = d().ctl({"run"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("run needs a command"), std::string::npos) << none.err;
  auto repeat = d().ctl({"run", "--repeat", "0", "--", "true"});
  EXPECT_EQ(repeat.exit_code, 2);
  EXPECT_NE(repeat.err.find("--repeat"), std::string::npos) << repeat.err;
  auto items = d().ctl({"run", "--items", "lots", "--", "true"});
  EXPECT_EQ(items.exit_code, 2);
  EXPECT_NE(items.err.find("--items must be a positive number, got 'lots'"), std::string::npos) << items.err;
}

TEST_F(RunCommand, UnwritableReportFileFailsBeforeTheCommandRuns) {
  std::string marker = tmp_.path() + "/ran";
  auto r = d().ctl({"run", "--output", tmp_.path() + "/no-such-dir/r.json", "--", "touch", marker});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot open the report file " + tmp_.path() + "/no-such-dir/r.json"), std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(marker));
  EXPECT_TRUE(open_run_names().empty());
}

// QUALITY M2 through `energyctl run`: a board without readings gives an
// error and a failing exit status, never 0 J.
TEST(RunCommandNoSensors, RunWithoutReadingsFailsTheMeasurementNotTheCommand) {
  TempDir t;
  std::filesystem::create_directories(t.path() + "/empty");
  std::string sock = t.path() + "/s.sock", file = t.path() + "/r.json";
  ChildProcess d({ENERGYD_BIN, "--root", t.path() + "/empty", "--state-dir", t.path() + "/state", "--socket", sock},
                 t.path() + "/log");
  ASSERT_TRUE(wait_for_socket(sock, std::chrono::seconds(10))) << read_file(t.path() + "/log");
  auto r = run_command({ENERGYCTL_BIN, "--socket", sock, "--json", "run", "--output", file, "--", "true"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("cannot close run"), std::string::npos) << r.err;
  auto doc = parse_json(read_file(file));
  EXPECT_EQ(doc["runs"][0]["exit_status"], 0);
  EXPECT_FALSE(doc["runs"][0].contains("report"));
  EXPECT_NE(doc["runs"][0]["error"].get<std::string>().find("no power readings"), std::string::npos) << doc.dump(2);
  EXPECT_TRUE(doc["summary"].is_null());
  EXPECT_EQ(d.stop(SIGTERM), 0);
}

TEST(RunCommandUnreachable, UnreachableDaemonDoesNotRunTheCommand) {
  TempDir t;
  std::string marker = t.path() + "/ran";
  auto r = run_command({ENERGYCTL_BIN, "--socket", t.path() + "/none.sock", "run", "--", "touch", marker});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("is energyd running?"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(marker));
}

}  // namespace
}  // namespace energy::testing
