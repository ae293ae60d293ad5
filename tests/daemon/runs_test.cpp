// RunManager driven directly: a real Sampler on a static board, a real
// StorageWriter on a temporary database and a Poster on an sd-event loop
// that the test turns. Covers opening and stopping runs (by id and by name),
// ownership, tags merged at stop, a stop already in progress, adopted runs,
// the hooks, the run's clocks stored with the stop, and merge_run_tags.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <optional>
#include <thread>

#include "run_manager.h"
#include "static_board.h"
#include "store_session.h"

namespace energy::daemon {
namespace {

using core_test::open_test_session;
using nlohmann::json;
using std::chrono::milliseconds;

class RunManagerTest : public StaticBoardTest {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(make_board("jetson-orin-nano", 36));
    rails_ = discover_rails(*root_).rails;
    ASSERT_FALSE(rails_.empty());
    path_ = dir_ + "/energy.db";
    WriterOptions o;
    o.flush_interval = milliseconds(3'600'000);  // only marks and stop commit
    writer_ = std::make_unique<StorageWriter>([this] { return open_test_session(path_, rails_); },
                                              [](const std::vector<RunRecord>&) {}, o);
    ASSERT_TRUE(writer_->open_now().has_value());
    writer_->start();
    sampler_ = std::make_unique<Sampler>(*root_, rails_, milliseconds(60'000), milliseconds(5000), clock_, *writer_);
    ASSERT_TRUE(sampler_->start().ok());
    sd_event* e = nullptr;
    ASSERT_GE(sd_event_new(&e), 0);
    loop_.reset(e);
    ASSERT_TRUE(poster_.attach(loop_.get()).ok());
    runs_ = make_manager();
  }
  void TearDown() override {
    runs_.reset();
    if (sampler_) sampler_->stop();
    if (writer_) writer_->stop();
    reader_.reset();
    StaticBoardTest::TearDown();
  }
  std::unique_ptr<RunManager> make_manager() {
    return std::make_unique<RunManager>(
        *sampler_, *writer_, poster_, [this] { return reader(); }, kNsPerSec);
  }
  Result<Store*> reader() {
    if (!reader_) {
      auto r = Store::open(path_, StoreRole::kReader, 1000);
      if (!r) return r.take_error();
      reader_ = std::move(r).value();
    }
    return reader_.get();
  }
  // Turns the loop until `done` holds (each turn waits at most 100 ms, 10 s in all).
  template <typename T>
  void turn_until(const std::optional<T>& done) {
    for (int i = 0; i < 100 && !done; ++i) ASSERT_GE(sd_event_run(loop_.get(), 100'000), 0);
    ASSERT_TRUE(done.has_value()) << "no completion within 10 s";
  }
  Result<RunRecord> start(RunManager& m, const std::string& name, const json& tags = json::object(),
                          std::optional<double> items = std::nullopt) {
    std::optional<Result<RunRecord>> out;
    m.start(name, tags, items, [&](Result<RunRecord> r) { out = std::move(r); });
    turn_until(out);
    return out ? std::move(*out) : Result<RunRecord>(make_error(ErrorCode::kState, "no completion"));
  }
  Result<json> stop(RunManager& m, const std::string& run, Caller caller = Caller{0, true},
                    const json& tags = json::object(), std::optional<double> items = std::nullopt,
                    std::optional<CommandSpan> command = std::nullopt) {
    std::optional<Result<json>> out;
    m.stop(StopRequest{run, tags, caller, items, command}, [&](Result<json> r) { out = std::move(r); });
    turn_until(out);
    return out ? std::move(*out) : Result<json>(make_error(ErrorCode::kState, "no completion"));
  }
  std::optional<RunRecord> stored(int64_t id) {
    auto r = reader();
    if (!r) return std::nullopt;
    auto rec = (*r)->runs().by_id(id);
    return rec ? *rec : std::nullopt;
  }

  std::vector<RailInfo> rails_;
  std::string path_;
  SystemClock clock_;
  std::unique_ptr<StorageWriter> writer_;
  std::unique_ptr<Sampler> sampler_;
  EventPtr loop_;
  Poster poster_;
  std::unique_ptr<Store> reader_;
  std::unique_ptr<RunManager> runs_;
};

TEST_F(RunManagerTest, StartOpensARunAtAFreshSampleAndStopClosesItWithAReport) {
  int marks = 0;
  std::vector<int64_t> stopped;
  runs_->set_start_hook([&] { ++marks; });
  runs_->set_stop_hook([&](const std::function<void()>& then) {
    ++marks;
    then();
  });
  runs_->set_stopped_hook([&](int64_t id) { stopped.push_back(id); });
  int64_t before = to_stored_ns(clock_.boot_ns());
  auto rec = start(*runs_, "train", json{{"model", "resnet"}});
  ASSERT_TRUE(rec.ok()) << rec.error().describe();
  EXPECT_GT(rec->id, 0);
  EXPECT_EQ(rec->name, "train");
  EXPECT_GE(rec->start_ns, before);  // a sample taken for the mark, not the last tick's
  EXPECT_EQ(rec->start_ns % 1000, 0);
  EXPECT_EQ(json::parse(rec->tags_json), (json{{"model", "resnet"}}));
  ASSERT_EQ(runs_->open_runs().size(), 1u);
  auto in_store = stored(rec->id);
  ASSERT_TRUE(in_store.has_value());  // acknowledged only once stored
  EXPECT_EQ(in_store->state, RunState::kOpen);
  auto report = stop(*runs_, "train");
  ASSERT_TRUE(report.ok()) << report.error().describe();
  EXPECT_TRUE(report->is_object());
  EXPECT_TRUE(runs_->open_runs().empty());
  EXPECT_EQ(stopped, std::vector<int64_t>{rec->id});
  EXPECT_EQ(marks, 2);
  in_store = stored(rec->id);
  ASSERT_TRUE(in_store.has_value());
  EXPECT_EQ(in_store->state, RunState::kStopped);
  ASSERT_TRUE(in_store->stop_ns.has_value());
  EXPECT_GE(*in_store->stop_ns, rec->start_ns);
}

// A stop is stored only once its sample was taken and the stop hook's
// continuation came (the daemon's: once the stop's context poll is with the
// writer), so that poll's rows are in the stop's transaction; its time is
// still its sample's.
TEST_F(RunManagerTest, AStopIsStoredOnlyOnceTheStopHooksContinuationCame) {
  std::function<void()> held;
  runs_->set_stop_hook([&](std::function<void()> then) { held = std::move(then); });
  auto rec = start(*runs_, "held");
  ASSERT_TRUE(rec.ok()) << rec.error().describe();
  std::optional<Result<json>> out;
  runs_->stop(StopRequest{"held", json::object(), Caller{0, true}, std::nullopt, std::nullopt},
              [&](Result<json> r) { out = std::move(r); });
  ASSERT_TRUE(held);
  for (int i = 0; i < 5; ++i) ASSERT_GE(sd_event_run(loop_.get(), 100'000), 0);
  EXPECT_FALSE(out.has_value()) << "the stop completed without its continuation";
  auto in_store = stored(rec->id);
  ASSERT_TRUE(in_store.has_value());
  EXPECT_EQ(in_store->state, RunState::kOpen);
  int64_t released = to_stored_ns(clock_.boot_ns());
  std::thread poller([&] { held(); });  // the continuation comes on another thread
  poller.join();
  turn_until(out);
  ASSERT_TRUE(out->ok()) << out->error().describe();
  in_store = stored(rec->id);
  ASSERT_TRUE(in_store.has_value());
  EXPECT_EQ(in_store->state, RunState::kStopped);
  ASSERT_TRUE(in_store->stop_ns.has_value());
  EXPECT_LT(*in_store->stop_ns, released) << "the stop's time is its sample's, taken before the wait";
}

// Issue 15: the start moves to a sample taken as mark.start replies (the
// commit before it is outside the run), and a stop with the command's span
// makes the run that span; both are stored with the stop.
TEST_F(RunManagerTest, TheRunStartsAtTheReplyAndBecomesTheCommandsSpan) {
  auto rec = start(*runs_, "span");
  ASSERT_TRUE(rec.ok()) << rec.error().describe();
  std::optional<Result<RunRecord>> moved;
  int64_t before_reply = to_stored_ns(clock_.boot_ns());
  runs_->start_at_reply(rec->id, [&](Result<RunRecord> r) { moved = std::move(r); });
  turn_until(moved);
  ASSERT_TRUE(moved->ok()) << moved->error().describe();
  EXPECT_GE((*moved)->start_ns, before_reply) << "a sample taken for the reply";
  EXPECT_GT((*moved)->start_wall_ns, rec->start_wall_ns);
  EXPECT_EQ(stored(rec->id)->start_ns, rec->start_ns) << "no write until the stop";
  int64_t cmd_start = (*moved)->start_ns + 2'000'000;
  std::this_thread::sleep_for(milliseconds(5));
  int64_t cmd_end = to_stored_ns(clock_.boot_ns());
  auto early =
      stop(*runs_, "span", Caller{0, true}, json::object(), std::nullopt, CommandSpan{(*moved)->start_ns - 1, cmd_end});
  ASSERT_FALSE(early.ok());
  EXPECT_NE(early.error().message.find("is before the run's start"), std::string::npos) << early.error().message;
  auto future = stop(*runs_, "span", Caller{0, true}, json::object(), std::nullopt,
                     CommandSpan{cmd_start, cmd_end + 3'600 * kNsPerSec});
  ASSERT_FALSE(future.ok());
  EXPECT_NE(future.error().message.find("is in the future"), std::string::npos) << future.error().message;
  ASSERT_EQ(runs_->open_runs().size(), 1u) << "a refused stop leaves the run open";
  auto report = stop(*runs_, "span", Caller{0, true}, json::object(), std::nullopt, CommandSpan{cmd_start, cmd_end});
  ASSERT_TRUE(report.ok()) << report.error().describe();
  auto in_store = stored(rec->id);
  ASSERT_TRUE(in_store.has_value());
  EXPECT_EQ(in_store->start_ns, cmd_start);
  EXPECT_EQ(in_store->stop_ns, cmd_end);
  EXPECT_EQ(in_store->start_wall_ns - (*moved)->start_wall_ns, cmd_start - (*moved)->start_ns);
  EXPECT_EQ((*report)["run"]["start_ns"], cmd_start);
}

// Issue 15: the item count is stored with the run (the stop's replaces the
// start's) and the report gives energy per item.
TEST_F(RunManagerTest, ItemsAreStoredWithTheRunAndTheReportGivesEnergyPerItem) {
  auto rec = start(*runs_, "batch", json::object(), 8.0);
  ASSERT_TRUE(rec.ok()) << rec.error().describe();
  EXPECT_EQ(stored(rec->id)->items, 8.0);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  auto report = stop(*runs_, "batch", Caller{0, true}, json::object(), 32.0);
  ASSERT_TRUE(report.ok()) << report.error().describe();
  EXPECT_EQ((*report)["run"]["items"], 32.0);
  double energy = (*report)["total"]["energy_j"].get<double>();
  ASSERT_GT(energy, 0.0);
  EXPECT_DOUBLE_EQ((*report)["total"]["energy_per_item_j"].get<double>(), energy / 32.0);
  EXPECT_EQ(stored(rec->id)->items, 32.0);
  auto plain = start(*runs_, "no-items");
  ASSERT_TRUE(plain.ok());
  auto unchanged = stop(*runs_, "no-items");
  ASSERT_TRUE(unchanged.ok());
  EXPECT_FALSE((*unchanged)["run"].contains("items"));
  EXPECT_FALSE((*unchanged)["total"].contains("energy_per_item_j"));
}

TEST_F(RunManagerTest, StopNamesARunByIdOrByItsName) {
  auto a = start(*runs_, "a");
  auto b = start(*runs_, "b");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE(stop(*runs_, std::to_string(b->id)).ok());
  EXPECT_TRUE(stop(*runs_, "a").ok());
  EXPECT_TRUE(runs_->open_runs().empty());
}

TEST_F(RunManagerTest, UnknownAndStoppedRunsAreNamedInTheError) {
  auto unknown = stop(*runs_, "nope");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, ErrorCode::kNotFound);
  EXPECT_NE(unknown.error().describe().find("'nope'"), std::string::npos);
  auto a = start(*runs_, "done-already");
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(stop(*runs_, "done-already").ok());
  auto again = stop(*runs_, std::to_string(a->id));
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, ErrorCode::kState);
  EXPECT_NE(again.error().describe().find("already stopped"), std::string::npos) << again.error().describe();
}

TEST_F(RunManagerTest, ANameSharedByTwoOpenRunsMustBeStoppedById) {
  auto first = start(*runs_, "same");
  auto second = start(*runs_, "same");
  ASSERT_TRUE(first.ok() && second.ok());
  auto ambiguous = stop(*runs_, "same");
  ASSERT_FALSE(ambiguous.ok());
  EXPECT_EQ(ambiguous.error().code, ErrorCode::kState);
  std::string text = ambiguous.error().describe();
  EXPECT_NE(text.find(std::to_string(first->id)), std::string::npos) << text;
  EXPECT_NE(text.find(std::to_string(second->id)), std::string::npos) << text;
  EXPECT_EQ(runs_->open_runs().size(), 2u);
  ASSERT_TRUE(stop(*runs_, std::to_string(first->id)).ok());
  auto rest = runs_->open_run("same");  // now unambiguous
  ASSERT_TRUE(rest.ok());
  EXPECT_EQ(rest->id, second->id);
}

TEST_F(RunManagerTest, OnlyTheOwnerOrAnAdminMayStopARun) {
  auto mine = start(*runs_, "owned", json{{kRunOwnerTag, "1000"}});
  ASSERT_TRUE(mine.ok());
  auto denied = stop(*runs_, "owned", Caller{2000, false});
  ASSERT_FALSE(denied.ok());
  EXPECT_EQ(denied.error().code, ErrorCode::kDenied);
  EXPECT_EQ(runs_->open_runs().size(), 1u);
  EXPECT_TRUE(stop(*runs_, "owned", Caller{1000, false}).ok());
  auto other = start(*runs_, "owned-too", json{{kRunOwnerTag, "1000"}});
  ASSERT_TRUE(other.ok());
  EXPECT_TRUE(stop(*runs_, "owned-too", Caller{0, true}).ok());
}

TEST_F(RunManagerTest, StopTagsAreMergedIntoTheStoredRunAndTooManyRefuseTheStop) {
  auto rec = start(*runs_, "tagged", json{{"a", "1"}, {"keep", "x"}});
  ASSERT_TRUE(rec.ok());
  json too_many = json::object();
  for (size_t i = 0; i < kMaxRunTags; ++i) too_many["t" + std::to_string(i)] = "v";
  auto refused = stop(*runs_, "tagged", Caller{0, true}, too_many);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kInvalid);
  EXPECT_EQ(runs_->open_runs().size(), 1u);  // nothing was stopped, and it can be stopped again
  ASSERT_TRUE(stop(*runs_, "tagged", Caller{0, true}, json{{"a", "3"}, {"b", "2"}}).ok());
  auto in_store = stored(rec->id);
  ASSERT_TRUE(in_store.has_value());
  // energyd's derived tags (the verdict, written after the stop) may or may not be there yet.
  json tags = json::parse(in_store->tags_json);
  for (auto it = tags.begin(); it != tags.end();) it = it.key().rfind("energyd.", 0) == 0 ? tags.erase(it) : ++it;
  EXPECT_EQ(tags, (json{{"a", "3"}, {"b", "2"}, {"keep", "x"}}));
}

TEST_F(RunManagerTest, ASecondStopWhileTheFirstIsInFlightIsRefused) {
  auto rec = start(*runs_, "busy");
  ASSERT_TRUE(rec.ok());
  std::optional<Result<json>> first;
  std::optional<Result<json>> second;
  runs_->stop(StopRequest{"busy", json::object(), Caller{0, true}, std::nullopt, std::nullopt},
              [&](Result<json> r) { first = std::move(r); });
  runs_->stop(StopRequest{"busy", json::object(), Caller{0, true}, std::nullopt, std::nullopt},
              [&](Result<json> r) { second = std::move(r); });
  ASSERT_TRUE(second.has_value());  // answered at once, before the loop turns
  ASSERT_FALSE(second->ok());
  EXPECT_EQ(second->error().code, ErrorCode::kState);
  EXPECT_NE(second->error().describe().find("already being stopped"), std::string::npos);
  turn_until(first);
  EXPECT_TRUE(first->ok());
}

TEST_F(RunManagerTest, AdoptedRunsContinueAndCanBeStopped) {
  auto rec = start(*runs_, "survivor");
  ASSERT_TRUE(rec.ok());
  auto next = make_manager();  // a restarted daemon's manager
  EXPECT_TRUE(next->open_runs().empty());
  next->adopt(runs_->open_runs());
  ASSERT_EQ(next->open_runs().size(), 1u);
  EXPECT_TRUE(stop(*next, "survivor").ok());
  EXPECT_EQ(stored(rec->id)->state, RunState::kStopped);
}

TEST_F(RunManagerTest, TheRunsClocksAreStoredWithTheStopAndInTheReport) {
  std::vector<int64_t> asked;
  runs_->set_clocks_source([&](int64_t id, int64_t, int64_t) {
    asked.push_back(id);
    return json{{"clock_pins", json::array({json{{"domain", "gpu"}}})}, {"clock_events", json::array()}};
  });
  auto rec = start(*runs_, "clocked");
  ASSERT_TRUE(rec.ok());
  auto report = stop(*runs_, "clocked");
  ASSERT_TRUE(report.ok()) << report.error().describe();
  EXPECT_EQ(asked, std::vector<int64_t>{rec->id});
  ASSERT_TRUE(report->contains("clock_pins")) << report->dump();
  EXPECT_EQ((*report)["clock_pins"][0]["domain"], "gpu");
  auto in_store = stored(rec->id);
  ASSERT_TRUE(in_store.has_value() && in_store->clocks_json.has_value());
  EXPECT_EQ(json::parse(*in_store->clocks_json)["clock_pins"][0]["domain"], "gpu");
}

TEST(MergeRunTagsTest, ExtraTagsWinAndTheCountIsBounded) {
  auto merged = merge_run_tags(R"({"a":"1","b":"2"})", json{{"b", "3"}, {"c", "4"}});
  ASSERT_TRUE(merged.ok());
  EXPECT_EQ(json::parse(*merged), (json{{"a", "1"}, {"b", "3"}, {"c", "4"}}));
  auto broken = merge_run_tags("not json", json{{"x", "1"}});  // stored tags unreadable: only the new ones
  ASSERT_TRUE(broken.ok());
  EXPECT_EQ(json::parse(*broken), (json{{"x", "1"}}));
  json full = json::object();
  for (size_t i = 0; i < kMaxRunTags; ++i) full["k" + std::to_string(i)] = "v";
  EXPECT_TRUE(merge_run_tags("{}", full).ok());
  auto over = merge_run_tags(R"({"one":"more"})", full);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().code, ErrorCode::kInvalid);
  EXPECT_NE(over.error().describe().find(std::to_string(kMaxRunTags + 1)), std::string::npos);
}

}  // namespace
}  // namespace energy::daemon
