// PinEngine driven directly on a static simulator-built board tree with a
// journal in its temporary directory and a clock the test sets: pins are
// written, read back and journaled; every way a lease ends (connection,
// run, expiry, unpin, restart) puts the saved values back and removes its
// record; a restore that fails keeps the lease as `releasing` until a tick
// succeeds; other writers are reported once, not fought.
#include "pin_engine.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <optional>

#include "energy/lease_journal.h"
#include "pin_manager.h"
#include "static_board.h"

namespace energy::daemon {
namespace {

using nlohmann::json;

class SetClock : public Clock {
 public:
  int64_t boot_ns() const override { return boot_; }
  int64_t mono_ns() const override { return boot_; }
  int64_t wall_ns() const override { return 1'700'000'000 * kNsPerSec + boot_; }
  void set_boot(int64_t ns) { boot_ = ns; }

 private:
  std::atomic<int64_t> boot_{100 * kNsPerSec};
};

class PinEngineTest : public StaticBoardTest {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(make_board("jetson-orin-nano", 36));
    clocks_ = discover_clocks(*root_);
    for (const auto& d : clocks_.domains) {
      if (d.kind == DomainKind::kGpu && d.writable && gpu_.empty()) gpu_ = d.name;
      if (d.kind == DomainKind::kCpu && d.writable && cpu_.empty()) cpu_ = d.name;
    }
    ASSERT_FALSE(gpu_.empty());
    ASSERT_FALSE(cpu_.empty());
    journal_ = dir_ + "/clock-leases.json";
    engine_ = make_engine();
  }
  std::unique_ptr<PinEngine> make_engine() {
    return std::make_unique<PinEngine>(*root_, clocks_, clock_, journal_, events_);
  }
  // A pin of `domain` to its lowest listed frequency.
  static PinOrder lowest(const std::string& domain, LeaseKind kind = LeaseKind::kConnection) {
    PinOrder o;
    o.requests.push_back(PinRequest{
        domain, FreqRange{FreqBound{FreqBound::Kind::kLowest, 0}, FreqBound{FreqBound::Kind::kLowest, 0}}, ""});
    o.kind = kind;
    o.connection = 7;
    o.run_id = 5;
    o.duration_ns = 5 * kNsPerSec;
    o.owner_uid = 1000;
    return o;
  }
  const ClockDomain& domain(const std::string& name) const {
    for (const auto& d : clocks_.domains) {
      if (d.name == name) return d;
    }
    return clocks_.domains.front();
  }
  DomainState state(const std::string& name) const { return read_domain(*root_, domain(name)); }
  // The files a lease changed, from the engine's snapshot.
  std::vector<std::string> lease_files(size_t lease_index = 0) const {
    std::vector<std::string> out;
    auto snap = engine_->snapshot();
    for (const auto& d : snap["leases"][lease_index]["domains"]) {
      for (const auto& f : d["files"]) out.push_back(f["path"].get<std::string>());
    }
    return out;
  }
  std::string host(const std::string& board_path) const { return root_->resolve(board_path).value_or(""); }
  size_t journaled() const {
    auto j = load_journal(journal_);
    return j ? j->leases.size() : 999;
  }
  std::vector<std::string> event_kinds() const {
    std::vector<std::string> out;
    for (const auto& e : events_.latest(100)) out.push_back(e.kind);
    return out;
  }

  ClockInventory clocks_;
  std::string gpu_;
  std::string cpu_;
  std::string journal_;
  SetClock clock_;
  ClockEventLog events_;
  std::unique_ptr<PinEngine> engine_;
};

TEST_F(PinEngineTest, APinIsJournaledWrittenAndReadBackAndItsConnectionsCloseRestoresIt) {
  DomainState before = state(gpu_);
  int64_t lowest_hz = domain(gpu_).available_hz.front();
  ASSERT_NE(before.max_hz, lowest_hz);  // the pin must change something
  auto pinned = engine_->pin(lowest(gpu_));
  ASSERT_TRUE(pinned.ok()) << pinned.error().describe();
  EXPECT_EQ((*pinned)["domains"][0]["achieved"]["max_hz"], lowest_hz);
  EXPECT_EQ((*pinned)["lease"]["state"], "active");
  EXPECT_EQ(state(gpu_).max_hz, lowest_hz);
  EXPECT_EQ(state(gpu_).min_hz, lowest_hz);
  auto journal = load_journal(journal_);
  ASSERT_TRUE(journal.ok());
  ASSERT_EQ(journal->leases.size(), 1u);
  EXPECT_EQ(journal->leases[0].state, LeaseState::kActive);
  engine_->release_connection(8);  // someone else's connection
  EXPECT_EQ(engine_->lease_count(), 1u);
  engine_->release_connection(7);
  EXPECT_EQ(engine_->lease_count(), 0u);
  EXPECT_EQ(journaled(), 0u);
  EXPECT_EQ(state(gpu_).max_hz, before.max_hz);
  EXPECT_EQ(state(gpu_).min_hz, before.min_hz);
  EXPECT_EQ(event_kinds(), (std::vector<std::string>{"pinned", "restored"}));
}

TEST_F(PinEngineTest, BadOrdersAndConflictsChangeNothing) {
  ASSERT_TRUE(engine_->pin(lowest(gpu_)).ok());
  auto again = engine_->pin(lowest(gpu_));
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, ErrorCode::kState);
  EXPECT_NE(again.error().describe().find("already pinned by lease 1"), std::string::npos) << again.error().describe();
  auto unknown = engine_->pin(lowest("nvdla9"));
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, ErrorCode::kNotFound);
  EXPECT_NE(unknown.error().describe().find(gpu_), std::string::npos);  // lists the board's domains
  PinOrder empty = lowest(cpu_);
  empty.requests.clear();
  EXPECT_EQ(engine_->pin(empty).error().code, ErrorCode::kInvalid);
  PinOrder twice = lowest(cpu_);
  twice.requests.push_back(twice.requests.front());
  EXPECT_EQ(engine_->pin(twice).error().code, ErrorCode::kInvalid);
  EXPECT_EQ(engine_->lease_count(), 1u);
  EXPECT_EQ(journaled(), 1u);
}

TEST_F(PinEngineTest, ARunLeaseEndsWithItsRunOnly) {
  DomainState before = state(cpu_);
  ASSERT_TRUE(engine_->pin(lowest(cpu_, LeaseKind::kRun)).ok());
  engine_->release_connection(7);  // the connection that asked does not hold a run lease
  engine_->release_run(6);
  EXPECT_EQ(engine_->lease_count(), 1u);
  engine_->release_run(5);
  EXPECT_EQ(engine_->lease_count(), 0u);
  EXPECT_EQ(state(cpu_).max_hz, before.max_hz);
  EXPECT_EQ(state(cpu_).min_hz, before.min_hz);
}

// mark.start with `pin`: the lease is pinned before its run exists (run 0),
// survives nothing if energyd dies then, and is tied to the run once it opens.
TEST_F(PinEngineTest, ALeasePinnedBeforeItsRunOpensIsRestoredAtRestartOrTiedToTheRun) {
  DomainState before = state(cpu_);
  PinOrder order = lowest(cpu_, LeaseKind::kRun);
  order.run_id = 0;
  ASSERT_TRUE(engine_->pin(order).ok());
  engine_.reset();  // energyd died between the pin and the run's opening
  auto next = make_engine();
  next->recover({5});
  EXPECT_EQ(next->lease_count(), 0u);
  EXPECT_EQ(state(cpu_).max_hz, before.max_hz);
  auto pinned = next->pin(order);
  ASSERT_TRUE(pinned.ok()) << pinned.error().describe();
  int64_t id = (*pinned)["lease"]["id"].get<int64_t>();
  auto bound = next->bind_to_run(id, 9);
  ASSERT_TRUE(bound.ok()) << bound.error().describe();
  EXPECT_EQ((*bound)["lease"]["run"], 9);
  EXPECT_EQ(load_journal(journal_)->leases.at(0).run_id, 9) << "tied durably";
  EXPECT_EQ(next->bind_to_run(id + 1, 9).error().code, ErrorCode::kState);
  next->release_run(9);
  EXPECT_EQ(next->lease_count(), 0u);
  EXPECT_EQ(state(cpu_).max_hz, before.max_hz);
}

TEST_F(PinEngineTest, ADurationLeaseExpiresAtTheTickAfterItsEnd) {
  DomainState before = state(gpu_);
  ASSERT_TRUE(engine_->pin(lowest(gpu_, LeaseKind::kDuration)).ok());
  clock_.set_boot(104 * kNsPerSec);
  engine_->tick();
  EXPECT_EQ(engine_->lease_count(), 1u);
  clock_.set_boot(105 * kNsPerSec);
  engine_->tick();
  EXPECT_EQ(engine_->lease_count(), 0u);
  EXPECT_EQ(state(gpu_).max_hz, before.max_hz);
}

TEST_F(PinEngineTest, AFailedRestoreKeepsTheLeaseReleasingAndATickRetriesIt) {
  DomainState before = state(gpu_);
  ASSERT_TRUE(engine_->pin(lowest(gpu_)).ok());
  auto files = lease_files();
  ASSERT_FALSE(files.empty());
  std::string victim = host(files.front());
  std::string pinned_text;
  std::getline(std::ifstream(victim), pinned_text);
  std::filesystem::remove(victim);
  std::filesystem::create_directory(victim);  // neither readable nor writable as a file
  engine_->release_connection(7);
  ASSERT_EQ(engine_->lease_count(), 1u);
  EXPECT_EQ(engine_->snapshot()["leases"][0]["state"], "releasing");
  auto journal = load_journal(journal_);
  ASSERT_TRUE(journal.ok() && journal->leases.size() == 1u);
  EXPECT_EQ(journal->leases[0].state, LeaseState::kReleasing);
  EXPECT_EQ(event_kinds().back(), "restore_failed");
  engine_->tick();  // still failing: logged once, kept
  EXPECT_EQ(engine_->lease_count(), 1u);
  std::filesystem::remove(victim);
  std::ofstream(victim) << pinned_text << "\n";
  engine_->tick();
  EXPECT_EQ(engine_->lease_count(), 0u);
  EXPECT_EQ(journaled(), 0u);
  EXPECT_EQ(state(gpu_).max_hz, before.max_hz);
  EXPECT_EQ(state(gpu_).min_hz, before.min_hz);
  auto kinds = event_kinds();
  EXPECT_EQ(std::count(kinds.begin(), kinds.end(), "restore_failed"), 1);
}

TEST_F(PinEngineTest, AnotherWriterIsReportedOnceNotFoughtAndClearedWhenTheValueReturns) {
  ASSERT_TRUE(engine_->pin(lowest(gpu_)).ok());
  std::string path;
  std::string pinned;
  json snap = engine_->snapshot();  // kept: the loop walks into it
  for (const auto& d : snap["leases"][0]["domains"]) {
    for (const auto& f : d["files"]) {
      if (f["role"] == "max") {
        path = f["path"].get<std::string>();
        pinned = f["pinned"].get<std::string>();
      }
    }
  }
  ASSERT_FALSE(path.empty()) << snap.dump();
  std::string other = std::to_string(domain(gpu_).available_hz.back());
  std::ofstream(host(path)) << other << "\n";
  engine_->tick();
  engine_->tick();
  auto kinds = event_kinds();
  EXPECT_EQ(std::count(kinds.begin(), kinds.end(), "external_change"), 1);
  EXPECT_EQ(engine_->snapshot()["leases"][0]["external_changes"], 1);
  EXPECT_EQ(root_->read_text(path).value_or(""), other);  // not written back
  auto e = events_.latest(1).at(0);
  EXPECT_EQ(e.path, path);
  EXPECT_EQ(e.expected, pinned);
  EXPECT_EQ(e.found, other);
  std::ofstream(host(path)) << pinned << "\n";
  engine_->tick();
  EXPECT_EQ(event_kinds().back(), "external_change_cleared");
  EXPECT_EQ(engine_->snapshot()["leases"][0]["external_changes"], 0);
}

TEST_F(PinEngineTest, UnpinChecksEveryIdAndOwnerBeforeReleasingAny) {
  ASSERT_TRUE(engine_->pin(lowest(gpu_)).ok());
  ASSERT_TRUE(engine_->pin(lowest(cpu_)).ok());
  auto unknown = engine_->unpin({1, 99}, Caller{1000, false}, "test");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(engine_->lease_count(), 2u);  // lease 1 was not released either
  auto denied = engine_->unpin({1}, Caller{2000, false}, "test");
  ASSERT_FALSE(denied.ok());
  EXPECT_EQ(denied.error().code, ErrorCode::kDenied);
  auto none = engine_->unpin({}, Caller{2000, false}, "test");  // owns nothing
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE((*none)["released"].empty());
  auto mine = engine_->unpin({}, Caller{1000, false}, "test");
  ASSERT_TRUE(mine.ok());
  EXPECT_EQ((*mine)["released"].size(), 2u);
  EXPECT_EQ(engine_->lease_count(), 0u);
}

TEST_F(PinEngineTest, ARestartKeepsLeasesWithALivingOwnerAndRestoresTheRest) {
  DomainState gpu_before = state(gpu_);
  DomainState cpu_before = state(cpu_);
  ASSERT_TRUE(engine_->pin(lowest(gpu_, LeaseKind::kConnection)).ok());
  ASSERT_TRUE(engine_->pin(lowest(cpu_, LeaseKind::kRun)).ok());
  engine_.reset();  // the daemon died; the clocks stay pinned
  auto next = make_engine();
  next->recover({5});  // run 5 is still open: its lease continues
  EXPECT_EQ(next->lease_count(), 1u);
  EXPECT_EQ(state(gpu_).max_hz, gpu_before.max_hz);  // the connection died with the old daemon
  EXPECT_NE(state(cpu_).max_hz, cpu_before.max_hz);
  auto kinds = event_kinds();
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "adopted"), kinds.end());
  next.reset();
  auto third = make_engine();
  third->recover({});  // run 5 has stopped meanwhile
  EXPECT_EQ(third->lease_count(), 0u);
  EXPECT_EQ(journaled(), 0u);
  EXPECT_EQ(state(cpu_).max_hz, cpu_before.max_hz);
  EXPECT_EQ(state(cpu_).min_hz, cpu_before.min_hz);
}

TEST_F(PinEngineTest, AnUnreadableJournalIsMovedAsideAtStart) {
  std::ofstream(journal_) << "{ not a journal";
  engine_->recover({});
  EXPECT_EQ(engine_->lease_count(), 0u);
  bool aside = false;
  for (const auto& e : std::filesystem::directory_iterator(dir_)) {
    aside = aside || e.path().filename().string().rfind("clock-leases.json.damaged-", 0) == 0;
  }
  EXPECT_TRUE(aside);
  EXPECT_TRUE(engine_->pin(lowest(gpu_)).ok());  // and pinning works on a fresh journal
}

// PinManager: the same engine behind a worker thread, replies on an sd-event
// loop the test turns, and the watch timer.
class PinManagerTest : public PinEngineTest {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(PinEngineTest::SetUp());
    engine_.reset();  // the manager owns its own engine on the same journal
    sd_event* e = nullptr;
    ASSERT_GE(sd_event_new(&e), 0);
    loop_.reset(e);
    ASSERT_TRUE(poster_.attach(loop_.get()).ok());
    manager_ = std::make_unique<PinManager>(loop_.get(), poster_, *root_, clocks_, clock_, journal_);
    ASSERT_TRUE(manager_->start({}, std::chrono::seconds(5)).ok());
  }
  void TearDown() override {
    manager_.reset();
    PinEngineTest::TearDown();
  }
  // Turns the loop (each turn waits at most 100 ms) until `pred` holds, for at most 10 s.
  template <typename Pred>
  bool turn_until(Pred pred) {
    for (int i = 0; i < 100 && !pred(); ++i) {
      if (sd_event_run(loop_.get(), 100'000) < 0) return false;
    }
    return pred();
  }
  Result<json> pin(PinOrder order) {
    std::optional<Result<json>> out;
    manager_->pin(std::move(order), [&](Result<json> r) {
      leases_at_reply_ = manager_->leases_json()["leases"].size();
      out = std::move(r);
    });
    if (!turn_until([&] { return out.has_value(); })) return make_error(ErrorCode::kState, "no reply");
    return std::move(*out);
  }
  size_t leases() const { return manager_->leases_json()["leases"].size(); }

  EventPtr loop_;
  Poster poster_;
  std::unique_ptr<PinManager> manager_;
  size_t leases_at_reply_ = 0;
};

TEST_F(PinManagerTest, APinsReplyComesOnTheLoopAfterTheLeasesViewShowsIt) {
  DomainState before = state(gpu_);
  auto pinned = pin(lowest(gpu_));
  ASSERT_TRUE(pinned.ok()) << pinned.error().describe();
  EXPECT_EQ(leases_at_reply_, 1u);  // a client holding the reply sees its lease
  manager_->connection_closed(8);   // never asked for a lease: nothing happens
  manager_->connection_closed(7);
  EXPECT_TRUE(turn_until([&] { return leases() == 0; }));
  EXPECT_EQ(state(gpu_).max_hz, before.max_hz);
  EXPECT_EQ(journaled(), 0u);
}

TEST_F(PinManagerTest, StopRestoresEveryLease) {
  DomainState gpu_before = state(gpu_);
  DomainState cpu_before = state(cpu_);
  ASSERT_TRUE(pin(lowest(gpu_, LeaseKind::kRun)).ok());
  ASSERT_TRUE(pin(lowest(cpu_, LeaseKind::kDuration)).ok());
  manager_->stop(std::chrono::seconds(5));
  EXPECT_EQ(journaled(), 0u);
  EXPECT_EQ(state(gpu_).max_hz, gpu_before.max_hz);
  EXPECT_EQ(state(cpu_).max_hz, cpu_before.max_hz);
}

TEST_F(PinManagerTest, TheWatchTimerEndsAnExpiredLease) {
  ASSERT_TRUE(pin(lowest(gpu_, LeaseKind::kDuration)).ok());
  clock_.set_boot(200 * kNsPerSec);                        // long past its 5 s
  EXPECT_TRUE(turn_until([&] { return leases() == 0; }));  // within a watch period or two
  EXPECT_EQ(journaled(), 0u);
}

TEST_F(PinManagerTest, ARunLeaseEndsWhenItsRunStops) {
  ASSERT_TRUE(pin(lowest(cpu_, LeaseKind::kRun)).ok());
  manager_->run_stopped(4);
  manager_->run_stopped(5);
  EXPECT_TRUE(turn_until([&] { return leases() == 0; }));
  auto pins = manager_->pins_for_run(5, 0, 300 * kNsPerSec);
  EXPECT_FALSE(pins.empty()) << pins.dump();
}

}  // namespace
}  // namespace energy::daemon
