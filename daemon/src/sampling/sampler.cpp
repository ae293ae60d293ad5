#include "sampler.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <pthread.h>
#include <spdlog/spdlog.h>

#include "energy/chunker.h"
#include "energy/tick_path.h"

namespace energy::daemon {
namespace {

timespec to_timespec(int64_t ns) {
  return timespec{static_cast<time_t>(ns / kNsPerSec), static_cast<long>(ns % kNsPerSec)};
}

}  // namespace

Sampler::Sampler(const SysRoot& root, const std::vector<RailInfo>& rails, std::chrono::milliseconds period,
                 std::chrono::milliseconds stall_limit, const Clock& clock, SampleSink& sink)
    : period_(period), stall_limit_(stall_limit), clock_(clock), sink_(sink) {
  for (const auto& r : rails) slots_.push_back(std::make_unique<Slot>(RailReader(root, r)));
  stats_.read_errors.assign(rails.size(), 0);
  stats_.last_errno.assign(rails.size(), 0);
  stats_.rail_last_read_ns.assign(rails.size(), 0);
  stats_.rail_max_read_ns.assign(rails.size(), 0);
  fact_heads_.resize(kFactSlots);
  rail_facts_.resize(kFactSlots * rails.size());
  logged_errno_.assign(rails.size(), 0);
}

Sampler::~Sampler() { stop(); }

Status Sampler::start() {
  timer_fd_.reset(::timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC));  // blocking: the sampler's one wait
  stall_fd_.reset(::timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK));
  watch_stop_fd_.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!timer_fd_ || !stall_fd_ || !watch_stop_fd_) return errno_error("cannot create sampler timers");
  int64_t period_ns = static_cast<int64_t>(period_.count()) * kNsPerMs;
  first_deadline_ns_ = clock_.mono_ns() + period_ns;
  itimerspec spec{to_timespec(period_ns), to_timespec(first_deadline_ns_)};
  if (::timerfd_settime(timer_fd_.get(), TFD_TIMER_ABSTIME, &spec, nullptr) != 0) {
    return errno_error("cannot arm sampler timer");
  }
  std::lock_guard<std::mutex> lock(stall_mu_);
  spawn(0);
  watchdog_ = std::thread([this] { watch(); });
  return ok_status();
}

// Threads still inside a blocked read are detached: a read stuck in the
// kernel cannot be cancelled. The owner must then keep this object alive
// (energyd leaks it at exit) because those threads touch it when they return.
void Sampler::stop() {
  if (!watchdog_.joinable()) return;
  stopping_ = true;
  interrupt_wait();
  uint64_t one = 1;
  (void)!::write(watch_stop_fd_.get(), &one, sizeof one);
  watchdog_.join();
  std::unique_lock<std::mutex> lock(stall_mu_);
  bool stuck = read_started_ns_ != 0;
  std::thread current = std::move(current_);
  std::vector<std::thread> abandoned = std::move(abandoned_);
  lock.unlock();
  if (stuck)
    current.detach();
  else if (current.joinable())
    current.join();
  for (auto& t : abandoned) t.detach();
}

bool Sampler::stopped_cleanly() const {
  std::lock_guard<std::mutex> lock(stall_mu_);
  return read_started_ns_ == 0 && abandoned_.empty();
}

void Sampler::request_sample(SampleCallback then) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    requests_.push_back(std::move(then));
    requests_pending_.store(true);
  }
  interrupt_wait();
}

// The flag is set before the timer is armed, so the wake-up this causes
// always finds it set; a grid expiration that raced with it is not lost:
// resume_grid re-arms from the first deadline not yet swept, and the timer
// counts every deadline passed since then.
void Sampler::interrupt_wait() {
  std::lock_guard<std::mutex> lock(timer_mu_);
  wait_interrupted_ = true;
  itimerspec at_once{timespec{0, 0}, timespec{0, 1}};
  (void)::timerfd_settime(timer_fd_.get(), 0, &at_once, nullptr);
}

// After interrupt_wait: puts the timer back on the absolute grid. True if it
// did, and the expirations just read were then not deadlines.
ENERGY_TICK_PATH bool Sampler::resume_grid() {
  if (!wait_interrupted_.load()) return false;
  std::lock_guard<std::mutex> lock(timer_mu_);
  const int64_t period_ns = static_cast<int64_t>(period_.count()) * kNsPerMs;
  itimerspec grid{to_timespec(period_ns), to_timespec(next_deadline_ns())};
  if (::timerfd_settime(timer_fd_.get(), TFD_TIMER_ABSTIME, &grid, nullptr) != 0)
    spdlog::error("sampler: cannot re-arm the tick timer: {}", std::strerror(errno));
  wait_interrupted_ = false;
  return true;
}

Sample Sampler::latest() const {
  std::lock_guard<std::mutex> lock(mu_);
  fold_facts();
  return latest_;
}

SamplerStats Sampler::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  fold_facts();
  SamplerStats st = stats_;
  st.missed_ticks = missed_ticks_.load();
  st.lateness_p50_ns = lateness_.quantile(0.5);
  st.lateness_p99_ns = lateness_.quantile(0.99);
  st.read_p50_ns = sweep_time_.quantile(0.5);
  st.read_p99_ns = sweep_time_.quantile(0.99);
  return st;
}

// Caller holds stall_mu_.
void Sampler::spawn(uint64_t generation) {
  if (current_.joinable()) abandoned_.push_back(std::move(current_));
  current_ = std::thread([this, generation] { loop(generation); });
}

// Without the lock: a thread is superseded only inside a rail read, and
// hand_over checks again under it.
bool Sampler::superseded(uint64_t generation) const { return generation != generation_.load(); }

ENERGY_TICK_PATH void Sampler::loop(uint64_t generation) {
  pthread_setname_np(pthread_self(), "sample");
  // A new generation first delivers the sweep its stuck predecessor owed.
  if (generation > 0 && !on_timer_sweep(generation)) return;
  if (generation == 0 && !take_sample(generation)) return;  // readings for status at once
  while (!stopping_ && !superseded(generation)) {
    // One blocking read of the tick timer per tick, as a minimal poller's one
    // sleep: requests and stop() interrupt it (interrupt_wait), and a thread
    // is superseded only inside a rail read, never here.
    uint64_t n = 0;
    if (tick_read(timer_fd_.get(), &n, sizeof n) != static_cast<ssize_t>(sizeof n)) {
      if (errno == EINTR) continue;
      spdlog::error("sampler: cannot read the tick timer: {}; sampling stops", std::strerror(errno));
      break;
    }
    if (resume_grid()) n = 0;  // the deadlines passed meanwhile fire again from the grid
    if (stopping_) break;
    if (n > 0 && !on_ticks(n, generation)) return;
    if (!serve_requests(generation)) return;
  }
  serve_requests(generation);  // answer marks that raced with stop
}

// Sleeps on the stall timer, which the sweeps arm (stall_timer_around_sweep):
// a healthy sampler never wakes the watchdog (a wake-up costs more CPU than a
// whole sweep on a virtual machine). When the
// timer fires, the read in progress is quarantined if it has passed the
// stall limit, or the timer is re-armed for when it would.
void Sampler::watch() {
  pthread_setname_np(pthread_self(), "sample-watch");
  const int64_t limit_ns = static_cast<int64_t>(stall_limit_.count()) * kNsPerMs;
  pollfd fds[2] = {{stall_fd_.get(), POLLIN, 0}, {watch_stop_fd_.get(), POLLIN, 0}};
  while (!stopping_) {
    if (::poll(fds, 2, -1) < 0 || (fds[0].revents & POLLIN) == 0) continue;
    drain_fd(stall_fd_.get());
    std::lock_guard<std::mutex> lock(stall_mu_);
    stall_expiry_ns_ = 0;                              // spent
    if (read_started_ns_ == 0 || stopping_) continue;  // no read in progress: the next sweep re-arms
    int64_t now = clock_.mono_ns();
    int64_t left = read_started_ns_ + limit_ns - now;
    if (left <= 0) {
      quarantine_current_read();
      continue;
    }
    arm_stall_timer(left);
    stall_expiry_ns_ = now + left;
  }
}

// 0 disarms.
void Sampler::arm_stall_timer(int64_t after_ns) {
  itimerspec spec{timespec{0, 0}, to_timespec(after_ns)};
  (void)::timerfd_settime(stall_fd_.get(), 0, &spec, nullptr);
}

// At a sweep's start and end. With a period of at least the stall limit
// the end of a sweep arms the timer for a stall limit after the next tick's
// deadline, and that tick's sweep finds it armed (one timerfd_settime per
// tick, not two): it fires between sweeps only when a tick is more than a
// whole stall limit late. A sweep that finds it spent, or firing more than
// a limit away (an extra sample between ticks), arms it itself. With a
// shorter period it is kept ahead of the sweeps instead (one
// timerfd_settime per half limit rather than one per tick); it then fires
// between sweeps only when a tick is more than half a limit late.
// Caller holds stall_mu_; `now` is clock_.mono_ns().
ENERGY_TICK_PATH void Sampler::stall_timer_around_sweep(bool starting, int64_t now) {
  const int64_t limit_ns = static_cast<int64_t>(stall_limit_.count()) * kNsPerMs;
  if (period_ < stall_limit_) {
    keep_stall_timer_ahead(starting ? now : next_deadline_ns(), now);
    return;
  }
  if (starting && stall_expiry_ns_ > now && stall_expiry_ns_ <= now + limit_ns) return;
  stall_expiry_ns_ = starting ? now + limit_ns : std::max(next_deadline_ns(), now) + limit_ns;
  arm_stall_timer(stall_expiry_ns_ - now);
}

// Caller holds stall_mu_; `now` is clock_.mono_ns(). Keeps the timer firing no sooner than half a
// stall limit after `from_ns` (a sweep's start, or the next tick's
// deadline), re-arming it a whole limit ahead only when it would fire
// sooner: a read blocked since `from_ns` still wakes the watchdog (which
// re-arms for the rest of the limit).
ENERGY_TICK_PATH void Sampler::keep_stall_timer_ahead(int64_t from_ns, int64_t now) {
  const int64_t limit_ns = static_cast<int64_t>(stall_limit_.count()) * kNsPerMs;
  if (stall_expiry_ns_ >= from_ns + limit_ns / 2) return;
  stall_expiry_ns_ = std::max(from_ns, now) + limit_ns;
  arm_stall_timer(stall_expiry_ns_ - now);
}

// The timer's next expiration (the sweep after the latest one due).
int64_t Sampler::next_deadline_ns() const {
  return first_deadline_ns_ + expirations_ * static_cast<int64_t>(period_.count()) * kNsPerMs;
}

// Caller holds stall_mu_.
void Sampler::quarantine_current_read() {
  slots_[reading_rail_]->quarantined = true;
  read_started_ns_ = 0;
  stall_expiry_ns_ = 0;  // the new thread's sweep arms it
  ++generation_;
  spdlog::warn("rail {}: read blocked for more than {} ms; sampling the other rails without it",
               slots_[reading_rail_]->reader.label(), stall_limit_.count());
  {
    std::lock_guard<std::mutex> stats_lock(mu_);
    ++stats_.stalls;
  }
  spawn(generation_);
}

// `n` deadlines passed since the last read of the timer; all but the
// latest were missed.
ENERGY_TICK_PATH bool Sampler::on_ticks(uint64_t n, uint64_t generation) {
  expirations_ += static_cast<int64_t>(n);
  if (n > 1) missed_ticks_ += static_cast<int64_t>(n) - 1;  // counted even if this thread is superseded
  return on_timer_sweep(generation);
}

// The sweep for the latest expired deadline; its lateness goes to the
// statistics with the sweep's own (one lock).
ENERGY_TICK_PATH bool Sampler::on_timer_sweep(uint64_t generation) {
  int64_t deadline = first_deadline_ns_ + (expirations_ - 1) * static_cast<int64_t>(period_.count()) * kNsPerMs;
  TickFacts tick{clock_.mono_ns() - deadline};
  return take_sample(generation, &tick) != nullptr;
}

ENERGY_TICK_PATH bool Sampler::serve_requests(uint64_t generation) {
  if (!requests_pending_.load()) return true;  // set under mu_ with the request
  auto s = take_sample(generation);            // requests stay queued until a sweep completes
  if (!s) return false;
  std::vector<SampleCallback> batch;
  {
    std::lock_guard<std::mutex> lock(mu_);
    batch.swap(requests_);
    requests_pending_.store(false);
    stats_.extra_samples += 1;
  }
  for (auto& cb : batch) cb(*s);
  return true;
}

// Between two rail reads of a sweep, in one stall_mu_ section (a sweep of
// n rails takes n + 1, not 2n plus two for the stall timer; issue 16): the
// read of rail `done` has returned (`done` past the rails at the sweep's
// start, which arms the stall timer), and the next rail from `from` that is
// not quarantined starts (a quarantined one reads as ETIMEDOUT, taking no
// time). `now` gets the clock read that ends the one read and starts the
// next. Returns the rail whose read starts, the rails' count when none is
// left (the sweep's end, which arms the stall timer again), or kStopSweep
// when this thread must exit: superseded during `done`'s read, or stopping
// (no new read may start once stop() looked for stuck ones).
ENERGY_TICK_PATH size_t Sampler::hand_over(size_t done, size_t from, uint64_t generation,
                                           std::vector<RailValue>& values, int64_t& now) {
  now = clock_.mono_ns();
  const size_t n = slots_.size();
  std::lock_guard<std::mutex> lock(stall_mu_);
  if (done < n) {
    if (generation != generation_) {
      slots_[done]->quarantined = false;
      spdlog::info("rail {}: blocked read returned; sampling it again", slots_[done]->reader.label());
      return kStopSweep;
    }
    read_started_ns_ = 0;
  } else {
    stall_timer_around_sweep(true, now);
  }
  size_t i = from;
  for (; i < n; ++i) {
    if (stopping_) return kStopSweep;
    if (!slots_[i]->quarantined) break;
    values[i] = RailValue{0, 0, 0, ETIMEDOUT};
  }
  if (i < n) {
    reading_rail_ = i;
    read_started_ns_ = now;
  } else {
    stall_timer_around_sweep(false, now);
  }
  return i;
}

// One sweep, stamped at its midpoint so the skew of reading rails one after
// another is centred. Nothing if this thread was superseded meanwhile.
// The sweep, its per-rail read times and errors live in buffers of the
// sampling thread, reused every sweep: a sweep allocates nothing (the
// writer stages it into buffers it keeps, writer.h; issue 16).
ENERGY_TICK_PATH const Sample* Sampler::take_sample(uint64_t generation, const TickFacts* tick) {
  thread_local Sample s;
  thread_local std::vector<int64_t> read_ns;
  thread_local std::vector<std::string> errors;
  if (s.values.size() != slots_.size()) {  // sized once: the vectors' out-of-line code stays off the tick
    s.values.resize(slots_.size());
    read_ns.resize(slots_.size());
    errors.resize(slots_.size());
  }
  std::fill(s.values.begin(), s.values.end(), RailValue{});
  std::fill(read_ns.begin(), read_ns.end(), 0);
  for (auto& e : errors) e.clear();  // keeps each string's buffer
  const size_t n = slots_.size();
  int64_t before = clock_.boot_ns();
  int64_t started = 0;
  size_t i = hand_over(n, 0, generation, s.values, started);
  while (i < n) {
    s.values[i] = slots_[i]->reader.read();
    if (s.values[i].err != 0) errors[i] = slots_[i]->reader.last_error();
    int64_t was = started;
    size_t next = hand_over(i, i + 1, generation, s.values, started);
    if (next == kStopSweep) return nullptr;  // superseded or stopping: the timer is not ours to disarm
    read_ns[i] = started - was;
    i = next;
  }
  if (i == kStopSweep) return nullptr;
  int64_t after = clock_.boot_ns();
  s.t_ns = to_stored_ns(before + (after - before) / 2);  // the raw tier's precision, so run edges match it
  s.wall_ns = clock_.wall_ns();
  sink_.push_sample(s);
  record(s, after - before, read_ns, errors, tick);
  return &s;
}

// The sweep's facts into the next slot (fact_heads_), folded into the
// statistics later (fold_facts). One log line per state change of a rail
// (failing with an errno, or back): a dead sensor must not flood the journal.
ENERGY_TICK_PATH void Sampler::record(const Sample& s, int64_t sweep_ns, const std::vector<int64_t>& read_ns,
                                      const std::vector<std::string>& errors, const TickFacts* tick) {
  const uint64_t w = facts_written_.load(std::memory_order_relaxed);
  if (w - facts_folded_.load(std::memory_order_acquire) >= kFactSlots) {
    std::lock_guard<std::mutex> lock(mu_);  // every slot taken: this thread folds them
    fold_facts();
  }
  const size_t n = s.values.size();
  const auto k = static_cast<size_t>(w % kFactSlots);
  fact_heads_[k] = FactHead{s.t_ns, s.wall_ns, tick != nullptr ? tick->lateness_ns : 0, sweep_ns, tick != nullptr};
  RailFact* rails = rail_facts_.data() + k * n;  // data(): no element to index without rails
  for (size_t i = 0; i < n; ++i) rails[i] = RailFact{s.values[i], read_ns[i]};
  facts_written_.store(w + 1, std::memory_order_release);
  for (size_t i = 0; i < n; ++i) {
    if (logged_errno_[i] == s.values[i].err) continue;
    logged_errno_[i] = s.values[i].err;
    log_rail_change(i, s.values[i].err, errors[i]);
  }
}

// Caller holds mu_. The slots written since the last fold, oldest first;
// the newest becomes latest_.
void Sampler::fold_facts() const {
  const uint64_t w = facts_written_.load(std::memory_order_acquire);
  uint64_t f = facts_folded_.load(std::memory_order_relaxed);
  if (f == w) return;
  const size_t n = slots_.size();
  for (; f < w; ++f) {
    const auto k = static_cast<size_t>(f % kFactSlots);
    const FactHead& h = fact_heads_[k];
    const RailFact* rails = rail_facts_.data() + k * n;  // data(): no element to index without rails
    if (h.tick) {
      stats_.ticks += 1;
      stats_.last_lateness_ns = h.lateness_ns;
      stats_.max_lateness_ns = std::max(stats_.max_lateness_ns, h.lateness_ns);
      lateness_.record(h.lateness_ns);
    }
    stats_.sweeps += 1;
    stats_.last_read_ns = h.sweep_ns;
    stats_.max_read_ns = std::max(stats_.max_read_ns, h.sweep_ns);
    sweep_time_.record(h.sweep_ns);
    for (size_t i = 0; i < n; ++i) {
      stats_.rail_last_read_ns[i] = rails[i].read_ns;
      stats_.rail_max_read_ns[i] = std::max(stats_.rail_max_read_ns[i], rails[i].read_ns);
      stats_.last_errno[i] = rails[i].value.err;
      if (rails[i].value.err != 0) stats_.read_errors[i] += 1;
    }
  }
  const auto k = static_cast<size_t>((w - 1) % kFactSlots);
  latest_.t_ns = fact_heads_[k].t_ns;
  latest_.wall_ns = fact_heads_[k].wall_ns;
  latest_.values.resize(n);
  for (size_t i = 0; i < n; ++i) latest_.values[i] = rail_facts_[k * n + i].value;
  facts_folded_.store(w, std::memory_order_release);
}

void Sampler::log_rail_change(size_t i, int32_t err, const std::string& error) {
  const std::string& label = slots_[i]->reader.label();
  if (err == 0)
    spdlog::info("rail {}: reading again", label);
  else if (error.empty())
    spdlog::warn("rail {}: reads fail with {} ({}); recorded as gaps until it recovers", label, std::strerror(err),
                 err);
  else
    spdlog::warn("rail {}: reads fail with {} ({}): {}; recorded as gaps until it recovers", label, std::strerror(err),
                 err, error);
}

}  // namespace energy::daemon
