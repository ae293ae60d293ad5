#include "sampler.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>

#include <cerrno>

namespace energy::daemon {
namespace {

timespec to_timespec(int64_t ns) {
  return timespec{static_cast<time_t>(ns / kNsPerSec), static_cast<long>(ns % kNsPerSec)};
}

void drain(int fd) {
  uint64_t v = 0;
  while (::read(fd, &v, sizeof v) > 0) {
  }
}

}  // namespace

Sampler::Sampler(const SysRoot& root, const std::vector<RailInfo>& rails, std::chrono::milliseconds period,
                 const Clock& clock, SampleSink& sink)
    : period_(period), clock_(clock), sink_(sink) {
  for (const auto& r : rails) readers_.emplace_back(root, r);
  stats_.read_errors.assign(rails.size(), 0);
  stats_.last_errno.assign(rails.size(), 0);
}

Sampler::~Sampler() { stop(); }

Status Sampler::start() {
  timer_fd_.reset(::timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK));
  wake_fd_.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!timer_fd_ || !wake_fd_) return errno_error("cannot create sampler timer");
  int64_t period_ns = static_cast<int64_t>(period_.count()) * kNsPerMs;
  first_deadline_ns_ = clock_.mono_ns() + period_ns;
  itimerspec spec{to_timespec(period_ns), to_timespec(first_deadline_ns_)};
  if (::timerfd_settime(timer_fd_.get(), TFD_TIMER_ABSTIME, &spec, nullptr) != 0) {
    return errno_error("cannot arm sampler timer");
  }
  take_sample();  // a first reading at once, so status has values immediately
  thread_ = std::thread([this] { loop(); });
  return ok_status();
}

void Sampler::stop() {
  if (!thread_.joinable()) return;
  stopping_ = true;
  uint64_t one = 1;
  (void)!::write(wake_fd_.get(), &one, sizeof one);
  thread_.join();
}

void Sampler::request_sample(SampleCallback then) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    requests_.push_back(std::move(then));
  }
  uint64_t one = 1;
  (void)!::write(wake_fd_.get(), &one, sizeof one);
}

Sample Sampler::latest() const {
  std::lock_guard<std::mutex> lock(mu_);
  return latest_;
}

SamplerStats Sampler::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

void Sampler::loop() {
  pollfd fds[2] = {{timer_fd_.get(), POLLIN, 0}, {wake_fd_.get(), POLLIN, 0}};
  while (!stopping_) {
    if (::poll(fds, 2, -1) < 0 && errno != EINTR) break;
    if ((fds[1].revents & POLLIN) != 0) drain(wake_fd_.get());
    if ((fds[0].revents & POLLIN) != 0) on_timer();
    serve_requests();
  }
  serve_requests();  // answer marks that raced with stop
}

void Sampler::on_timer() {
  uint64_t n = 0;
  if (::read(timer_fd_.get(), &n, sizeof n) != static_cast<ssize_t>(sizeof n) || n == 0) return;
  expirations_ += static_cast<int64_t>(n);
  int64_t deadline = first_deadline_ns_ + (expirations_ - 1) * static_cast<int64_t>(period_.count()) * kNsPerMs;
  int64_t lateness = clock_.mono_ns() - deadline;
  take_sample();
  std::lock_guard<std::mutex> lock(mu_);
  stats_.ticks += 1;
  stats_.missed_ticks += static_cast<int64_t>(n) - 1;
  stats_.last_lateness_ns = lateness;
  if (lateness > stats_.max_lateness_ns) stats_.max_lateness_ns = lateness;
}

void Sampler::serve_requests() {
  std::vector<SampleCallback> batch;
  {
    std::lock_guard<std::mutex> lock(mu_);
    batch.swap(requests_);
  }
  if (batch.empty()) return;
  Sample s = take_sample();
  {
    std::lock_guard<std::mutex> lock(mu_);
    stats_.extra_samples += 1;
  }
  for (auto& cb : batch) cb(s);
}

// One sweep: the timestamp is the midpoint of the sweep, so the error from
// reading rails one after another is centred.
Sample Sampler::take_sample() {
  Sample s;
  int64_t before = clock_.boot_ns();
  s.values.reserve(readers_.size());
  for (auto& r : readers_) s.values.push_back(r.read());
  int64_t after = clock_.boot_ns();
  s.t_ns = before + (after - before) / 2;
  s.wall_ns = clock_.wall_ns();
  sink_.push_sample(s);
  std::lock_guard<std::mutex> lock(mu_);
  stats_.last_read_ns = after - before;
  for (size_t i = 0; i < s.values.size(); ++i) {
    stats_.last_errno[i] = s.values[i].err;
    if (s.values[i].err != 0) stats_.read_errors[i] += 1;
  }
  latest_ = s;
  return s;
}

}  // namespace energy::daemon
