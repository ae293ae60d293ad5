// UniqueFd: sole owner of a file descriptor. Closing happens only here.
//
// Thread-safety: none; an fd owner belongs to one thread at a time.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <utility>

namespace energy {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd() { reset(); }
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) reset(other.release());
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  explicit operator bool() const { return valid(); }

  int release() { return std::exchange(fd_, -1); }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

// Reads a non-blocking descriptor (an eventfd, a timerfd) until it would block.
inline void drain_fd(int fd) {
  uint64_t v = 0;
  while (::read(fd, &v, sizeof v) > 0) {
  }
}

}  // namespace energy
