// Store run queries (store_runs.cpp), a run's readings for export, and run
// summaries from the running energy (run_summary.h).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "../time_units.h"
#include "energy/chunker.h"
#include "energy/report.h"
#include "energy/run_summary.h"
#include "energy/store.h"
#include "temp_store.h"

namespace energy {
namespace {

class StoreRuns : public TempStoreTest {
 protected:
  void SetUp() override {
    TempStoreTest::SetUp();
    if (HasFatalFailure()) return;
    auto b = store_->ensure_boot("boot-a", 0);
    ASSERT_TRUE(b.ok());
    boot_ = *b;
  }

  // A stopped run [start_ms, stop_ms] of `boot` with `tags`, wall = boot time + 1e12 ns.
  int64_t add_run(const std::string& name, const std::string& tags, int64_t start_ms, std::optional<int64_t> stop_ms,
                  int64_t boot = 0) {
    RunRecord r;
    r.name = name;
    r.tags_json = tags;
    r.boot = boot == 0 ? boot_ : boot;
    r.start_ns = start_ms * kMs;
    r.start_wall_ns = r.start_ns + kWallOffset;
    auto id = store_->runs().insert(r);
    EXPECT_TRUE(id.ok());
    if (stop_ms) {
      EXPECT_TRUE(store_->runs().finish(*id, *stop_ms * kMs, *stop_ms * kMs + kWallOffset, RunState::kStopped).ok());
    }
    return *id;
  }

  std::vector<int64_t> ids(const RunFilter& f) {
    auto runs = store_->runs().find(f);
    EXPECT_TRUE(runs.ok()) << runs.error().describe();
    std::vector<int64_t> out;
    for (const auto& r : *runs) out.push_back(r.id);
    return out;
  }

  std::vector<int64_t> rails() {
    auto r = store_->ensure_rails(two_test_rails(3));
    EXPECT_TRUE(r.ok());
    return *r;
  }

  // VDD_IN at `in_uw` and VDD_SOC at 1 W every 100 ms over [from_ms, to_ms], in chunks of 7 sweeps.
  void fill(const std::vector<int64_t>& rail_ids, int64_t from_ms, int64_t to_ms, int64_t in_uw) {
    Chunker chunker(std::vector<ChunkRail>(rail_ids.size(), ChunkRail{0}), 7, {});
    for (int64_t t = from_ms; t <= to_ms; t += 100) {
      chunker.add(Sample{
          t * kMs, t * kMs + kWallOffset, {RailValue{in_uw, 5000, 1000, 0}, RailValue{1'000'000, 5000, 200, 0}}});
    }
    ASSERT_TRUE(store_->begin().ok());
    for (const auto& c : chunker.take_closed()) ASSERT_TRUE(store_->readings().put_chunk(boot_, rail_ids, c).ok());
    ASSERT_TRUE(store_->readings().put_chunk(boot_, rail_ids, chunker.open_chunk()).ok());
    ASSERT_TRUE(store_->commit().ok());
  }

  static constexpr int64_t kWallOffset = 1'000'000'000'000;
  int64_t boot_ = 0;
};

TEST_F(StoreRuns, FindRunsFiltersByNameTagsStateAndStartTimeNewestFirst) {
  int64_t a = add_run("resnet", R"({"batch":"8"})", 0, 100);
  int64_t b = add_run("resnet", R"({"batch":"16"})", 200, 300);
  int64_t c = add_run("yolo", R"({"batch":"16","model":"v8"})", 400, std::nullopt);
  EXPECT_EQ(ids(RunFilter{}), (std::vector<int64_t>{c, b, a}));
  RunFilter by_name;
  by_name.name = "resnet";
  EXPECT_EQ(ids(by_name), (std::vector<int64_t>{b, a}));
  RunFilter by_tag;
  by_tag.tags = {{"batch", "16"}};
  EXPECT_EQ(ids(by_tag), (std::vector<int64_t>{c, b}));
  by_tag.tags["model"] = "v8";
  EXPECT_EQ(ids(by_tag), (std::vector<int64_t>{c})) << "every tag must match";
  RunFilter open;
  open.state = RunState::kOpen;
  EXPECT_EQ(ids(open), (std::vector<int64_t>{c}));
  RunFilter window;
  window.since_wall_ns = 200 * kMs + kWallOffset;
  window.until_wall_ns = 399 * kMs + kWallOffset;
  EXPECT_EQ(ids(window), (std::vector<int64_t>{b})) << "by start time, both edges included";
}

TEST_F(StoreRuns, FindRunsPagesWithBeforeIdAndLimit) {
  std::vector<int64_t> all;
  all.reserve(5);
  for (int64_t i = 0; i < 5; ++i) all.push_back(add_run("r", "{}", i * 10, i * 10 + 5));
  RunFilter page;
  page.limit = 2;
  EXPECT_EQ(ids(page), (std::vector<int64_t>{all[4], all[3]}));
  page.before_id = all[3];
  EXPECT_EQ(ids(page), (std::vector<int64_t>{all[2], all[1]}));
  page.before_id = all[1];
  EXPECT_EQ(ids(page), (std::vector<int64_t>{all[0]}));
}

TEST_F(StoreRuns, TagKeysAndValuesAreMatchedLiterallyNotAsJsonPathsOrSql) {
  int64_t odd = add_run("odd", R"({"a\"b.c[0]":"x' OR '1'='1","n":8})", 0, 10);
  add_run("plain", R"({"a":"x"})", 20, 30);
  RunFilter f;
  f.tags = {{"a\"b.c[0]", "x' OR '1'='1"}};
  EXPECT_EQ(ids(f), (std::vector<int64_t>{odd}));
  f.tags = {{"a", "x' OR '1'='1"}};
  EXPECT_TRUE(ids(f).empty());
  f.tags = {{"n", "8"}};
  EXPECT_EQ(ids(f), (std::vector<int64_t>{odd})) << "a number stored by an old client matches its text";
}

TEST_F(StoreRuns, NewestRunNamedAndTagsRewrittenWithTheStop) {
  add_run("same", "{}", 0, 10);
  int64_t newer = add_run("same", R"({"k":"v"})", 20, 30);
  auto found = store_->runs().newest_named("same");
  ASSERT_TRUE(found.ok() && found->has_value());
  EXPECT_EQ((*found)->id, newer);
  ASSERT_TRUE(store_->runs().set_tags(newer, R"({"k":"v","exit_status":"3"})").ok());
  auto again = store_->runs().by_id(newer);
  ASSERT_TRUE(again.ok() && again->has_value());
  EXPECT_EQ((*again)->tags_json, R"({"k":"v","exit_status":"3"})");
  auto none = store_->runs().newest_named("other");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

TEST_F(StoreRuns, LatestTaggedBeforeTakesTheNewestThatEndedBeforeTheRunOwnBootFirst) {
  auto other_boot = store_->ensure_boot("boot-b", 0);
  ASSERT_TRUE(other_boot.ok());
  const std::string tags = R"({"energyd.kind":"baseline"})";
  int64_t early = add_run("bl", tags, 0, 100);
  int64_t late = add_run("bl", tags, 200, 300);
  add_run("bl-open", tags, 350, std::nullopt);            // not stopped
  add_run("bl-after", tags, 500, 600);                    // ends after the run starts
  add_run("not-bl", "{}", 310, 320);                      // no tag
  add_run("bl-other-boot", tags, 900, 950, *other_boot);  // another boot, wall-clock later
  RunRecord run;
  run.id = 999;
  run.boot = boot_;
  run.start_ns = 400 * kMs;
  run.start_wall_ns = 400 * kMs + kWallOffset;
  auto found = store_->runs().latest_tagged_before(run, "energyd.kind", "baseline");
  ASSERT_TRUE(found.ok() && found->has_value());
  EXPECT_EQ((*found)->id, late);
  run.start_ns = 150 * kMs;
  run.start_wall_ns = 150 * kMs + kWallOffset;
  found = store_->runs().latest_tagged_before(run, "energyd.kind", "baseline");
  ASSERT_TRUE(found.ok() && found->has_value());
  EXPECT_EQ((*found)->id, early);
  RunRecord fresh_boot;
  fresh_boot.boot = 12345;  // a boot with no baseline: the newest of other boots by wall clock
  fresh_boot.start_ns = 1;
  fresh_boot.start_wall_ns = 2000 * kMs + kWallOffset;
  found = store_->runs().latest_tagged_before(fresh_boot, "energyd.kind", "baseline");
  ASSERT_TRUE(found.ok() && found->has_value());
  EXPECT_EQ((*found)->name, "bl-other-boot");
}

TEST_F(StoreRuns, RunsOverlappingAWindowIncludeOpenRunsButNotTheRunItself) {
  int64_t me = add_run("me", "{}", 100, 200);
  int64_t before = add_run("before", "{}", 0, 100);  // ends exactly at the start: not open during it
  int64_t inside = add_run("inside", "{}", 120, 130);
  int64_t open = add_run("open", "{}", 50, std::nullopt);
  add_run("after", "{}", 200, 300);
  auto runs = store_->runs().overlapping(boot_, EnergyWindow{100 * kMs, 200 * kMs}, me);
  ASSERT_TRUE(runs.ok());
  std::vector<int64_t> got;
  for (const auto& r : *runs) got.push_back(r.id);
  EXPECT_EQ(got, (std::vector<int64_t>{inside, open}));
  (void)before;
}

TEST_F(StoreRuns, ExportOfABootWindowReturnsWholeChunksInTimeOrder) {
  auto rail_ids = rails();
  fill(rail_ids, 0, 2000, 5'000'000);  // 21 sweeps: chunks of 7
  auto all = store_->readings().export_boot_readings(boot_, EnergyWindow{300 * kMs, 1500 * kMs}, "", 1000);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 2u * 13u);  // 300..1500 ms inclusive, both rails
  EXPECT_EQ(all->front().t_ns, 300 * kMs);
  EXPECT_EQ(all->back().t_ns, 1500 * kMs);
  for (size_t i = 1; i < all->size(); ++i) EXPECT_LE((*all)[i - 1].t_ns, (*all)[i].t_ns);
  auto page = store_->readings().export_boot_readings(boot_, EnergyWindow{0, 2000 * kMs}, "", 5);
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->size(), 14u) << "the first chunk whole (7 sweeps x 2 rails), nothing of the next";
  auto one = store_->readings().export_boot_readings(boot_, EnergyWindow{0, 2000 * kMs}, "VDD_SOC", 1000);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->size(), 21u);
  for (const auto& r : *one) EXPECT_EQ(r.rail, "VDD_SOC");
}

TEST_F(StoreRuns, SummaryEnergyEqualsTheReportsTotal) {
  auto rail_ids = rails();
  fill(rail_ids, 0, 2000, 5'000'000);
  int64_t id = add_run("sum", "{}", 250, 1750);
  auto run = store_->runs().by_id(id);
  ASSERT_TRUE(run.ok() && run->has_value());
  auto total = total_stored_rails(*store_);
  ASSERT_TRUE(total.ok());
  ASSERT_EQ(total->size(), 1u);
  EXPECT_EQ(total->front().id, rail_ids[0]) << "VDD_IN alone is the module total";
  auto s = summarize_run(*store_, **run, 1750 * kMs, *total);
  ASSERT_TRUE(s.ok());
  auto rep = build_run_report(*store_, **run, 1750 * kMs, 250 * kMs);
  ASSERT_TRUE(rep.ok());
  ASSERT_TRUE(s->energy_j.has_value());
  EXPECT_NEAR(*s->energy_j, rep->total.energy_uj / 1e6, 1e-9);
  EXPECT_NEAR(*s->energy_j, 7.5, 1e-6);
  EXPECT_DOUBLE_EQ(s->duration_s, 1.5);
  EXPECT_NEAR(*s->avg_power_w, 5.0, 1e-6);
  auto outside = summarize_run(*store_, **run, 9000 * kMs, *total);
  ASSERT_TRUE(outside.ok());
  EXPECT_FALSE(outside->energy_j.has_value()) << "an edge past the stored readings is unknown, not 0 J";
  EXPECT_TRUE(run_summary_json(*outside)["energy_j"].is_null());
}

}  // namespace
}  // namespace energy
