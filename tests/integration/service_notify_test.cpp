// energyd speaks systemd's notify protocol: READY=1 once serving, a STATUS
// line, WATCHDOG=1 pings while the sampler makes progress, STOPPING=1 on stop.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include "harness.h"

namespace energy::testing {
namespace {

class NotifySocket {
 public:
  explicit NotifySocket(const std::string& path) : path_(path) {
    fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0) << "cannot bind " << path;
  }
  ~NotifySocket() { ::close(fd_); }
  // Everything received so far, messages separated by '\n'.
  std::string drain() {
    char buf[4096];
    for (;;) {
      ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) break;
      text_.append(buf, static_cast<size_t>(n));
      text_ += "\n";
    }
    return text_;
  }

 private:
  std::string path_;
  int fd_ = -1;
  std::string text_;
};

TEST(ServiceNotify, ReadyWatchdogAndStoppingAreSent) {
  TempDir t;
  auto made = run_command(
      {ENERGYD_SIM_BIN, "create", "--board", "jetson-orin-nx", "--l4t", "36", "--root", t.path() + "/board"});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  NotifySocket notify(t.path() + "/notify");
  std::string sock = t.path() + "/energyd.sock";
  ChildProcess d({ENERGYD_BIN, "--root", t.path() + "/board", "--state-dir", t.path() + "/state", "--socket", sock},
                 t.path() + "/log", {"NOTIFY_SOCKET=" + t.path() + "/notify", "WATCHDOG_USEC=200000"});
  ASSERT_TRUE(wait_for_socket(sock, std::chrono::seconds(10))) << read_file(t.path() + "/log");
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  std::string got = notify.drain();
  EXPECT_NE(got.find("READY=1"), std::string::npos) << got;
  EXPECT_NE(got.find("STATUS=sampling 3 rails"), std::string::npos) << got;
  auto pings = [](const std::string& s) {
    size_t n = 0;
    for (size_t at = s.find("WATCHDOG=1"); at != std::string::npos; at = s.find("WATCHDOG=1", at + 1)) ++n;
    return n;
  };
  EXPECT_GE(pings(got), 3u) << got;  // every 100 ms while sampling
  EXPECT_EQ(d.stop(SIGTERM), 0);
  EXPECT_NE(notify.drain().find("STOPPING=1"), std::string::npos);
}

}  // namespace
}  // namespace energy::testing
