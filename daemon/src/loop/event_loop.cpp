#include "event_loop.h"

#include <sys/eventfd.h>
#include <unistd.h>

namespace energy::daemon {

Status Poster::attach(sd_event* loop) {
  wake_fd_.reset(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  if (!wake_fd_) return errno_error("cannot create the event loop's wake-up fd");
  sd_event_source* s = nullptr;
  int r = sd_event_add_io(loop, &s, wake_fd_.get(), EPOLLIN, &Poster::on_wake, this);
  if (r < 0) return make_error(ErrorCode::kIo, "cannot watch the wake-up fd", -r);
  source_.reset(s);
  return ok_status();
}

void Poster::post(std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.push_back(std::move(fn));
  }
  uint64_t one = 1;
  (void)!::write(wake_fd_.get(), &one, sizeof one);
}

int Poster::on_wake(sd_event_source*, int fd, uint32_t, void* self) {
  uint64_t v = 0;
  (void)!::read(fd, &v, sizeof v);
  static_cast<Poster*>(self)->run_posted();
  return 0;
}

void Poster::run_posted() {
  std::vector<std::function<void()>> batch;
  {
    std::lock_guard<std::mutex> lock(mu_);
    batch.swap(pending_);
  }
  for (auto& fn : batch) fn();
}

}  // namespace energy::daemon
