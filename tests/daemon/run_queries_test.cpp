// The run verbs' work on a store (run_queries.h, run_reports.h): interrupted
// and open runs and gaps are stated, listings carry summaries, lookups by id
// or name, and a run's export has exactly its readings.
#include "run_queries.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "../time_units.h"
#include "energy/chunker.h"

namespace energy::daemon {
namespace {

// energyd's sampling period (gaps: over 2.5 periods, 250 ms); the runs record it as energyd does.
constexpr int64_t kPeriod = 100 * kMs;

class RunQueriesOnStore : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/energyd-runq-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    store_ = std::move(Store::open(dir_ + "/energyd.db", StoreRole::kWriter, 1000)).value();
    boot_ = *store_->ensure_boot("boot-a", 0);
    RailInfo in;
    in.label = "VDD_IN";
    in.device = "1-0040";
    in.channel = 1;
    rails_ = *store_->ensure_rails({in});
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }
  // 5 W every 100 ms over [from_ms, to_ms], skipping (gap) [gap_from_ms, gap_to_ms).
  void fill(int64_t from_ms, int64_t to_ms, int64_t gap_from_ms = -1, int64_t gap_to_ms = -1) {
    Chunker chunker({ChunkRail{0}}, 600, {});
    for (int64_t t = from_ms; t <= to_ms; t += 100) {
      if (t >= gap_from_ms && t < gap_to_ms) continue;
      chunker.add(Sample{t * kMs, t * kMs, {RailValue{5'000'000, 5000, 1000, 0}}});
    }
    ASSERT_TRUE(store_->begin().ok());
    for (const auto& c : chunker.take_closed()) ASSERT_TRUE(store_->readings().put_chunk(boot_, rails_, c).ok());
    ASSERT_TRUE(store_->readings().put_chunk(boot_, rails_, chunker.open_chunk()).ok());
    ASSERT_TRUE(store_->commit().ok());
  }
  RunRecord run(const std::string& name, int64_t start_ms, std::optional<int64_t> stop_ms, RunState state) {
    RunRecord r;
    r.name = name;
    r.boot = boot_;
    r.start_ns = start_ms * kMs;
    r.start_wall_ns = r.start_ns;
    r.tags_json = R"({"energyd.period_ms":"100"})";
    r.id = *store_->runs().insert(r);
    if (stop_ms) {
      EXPECT_TRUE(store_->runs().finish(r.id, *stop_ms * kMs, *stop_ms * kMs, state).ok());
    }
    return **store_->runs().by_id(r.id);
  }
  static bool has_note(const nlohmann::json& rep, const std::string& words) {
    return rep.contains("notes") && rep["notes"].dump().find(words) != std::string::npos;
  }

  std::string dir_;
  std::unique_ptr<Store> store_;
  int64_t boot_ = 0;
  std::vector<int64_t> rails_;
};

TEST_F(RunQueriesOnStore, AnInterruptedRunIsShownAsSuch) {
  fill(0, 2000);
  RunRecord r = run("cut", 500, 2000, RunState::kInterrupted);
  auto rep = show_run(*store_, r, kPeriod, nullptr);
  ASSERT_TRUE(rep.ok()) << rep.error().describe();
  EXPECT_EQ((*rep)["run"]["state"], "interrupted");
  EXPECT_TRUE(has_note(*rep, "was interrupted: the board rebooted")) << rep->dump(2);
  EXPECT_NEAR((*rep)["total"]["energy_j"].get<double>(), 7.5, 1e-9);
  RunFilter f;
  f.state = RunState::kInterrupted;
  auto listed = list_runs(*store_, f);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ((*listed)["runs"].size(), 1u);
  EXPECT_NEAR((*listed)["runs"][0]["summary"]["energy_j"].get<double>(), 7.5, 1e-9);
}

TEST_F(RunQueriesOnStore, AnOpenRunIsShownUpToTheNewestStoredReading) {
  fill(0, 1500);
  RunRecord r = run("open", 500, std::nullopt, RunState::kOpen);
  int calls = 0;
  RunClocksFn clocks = [&](int64_t id, int64_t from, int64_t to) {
    ++calls;
    EXPECT_EQ(id, r.id);
    EXPECT_EQ(from, 500 * kMs);
    EXPECT_EQ(to, 1500 * kMs);
    return nlohmann::json{{"clock_pins", nlohmann::json::array({{{"lease", 4}}})},
                          {"clock_events", nlohmann::json::array()}};
  };
  auto rep = show_run(*store_, r, kPeriod, clocks);
  ASSERT_TRUE(rep.ok()) << rep.error().describe();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ((*rep)["until_ns"], 1500 * kMs);
  EXPECT_DOUBLE_EQ((*rep)["duration_s"].get<double>(), 1.0);
  EXPECT_TRUE(has_note(*rep, "still open")) << rep->dump(2);
  EXPECT_EQ((*rep)["clock_pins"][0]["lease"], 4);
}

TEST_F(RunQueriesOnStore, TimeWithoutReadingsIsNotedWithItsLength) {
  fill(0, 3000, 1000, 2000);  // energyd down for a second
  RunRecord r = run("gappy", 500, 2500, RunState::kStopped);
  auto rep = show_run(*store_, r, kPeriod, nullptr);
  ASSERT_TRUE(rep.ok());
  EXPECT_EQ((*rep)["total"]["largest_gap_ns"], 1100 * kMs);
  EXPECT_TRUE(has_note(*rep, "1.100 s of the run had no readings")) << rep->dump(2);
  RunRecord clean = run("clean", 2000, 3000, RunState::kStopped);
  auto ok = show_run(*store_, clean, kPeriod, nullptr);
  ASSERT_TRUE(ok.ok());
  EXPECT_FALSE(ok->contains("notes")) << ok->dump(2);
}

// A run stored by an energyd that did not record its period.
TEST_F(RunQueriesOnStore, ARunWithoutARecordedPeriodIsJudgedByTodaysAndSaysSo) {
  fill(0, 3000);
  RunRecord r = run("older", 500, 2500, RunState::kStopped);
  ASSERT_TRUE(store_->runs().set_tags(r.id, "{}").ok());
  r = **store_->runs().by_id(r.id);
  auto rep = show_run(*store_, r, kPeriod, nullptr);
  ASSERT_TRUE(rep.ok());
  EXPECT_FALSE((*rep)["quality"]["period_recorded"].get<bool>());
  EXPECT_DOUBLE_EQ((*rep)["quality"]["period_ms"].get<double>(), 100.0);
  EXPECT_TRUE(has_note(*rep, "no recorded sampling period")) << rep->dump(2);
}

TEST_F(RunQueriesOnStore, StoredClocksComeBackAndARunWithoutReadingsIsAnError) {
  fill(1000, 2000);
  RunRecord r = run("clocked", 1000, 2000, RunState::kStopped);
  ASSERT_TRUE(store_->runs().set_clocks(r.id, R"({"clock_pins":[{"lease":7}],"clock_events":[]})").ok());
  r = **store_->runs().by_id(r.id);
  auto rep = show_run(*store_, r, kPeriod, nullptr);
  ASSERT_TRUE(rep.ok());
  EXPECT_EQ((*rep)["clock_pins"][0]["lease"], 7);
  RunRecord early = run("before-data", 0, 500, RunState::kStopped);
  auto none = show_run(*store_, early, kPeriod, nullptr);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, ErrorCode::kNotFound);
  EXPECT_NE(none.error().message.find("no power readings"), std::string::npos);
}

TEST_F(RunQueriesOnStore, RunsAreFoundByIdOrNewestNameAndDigitsFallBackToNames) {
  RunRecord a = run("same", 0, 10, RunState::kStopped);
  RunRecord b = run("same", 20, 30, RunState::kStopped);
  RunRecord digits = run("2024", 40, 50, RunState::kStopped);
  EXPECT_EQ(resolve_run(*store_, RunRef{a.id, ""})->id, a.id);
  EXPECT_EQ(resolve_run(*store_, RunRef{std::nullopt, "same"})->id, b.id);
  EXPECT_EQ(resolve_run(*store_, RunRef{2024, "2024"})->id, digits.id) << "no run 2024: the name";
  auto missing = resolve_run(*store_, RunRef{99, ""});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
  EXPECT_NE(missing.error().message.find("no run numbered 99"), std::string::npos);
}

TEST_F(RunQueriesOnStore, ListingsPageWithNextBeforeId) {
  std::vector<int64_t> ids;
  ids.reserve(5);
  for (int64_t i = 0; i < 5; ++i) ids.push_back(run("r", i * 10, i * 10 + 5, RunState::kStopped).id);
  RunFilter f;
  f.limit = 2;
  auto first = list_runs(*store_, f);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ((*first)["runs"][0]["id"], ids[4]);
  EXPECT_EQ((*first)["next_before_id"], ids[3]);
  f.before_id = ids[1];
  auto last = list_runs(*store_, f);
  ASSERT_TRUE(last.ok());
  ASSERT_EQ((*last)["runs"].size(), 1u);
  EXPECT_FALSE(last->contains("next_before_id"));
  EXPECT_TRUE((*last)["runs"][0]["summary"]["energy_j"].is_null()) << "no readings: unknown, never 0 J";
}

// A page is JSON text (export_rows.h); parsed here as a client would.
Result<nlohmann::json> parsed(const Result<std::string>& page) {
  if (!page) return page.error();
  auto j = nlohmann::json::parse(*page, nullptr, false);
  if (j.is_discarded()) return make_error(ErrorCode::kInternal, "a page that is not JSON: " + page->substr(0, 200));
  return j;
}

TEST_F(RunQueriesOnStore, ARunsExportHasItsReadingsAndPagesOnWholeSweeps) {
  fill(0, 2000);
  RunRecord r = run("exported", 450, 1550, RunState::kStopped);
  auto page = parsed(run_export_page(*store_, RunExportArgs{r.id, std::nullopt, ""}, 4));
  ASSERT_TRUE(page.ok()) << page.error().describe();
  EXPECT_EQ((*page)["run"], r.id);
  EXPECT_TRUE((*page)["truncated"].get<bool>());
  ASSERT_EQ((*page)["rows"].size(), 4u);
  EXPECT_EQ((*page)["rows"][0]["t_ns"], 500 * kMs);
  int64_t next = (*page)["next_since_ns"];
  EXPECT_EQ(next, 900 * kMs);
  size_t total = (*page)["rows"].size();
  while ((*page)["truncated"].get<bool>()) {
    page = parsed(run_export_page(*store_, RunExportArgs{r.id, next, ""}, 4));
    ASSERT_TRUE(page.ok()) << page.error().describe();
    total += (*page)["rows"].size();
    if ((*page)["truncated"].get<bool>()) next = (*page)["next_since_ns"];
  }
  EXPECT_FALSE(page->contains("next_since_ns")) << "the last page says where no next one starts";
  EXPECT_EQ(total, 11u) << "500..1500 ms";
  auto missing = run_export_page(*store_, RunExportArgs{999, std::nullopt, ""}, 4);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
}

}  // namespace
}  // namespace energy::daemon
