#include "pin_manager.h"

#include <future>

#include <spdlog/spdlog.h>

namespace energy::daemon {
namespace {

using nlohmann::json;

constexpr uint64_t kTimerAccuracyUs = 50000;

std::set<int64_t> live_leases(const json& snapshot) {
  std::set<int64_t> ids;
  for (const auto& l : snapshot["leases"]) ids.insert(l.value("id", int64_t{0}));
  return ids;
}

// After every task: the leases view, and the release time of leases that left the journal.
void publish(PinEngine& engine, PinHistory& history, const Clock& clock, std::mutex& mu, json& snapshot) {
  json s = engine.snapshot();
  history.sync(live_leases(s), clock.boot_ns());
  std::lock_guard<std::mutex> lock(mu);
  snapshot = std::move(s);
}

}  // namespace

PinManager::PinManager(sd_event* loop, Poster& poster, const SysRoot& root, const ClockInventory& clocks,
                       const Clock& clock, std::string journal_path)
    : loop_(loop),
      poster_(poster),
      clock_(clock),
      shared_(std::make_shared<Shared>()),
      engine_(std::make_shared<PinEngine>(root, clocks, clock, std::move(journal_path), shared_->events)) {
  shared_->snapshot = {{"leases", json::array()}, {"events", json::array()}};
}

PinManager::~PinManager() {
  shared_->closed = true;
  timer_.reset();
}

void PinManager::run(std::function<Reply(PinEngine&)> task) {
  worker_.post([this, engine = engine_, shared = shared_, clock = &clock_, poster = &poster_, task = std::move(task)] {
    const uint64_t events_before = shared->events.added();
    Reply reply = task(*engine);
    if (shared->events.added() != events_before) {  // clock files were written (or found changed)
      std::lock_guard<std::mutex> lock(shared->hook_mu);
      if (shared->clocks_written) shared->clocks_written();
    }
    size_t leases = engine->lease_count();
    bool first = shared->leases.exchange(leases) == 0 && leases > 0;
    publish(*engine, shared->history, *clock, shared->mu, shared->snapshot);
    // The watch timer sleeps while there is no lease (on_timer): the first one wakes it.
    if (first)
      poster->post([this, shared] {
        if (!shared->closed) wake_timer();
      });
    if (reply) poster->post(std::move(reply));
  });
}

bool PinManager::wait_for(std::function<void(PinEngine&)> task, std::chrono::milliseconds wait) {
  auto done = std::make_shared<std::promise<void>>();
  auto fut = done->get_future();
  run([task = std::move(task), done](PinEngine& e) {
    task(e);
    done->set_value();
    return Reply{};
  });
  return fut.wait_for(wait) == std::future_status::ready;
}

Status PinManager::start(const std::set<int64_t>& open_runs, std::chrono::milliseconds wait) {
  if (!wait_for([open_runs](PinEngine& e) { e.recover(open_runs); }, wait)) {
    spdlog::warn("restoring the clock lease journal takes longer than {} ms; serving meanwhile", wait.count());
  }
  return arm_timer();
}

Status PinManager::arm_timer() {
  uint64_t now = 0;
  sd_event_now(loop_, CLOCK_MONOTONIC, &now);
  sd_event_source* s = nullptr;
  auto period_us = static_cast<uint64_t>(std::chrono::microseconds(kWatchPeriod).count());
  int r = sd_event_add_time(loop_, &s, CLOCK_MONOTONIC, now + period_us, kTimerAccuracyUs, &PinManager::on_timer, this);
  if (r < 0) return make_error(ErrorCode::kIo, "cannot arm the clock lease timer", -r);
  timer_.reset(s);
  return ok_status();
}

// Without a lease there is nothing to watch: the timer goes to sleep (no
// wake-ups of an idle daemon) until run() sees the first lease again.
int PinManager::on_timer(sd_event_source* s, uint64_t usec, void* self) {
  auto* m = static_cast<PinManager*>(self);
  if (m->shared_->leases == 0) {
    sd_event_source_set_enabled(s, SD_EVENT_OFF);
    return 0;
  }
  if (!m->shared_->tick_busy.exchange(true)) {
    m->run([shared = m->shared_](PinEngine& e) {
      e.tick();
      shared->tick_busy = false;
      return Reply{};
    });
  }
  sd_event_source_set_time(s, usec + static_cast<uint64_t>(std::chrono::microseconds(kWatchPeriod).count()));
  sd_event_source_set_enabled(s, SD_EVENT_ON);
  return 0;
}

void PinManager::wake_timer() {
  int enabled = SD_EVENT_ON;
  if (!timer_ || sd_event_source_get_enabled(timer_.get(), &enabled) < 0 || enabled != SD_EVENT_OFF) return;
  uint64_t now = 0;
  sd_event_now(loop_, CLOCK_MONOTONIC, &now);
  sd_event_source_set_time(timer_.get(), now + static_cast<uint64_t>(std::chrono::microseconds(kWatchPeriod).count()));
  sd_event_source_set_enabled(timer_.get(), SD_EVENT_ON);
}

void PinManager::pin(PinOrder order, Done done) {
  bool opening_run = order.kind == LeaseKind::kRun && order.run_id == 0;
  if (order.kind == LeaseKind::kConnection || opening_run) lease_connections_.insert(order.connection);
  const Clock* clock = &clock_;
  run([order = std::move(order), done = std::move(done), clock, shared = shared_](PinEngine& e) {
    auto result = e.pin(order);
    if (result) shared->history.pinned(*result, clock->boot_ns());
    return Reply([done, result]() { done(result); });
  });
}

void PinManager::bind_to_run(int64_t lease, int64_t run_id, Done done) {
  run([lease, run_id, done = std::move(done), shared = shared_](PinEngine& e) {
    auto result = e.bind_to_run(lease, run_id);
    if (result) shared->history.bound(lease, run_id);
    return Reply([done, result]() { done(result); });
  });
}

void PinManager::unpin(std::vector<int64_t> ids, Caller caller, Done done) {
  run([ids = std::move(ids), caller, done = std::move(done)](PinEngine& e) {
    auto result = e.unpin(ids, caller, "unpinned by a client");
    return Reply([done, result]() { done(result); });
  });
}

json PinManager::leases_json() const {
  std::lock_guard<std::mutex> lock(shared_->mu);
  return shared_->snapshot;
}

void PinManager::connection_closed(uint64_t connection) {
  if (lease_connections_.erase(connection) == 0) return;
  run([connection](PinEngine& e) {
    e.release_connection(connection);
    return Reply{};
  });
}

void PinManager::run_stopped(int64_t run_id) {
  run([run_id](PinEngine& e) {
    e.release_run(run_id);
    return Reply{};
  });
}

void PinManager::stop(std::chrono::milliseconds wait) {
  shared_->closed = true;  // a wake posted by the worker no longer touches the timer
  timer_.reset();
  if (!wait_for([](PinEngine& e) { e.release_all("energyd is stopping"); }, wait)) {
    spdlog::error(
        "clock leases were not all restored within {} ms; their records stay in the journal and the next "
        "start restores them",
        wait.count());
  }
  worker_.stop(std::chrono::milliseconds(100));
  set_clocks_written_hook(nullptr);  // a worker left inside a read must not reach the poller
}

void PinManager::set_clocks_written_hook(std::function<void()> hook) {
  std::lock_guard<std::mutex> lock(shared_->hook_mu);
  shared_->clocks_written = std::move(hook);
}

std::vector<ClockEvent> PinManager::events_between(int64_t from_boot_ns, int64_t to_boot_ns) const {
  return shared_->events.between(from_boot_ns, to_boot_ns);
}

json PinManager::pins_for_run(int64_t run_id, int64_t from_boot_ns, int64_t to_boot_ns) const {
  return shared_->history.for_run(run_id, from_boot_ns, to_boot_ns);
}

}  // namespace energy::daemon
