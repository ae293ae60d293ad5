// The run commands of issue 5 through energyctl on a simulated board with
// constant power: runs (filters, paging), show (stopped, open, restarted),
// compare, export RUN, live, and the exit status tags of `energyctl run`.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <memory>
#include <set>
#include <sstream>
#include <thread>

#include <pty.h>

#include "board_fixture.h"

namespace energy::testing {
namespace {

using std::chrono::milliseconds;

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

class RunQueries : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { daemon_ = std::make_unique<SimulatedDaemon>(constant_orin_nano()); }
  static void TearDownTestSuite() { daemon_.reset(); }
  void SetUp() override { ASSERT_TRUE(daemon_->started()) << daemon_->setup_error(); }
  SimulatedDaemon& d() { return *daemon_; }

  // A stopped run of about `ms` with these tags; returns mark.stop's report.
  nlohmann::json measured(const std::string& name, int ms, const std::vector<std::string>& tags = {}) {
    std::vector<std::string> start = {"mark", "start", name};
    for (const auto& t : tags) {
      start.push_back("--tag");
      start.push_back(t);
    }
    auto info = d().ctl_json(start);
    std::this_thread::sleep_for(milliseconds(ms));
    return d().ctl_json({"mark", "stop", std::to_string(info["id"].get<int64_t>())});
  }

  // NOLINTNEXTLINE(readability-identifier-naming): a fixture's member, named as members are
  static std::unique_ptr<SimulatedDaemon> daemon_;
};

std::unique_ptr<SimulatedDaemon> RunQueries::daemon_;

TEST_F(RunQueries, RunsListsNewestFirstWithFiltersAndASummaryMatchingTheReport) {
  auto a = measured("listed-a", 300, {"batch=8"});
  auto b = measured("listed-b", 300, {"batch=16"});
  auto c = measured("listed-a", 300, {"batch=16"});
  auto all = d().ctl_json({"runs", "--name", "listed-a"});
  ASSERT_EQ(all["runs"].size(), 2u) << all.dump(2);
  EXPECT_EQ(all["runs"][0]["id"], c["run"]["id"]) << "newest first";
  EXPECT_EQ(all["runs"][1]["id"], a["run"]["id"]);
  EXPECT_EQ(all["more"], false);
  for (const auto& [listed, report] : {std::pair{all["runs"][0], c}, std::pair{all["runs"][1], a}}) {
    EXPECT_NEAR(listed["summary"]["energy_j"].get<double>(), report["total"]["energy_j"].get<double>(), 1e-6);
    EXPECT_NEAR(listed["summary"]["duration_s"].get<double>(), report["duration_s"].get<double>(), 1e-9);
    EXPECT_NEAR(listed["summary"]["avg_power_w"].get<double>(), 5.0, 0.01);
  }
  auto tagged = d().ctl_json({"runs", "--tag", "batch=16"});
  std::set<int64_t> ids;
  for (const auto& r : tagged["runs"]) ids.insert(r["id"].get<int64_t>());
  EXPECT_EQ(ids, (std::set<int64_t>{b["run"]["id"].get<int64_t>(), c["run"]["id"].get<int64_t>()}));
  auto both = d().ctl_json({"runs", "--tag", "batch=16", "--name", "listed-a"});
  ASSERT_EQ(both["runs"].size(), 1u);
  EXPECT_EQ(both["runs"][0]["id"], c["run"]["id"]);
  EXPECT_TRUE(d().ctl_json({"runs", "--until", "-1d"})["runs"].empty()) << "every run started within the last day";
  EXPECT_TRUE(d().ctl_json({"runs", "--state", "interrupted"})["runs"].empty());
}

TEST_F(RunQueries, RunsPagesThroughTheLimitAndTheTableIsAligned) {
  for (int i = 0; i < 3; ++i) measured("paged", 50);
  auto two = d().ctl_json({"runs", "--name", "paged", "--limit", "2"});
  ASSERT_EQ(two["runs"].size(), 2u);
  EXPECT_EQ(two["more"], true);
  auto table = d().ctl({"runs", "--name", "paged", "--limit", "2"});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  auto lines = lines_of(table.out);
  ASSERT_EQ(lines.size(), 4u) << table.out;  // header, two runs, the "more" line
  EXPECT_EQ(lines[0].find("ID"), 0u) << table.out;
  for (const char* title : {"NAME", "STATE", "START", "DURATION", "ENERGY J", "AVG W", "J/ITEM", "TAGS"}) {
    EXPECT_NE(lines[0].find(title), std::string::npos) << title << "\n" << table.out;
  }
  // Right-aligned numbers: each row's AVG W and J/ITEM end where the header's do.
  for (const char* title : {"AVG W", "J/ITEM"}) {
    size_t end = lines[0].find(title) + std::string(title).size();
    for (size_t i : {size_t{1}, size_t{2}}) {
      ASSERT_GT(lines[i].size(), end) << table.out;
      EXPECT_NE(lines[i][end - 1], ' ') << title << "\n" << table.out;
      EXPECT_EQ(lines[i][end], ' ') << title << "\n" << table.out;
    }
  }
  EXPECT_NE(lines[3].find("--limit N shows more"), std::string::npos) << table.out;
}

TEST_F(RunQueries, BadRunsOptionsAreUsageErrorsNamingTheOption) {
  for (const auto& [args, word] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"runs", "--state", "paused"}, "--state"},
           {{"runs", "--limit", "0"}, "--limit"},
           {{"runs", "--limit", "10001"}, "--limit"},
           {{"runs", "--since", "yesterday-ish"}, "--since"},
           {{"runs", "--tag", "novalue"}, "KEY=VALUE"},
           {{"runs", "--colour"}, "--colour"},
           {{"show"}, "exactly one run"},
           {{"compare", "1"}, "at least two"},
           {{"live", "--interval", "10ms"}, "--interval"},
           {{"live", "--count", "none"}, "--count"},
           {{"baseline", "--duration", "5"}, "--duration"},
           {{"run", "--baseline", "2h", "--", "true"}, "--baseline"},
           {{"export", "1", "--format", "xml"}, "--format"}}) {
    auto r = d().ctl(args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << " " << r.err;
    EXPECT_NE(r.err.find(word), std::string::npos) << word << " not in: " << r.err;
  }
}

TEST_F(RunQueries, ShowGivesTheStoppedReportByIdOrNewestName) {
  auto first = measured("shown", 200);
  auto second = measured("shown", 400, {"batch=4"});
  auto by_id = d().ctl_json({"show", std::to_string(first["run"]["id"].get<int64_t>())});
  EXPECT_EQ(by_id["run"], first["run"]);
  EXPECT_DOUBLE_EQ(by_id["total"]["energy_j"].get<double>(), first["total"]["energy_j"].get<double>());
  EXPECT_EQ(by_id["total"]["samples"], first["total"]["samples"]);
  EXPECT_EQ(by_id["clock_pins"], first["clock_pins"]) << "clocks come back from the store";
  EXPECT_EQ(by_id["clock_events"], first["clock_events"]);
  auto by_name = d().ctl_json({"show", "shown"});
  EXPECT_EQ(by_name["run"]["id"], second["run"]["id"]);
  auto text = d().ctl({"show", "shown"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  for (const char* word : {"(shown) stopped", "VDD_IN *", "TOTAL", "ENERGY J"}) {
    EXPECT_NE(text.out.find(word), std::string::npos) << word << " missing from:\n" << text.out;
  }
  auto missing = d().ctl({"show", "no-such-run"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("no run named or numbered 'no-such-run'"), std::string::npos) << missing.err;
}

TEST_F(RunQueries, ShowOfAnOpenRunReportsUpToTheNewestReadingAndSaysSo) {
  auto info = d().ctl_json({"mark", "start", "still-open"});
  std::this_thread::sleep_for(milliseconds(1600));
  auto rep = d().ctl_json({"show", std::to_string(info["id"].get<int64_t>())});
  EXPECT_EQ(rep["run"]["state"], "open");
  EXPECT_TRUE(any_note_contains(rep, "still open")) << rep.dump(2);
  double duration = rep["duration_s"].get<double>();
  EXPECT_GT(duration, 0.4) << "at least one flush (1 s) must have stored readings";
  EXPECT_LE(duration, 1.7);
  EXPECT_NEAR(rep["total"]["energy_j"].get<double>(), 5.0 * duration, 0.01 * 5.0 * duration);
  EXPECT_EQ(rep["until_ns"].get<int64_t>() - rep["run"]["start_ns"].get<int64_t>(),
            static_cast<int64_t>(std::llround(duration * 1e9)));
  auto listed = d().ctl_json({"runs", "--state", "open"});
  ASSERT_FALSE(listed["runs"].empty());
  EXPECT_EQ(listed["runs"][0]["id"], info["id"]);
  EXPECT_TRUE(listed["runs"][0]["summary"]["energy_j"].is_number());
  d().ctl_json({"mark", "stop", "still-open"});
}

TEST_F(RunQueries, CompareShowsEachFigureAndItsDifferenceToTheFirstRun) {
  auto a = measured("cmp-short", 300);
  auto b = measured("cmp-long", 900);
  std::string ia = std::to_string(a["run"]["id"].get<int64_t>()), ib = std::to_string(b["run"]["id"].get<int64_t>());
  auto c = d().ctl_json({"compare", ia, ib});
  ASSERT_EQ(c["runs"].size(), 2u) << c.dump(2);
  EXPECT_EQ(c["runs"][0]["name"], "cmp-short");
  const nlohmann::json* energy = nullptr;
  const nlohmann::json* soc = nullptr;
  for (const auto& m : c["metrics"]) {
    if (m["metric"] == "energy_j" && !m.contains("rail")) energy = &m;
    if (m.value("rail", "") == "VDD_SOC") soc = &m;
  }
  ASSERT_NE(energy, nullptr) << c.dump(2);
  ASSERT_NE(soc, nullptr) << c.dump(2);
  double ea = a["total"]["energy_j"].get<double>(), eb = b["total"]["energy_j"].get<double>();
  EXPECT_DOUBLE_EQ((*energy)["values"][0].get<double>(), ea);
  EXPECT_DOUBLE_EQ((*energy)["values"][1].get<double>(), eb);
  EXPECT_TRUE((*energy)["diff_pct"][0].is_null());
  EXPECT_NEAR((*energy)["diff_pct"][1].get<double>(), (eb - ea) / ea * 100.0, 1e-9);
  EXPECT_GT((*energy)["diff_pct"][1].get<double>(), 100.0) << "three times as long at the same power";
  EXPECT_DOUBLE_EQ((*soc)["values"][1].get<double>(), report_rail(b, "VDD_SOC")->at("energy_j").get<double>());
  auto text = d().ctl({"compare", ia, ib});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  for (const char* word : {"METRIC", "ENERGY J", "AVG W", "VDD_SOC J", "cmp-long", "(+"}) {
    EXPECT_NE(text.out.find(word), std::string::npos) << word << " missing from:\n" << text.out;
  }
}

TEST_F(RunQueries, ExportOfARunHasExactlyTheReportsReadingsAndItsSummary) {
  auto rep = measured("exported", 700);
  std::string id = std::to_string(rep["run"]["id"].get<int64_t>());
  auto r = d().ctl({"--json", "export", id});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out;
  EXPECT_EQ(doc["report"]["run"], rep["run"]);
  int64_t start = rep["run"]["start_ns"], stop = rep["run"]["stop_ns"];
  std::map<std::string, int64_t> per_rail;
  for (const auto& row : doc["rows"]) {
    ++per_rail[row["rail"].get<std::string>()];
    EXPECT_GE(row["t_ns"].get<int64_t>(), start);
    EXPECT_LE(row["t_ns"].get<int64_t>(), stop);
  }
  ASSERT_EQ(per_rail.size(), 3u) << r.out;
  for (const auto& rail : rep["rails"]) {
    EXPECT_EQ(per_rail[rail["label"].get<std::string>()],
              rail["samples"].get<int64_t>() + rail["failed_samples"].get<int64_t>())
        << rail.dump();
  }
  auto csv = d().ctl({"export", id, "--csv", "--rail", "VDD_IN"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  auto lines = lines_of(csv.out);
  size_t header = 0;
  while (header < lines.size() && lines[header].rfind('#', 0) == 0) ++header;
  ASSERT_LT(header, lines.size()) << csv.out;
  EXPECT_NE(csv.out.find("# run " + id + " (exported) stopped"), std::string::npos) << csv.out;
  EXPECT_EQ(lines[header], "boot_id,t_ns,wall_time,rail,voltage_mv,current_ma,power_uw,errno");
  EXPECT_EQ(static_cast<int64_t>(lines.size() - header - 1), report_rail(rep, "VDD_IN")->at("samples").get<int64_t>());
  EXPECT_EQ(count_of(csv.out, ",VDD_IN,5000,1000,5000000,"), lines.size() - header - 1);
  auto missing = d().ctl({"export", "999999"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("999999"), std::string::npos) << missing.err;
}

// Issue 15: the item count is stored with the run (mark start/stop --items,
// run --items), so show, runs, compare and export give energy per item later.
TEST_F(RunQueries, ItemsStoredWithTheRunGiveEnergyPerItemInShowRunsCompareAndExport) {
  auto info = d().ctl_json({"mark", "start", "batch-a", "--items", "4", "--tag", "batch=4"});
  EXPECT_EQ(info["items"], 4.0);
  std::this_thread::sleep_for(milliseconds(300));
  auto a = d().ctl_json({"mark", "stop", "batch-a", "--items", "8"});
  EXPECT_EQ(a["run"]["items"], 8.0) << "the stop's count replaces the start's";
  double per_item = a["total"]["energy_j"].get<double>() / 8;
  EXPECT_DOUBLE_EQ(a["total"]["energy_per_item_j"].get<double>(), per_item);
  std::string id = std::to_string(a["run"]["id"].get<int64_t>());
  auto shown = d().ctl_json({"show", id});
  EXPECT_EQ(shown["run"]["items"], 8.0);
  EXPECT_DOUBLE_EQ(shown["total"]["energy_per_item_j"].get<double>(), per_item);
  auto text = d().ctl({"show", id});
  EXPECT_NE(text.out.find("items: 8; energy per item"), std::string::npos) << text.out;
  auto run = d().ctl({"run", "--name", "batch-b", "--items", "16", "--output", "-", "--json", "--", "sleep", "0.3"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto b = nlohmann::json::parse(run.out, nullptr, false)["runs"][0]["report"];
  EXPECT_EQ(b["run"]["items"], 16.0) << "run --items is stored with the run";
  auto list = d().ctl({"runs", "--limit", "2"});
  EXPECT_NE(list.out.find("J/ITEM"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("batch=4"), std::string::npos) << list.out;
  auto cmp = d().ctl_json({"compare", id, std::to_string(b["run"]["id"].get<int64_t>())});
  bool has_per_item = false;
  for (const auto& m : cmp["metrics"]) has_per_item = has_per_item || m["metric"] == "energy_per_item_j";
  EXPECT_TRUE(has_per_item) << cmp.dump();
  auto exported = d().ctl({"--json", "export", id});
  EXPECT_EQ(nlohmann::json::parse(exported.out, nullptr, false)["report"]["run"]["items"], 8.0);
  auto csv = d().ctl({"export", id, "--csv"});
  EXPECT_NE(csv.out.find("# items: 8; energy per item"), std::string::npos) << csv.out.substr(0, 2000);
  auto bad = d().ctl({"mark", "start", "x", "--items", "0"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
}

// Issue 15: compare --by groups the stopped runs by a tag's value.
TEST_F(RunQueries, CompareByATagGivesEachGroupsMeanIntervalAndDifference) {
  for (const char* batch : {"4", "4", "16", "16", "16"}) measured("grouped", 150, {std::string("batch=") + batch});
  auto c = d().ctl_json({"compare", "--by", "batch", "--name", "grouped"});
  ASSERT_EQ(c["groups"].size(), 2u) << c.dump();
  EXPECT_EQ(c["groups"][0]["value"], "4");
  EXPECT_EQ(c["groups"][0]["n"], 2);
  EXPECT_EQ(c["groups"][1]["n"], 3);
  const auto& e = c["groups"][1]["metrics"]["energy_j"];
  EXPECT_LE(e["ci95_low"].get<double>(), e["mean"].get<double>());
  EXPECT_TRUE(c["groups"][1]["vs_reference"]["energy_j"]["diff"].is_number()) << c.dump();
  auto text = d().ctl({"compare", "--by", "batch", "--name", "grouped"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("vs batch=4"), std::string::npos) << text.out;
  auto stray = d().ctl({"compare", "--name", "grouped"});
  EXPECT_EQ(stray.exit_code, 2);
  EXPECT_NE(stray.err.find("go with --by TAG"), std::string::npos) << stray.err;
}

TEST_F(RunQueries, LiveRepeatsTheViewForScriptsAndAsJsonLines) {
  auto started = std::chrono::steady_clock::now();
  auto text = d().ctl({"live", "--count", "3", "--interval", "200ms"});
  auto took = std::chrono::steady_clock::now() - started;
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_GE(took, milliseconds(400)) << "three views 200 ms apart";
  EXPECT_EQ(count_of(text.out, "total 5.000 W"), 3u) << text.out;
  EXPECT_EQ(count_of(text.out, "VDD_IN *"), 3u) << text.out;
  EXPECT_EQ(count_of(text.out, "\x1b["), 0u) << "no terminal codes when stdout is not a terminal";
  auto lines_json = d().ctl({"live", "--json", "--count", "2", "--interval", "100ms"});
  ASSERT_EQ(lines_json.exit_code, 0) << lines_json.err;
  auto lines = lines_of(lines_json.out);
  ASSERT_EQ(lines.size(), 2u) << lines_json.out;
  for (const auto& line : lines) {
    auto snap = nlohmann::json::parse(line, nullptr, false);
    ASSERT_FALSE(snap.is_discarded()) << line;
    EXPECT_DOUBLE_EQ(snap["total_power_w"].get<double>(), 5.0);
    ASSERT_EQ(snap["rails"].size(), 3u);
    EXPECT_DOUBLE_EQ(snap["rails"][0]["voltage_v"].get<double>(), 5.0);
    EXPECT_TRUE(snap["clocks"].is_array());
    EXPECT_TRUE(snap["thermal"].is_array());
  }
}

// On a terminal the view is redrawn in place: cleared once, then each
// refresh goes home, draws, and clears what the previous one left below.
TEST_F(RunQueries, LiveRedrawsInPlaceOnATerminal) {
  int master = -1;
  pid_t pid = ::forkpty(&master, nullptr, nullptr, nullptr);
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    std::string sock = d().socket();
    ::execl(ENERGYCTL_BIN, ENERGYCTL_BIN, "--socket", sock.c_str(), "live", "--count", "2", "--interval", "100ms",
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::read(master, buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));  // EIO at exit
  int status = 0;
  ::waitpid(pid, &status, 0);
  ::close(master);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out;
  EXPECT_EQ(count_of(out, "\x1b[2J"), 1u) << out;
  EXPECT_EQ(count_of(out, "\x1b[H"), 2u) << out;
  EXPECT_EQ(count_of(out, "\x1b[J"), 2u) << out;
  EXPECT_EQ(count_of(out, "total 5.000 W"), 2u) << out;
}

TEST_F(RunQueries, RunTagsTheCommandsExitStatusOrSignal) {
  auto ok = d().ctl({"--json", "run", "--name", "tag-ok", "--output", "-", "--", "true"});
  auto failed = d().ctl({"--json", "run", "--name", "tag-failed", "--output", "-", "--", "sh", "-c", "exit 3"});
  auto killed = d().ctl({"--json", "run", "--name", "tag-killed", "--output", "-", "--", "sh", "-c", "kill -TERM $$"});
  EXPECT_EQ(failed.exit_code, 3);
  EXPECT_EQ(killed.exit_code, 128 + SIGTERM);
  EXPECT_EQ(d().ctl_json({"show", "tag-ok"})["run"]["tags"]["exit_status"], "0");
  auto f = d().ctl_json({"show", "tag-failed"});
  EXPECT_EQ(f["run"]["tags"]["exit_status"], "3");
  EXPECT_FALSE(f["run"]["tags"].contains("signal"));
  auto k = d().ctl_json({"show", "tag-killed"});
  EXPECT_EQ(k["run"]["tags"]["signal"], "SIGTERM");
  EXPECT_EQ(k["run"]["tags"]["exit_status"], "143");
  EXPECT_EQ(k["run"]["tags"]["command"], "sh -c kill -TERM $$") << "tags from the start are kept";
  auto failures = d().ctl_json({"runs", "--tag", "exit_status=3"});
  ASSERT_FALSE(failures["runs"].empty());
  EXPECT_EQ(failures["runs"][0]["name"], "tag-failed");
}

// A run open across a daemon restart keeps going, with the downtime as a gap
// that the report states (QUALITY M2: a gap is reported, never hidden).
TEST(RunQueriesRestart, ARunOpenAcrossARestartReportsTheGap) {
  SimulatedDaemon d(constant_orin_nano());
  ASSERT_TRUE(d.started()) << d.setup_error();
  auto info = d.ctl_json({"mark", "start", "across"});
  std::this_thread::sleep_for(milliseconds(300));
  ASSERT_TRUE(d.restart(SIGKILL)) << d.setup_error();
  std::this_thread::sleep_for(milliseconds(1200));
  auto rep = d.ctl_json({"mark", "stop", "across"});
  ASSERT_TRUE(rep.contains("total")) << rep.dump(2);
  EXPECT_GT(rep["total"]["gap_ns"].get<int64_t>(), 200'000'000) << rep.dump(2);
  EXPECT_TRUE(any_note_contains(rep, "had no readings")) << rep.dump(2);
  auto shown = d.ctl({"show", std::to_string(info["id"].get<int64_t>())});
  EXPECT_NE(shown.out.find("note: "), std::string::npos) << shown.out;
  EXPECT_NE(shown.out.find("had no readings"), std::string::npos) << shown.out;
}

}  // namespace
}  // namespace energy::testing
