// Hostile clients and a hostile start (issue 19) against the real energyd on
// a simulated board: a second energyd on the same socket, a file that is not
// a socket at the socket path, running out of descriptors, and a client that
// pipelines hundreds of exports and leaves.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "board_fixture.h"
#include "energy/protocol.h"

namespace energy::testing {
namespace {

// A non-blocking connection (a full backlog fails instead of waiting).
UniqueFd connect_nonblocking(const std::string& path) {
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return UniqueFd();
  return fd;
}

// Clock ticks (utime + stime) the process has used.
long cpu_ticks(pid_t pid) {
  std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
  auto after_name = stat.rfind(')');
  if (after_name == std::string::npos) return -1;
  std::istringstream in(stat.substr(after_name + 2));
  std::string field;
  long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && in >> field; ++i) {  // fields 14 and 15 (1-based) are utime and stime
    if (i == 14) utime = std::stol(field);
    if (i == 15) stime = std::stol(field);
  }
  return utime + stime;
}

long rss_kib(pid_t pid) {
  std::istringstream in(read_file("/proc/" + std::to_string(pid) + "/status"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

size_t open_descriptors(pid_t pid) {
  std::error_code ec;
  auto it = std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec);
  return ec ? 0 : static_cast<size_t>(std::distance(it, std::filesystem::directory_iterator()));
}

std::vector<std::string> energyd_argv(const std::string& dir, const std::string& socket) {
  return {ENERGYD_BIN, "--root", dir + "/board",       "--state-dir", dir + "/state2",
          "--socket",  socket,   "--sample-period-ms", "100"};
}

// ---- the socket path (item 8) ---------------------------------------------

TEST(SocketPath, ASecondEnergydOnTheSameSocketIsRefusedAndTheFirstServesOn) {
  SimulatedDaemon d(BoardSpec{});
  ASSERT_TRUE(d.started()) << d.setup_error();
  auto second = run_command(energyd_argv(d.dir(), d.socket()), std::chrono::seconds(20));
  EXPECT_NE(second.exit_code, 0);
  EXPECT_NE(second.err.find("another energyd is serving " + d.socket()), std::string::npos) << second.err;
  auto status = d.ctl({"status"});
  EXPECT_EQ(status.exit_code, 0) << "the first energyd lost its socket: " << status.err;
}

TEST(SocketPath, ARegularFileAtTheSocketPathIsRefusedAndKept) {
  TempDir tmp;
  auto made = run_command(
      {ENERGYD_SIM_BIN, "create", "--board", "jetson-orin-nano", "--l4t", "36", "--root", tmp.path() + "/board"});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  std::string path = tmp.path() + "/energyd.sock";
  std::ofstream(path) << "precious\n";
  auto r = run_command(energyd_argv(tmp.path(), path), std::chrono::seconds(20));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find(path + " is a regular file, not a socket"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(path), "precious\n");
}

// ---- descriptors (item 9) -------------------------------------------------

// accept() failing with EMFILE left the connection queued, so the loop was
// woken again at once, forever (one core at 100%, 16.5k failures in 3 s).
TEST(Descriptors, OutOfDescriptorsEnergydBacksOffAndServesOnceClientsLeave) {
  BoardSpec spec;
  spec.extra_config = "max_connections_per_user: 1000\n";
  SimulatedDaemon d(spec);
  ASSERT_TRUE(d.started()) << d.setup_error();
  pid_t pid = d.ctl_json({"status"})["pid"].get<pid_t>();
  rlim_t lim = open_descriptors(pid) + 12;  // room for a few clients, not for 40
  rlimit low{lim, lim};
  ASSERT_EQ(::prlimit(pid, RLIMIT_NOFILE, &low, nullptr), 0) << std::strerror(errno);
  std::vector<UniqueFd> clients;
  for (int i = 0; i < 40; ++i) clients.push_back(connect_nonblocking(d.socket()));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  long ticks_before = cpu_ticks(pid);
  std::this_thread::sleep_for(std::chrono::seconds(1));
  long used = cpu_ticks(pid) - ticks_before;
  // A generous bound: a spinning accept loop uses the whole second (100
  // ticks) when it has a core, and far more than this even on a busy machine.
  EXPECT_LT(used, ::sysconf(_SC_CLK_TCK) / 4) << "energyd used " << used << " ticks in 1 s while out of descriptors";
  clients.clear();
  ASSERT_TRUE(eventually([&] { return d.ctl({"status"}).exit_code == 0; }, std::chrono::seconds(10)))
      << "energyd did not serve again once the clients had gone";
  auto conns = d.ctl_json({"status"})["connections"];
  EXPECT_GE(conns.value("accept_failures", 0), 1) << conns.dump();
  EXPECT_LE(conns.value("accept_failures", 0), 40) << "accept was retried without pause: " << conns.dump();
  EXPECT_NE(d.log().find("pausing accepting"), std::string::npos);
}

// ---- one client must not starve the others (item 6) -----------------------

TEST(Starvation, PipelinedExportsOfClientsThatLeaveDoNotDelayClocks) {
  SimulatedDaemon d(constant_orin_nano());
  ASSERT_TRUE(d.started()) << d.setup_error();
  d.ctl_json({"mark", "start", "x"});  // a mark commits every sweep before it
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  d.ctl_json({"mark", "stop", "x"});
  pid_t pid = d.ctl_json({"status"})["pid"].get<pid_t>();
  std::string exports;
  for (int i = 1; i <= 300; ++i) {
    exports += protocol::encode_frame(protocol::make_request(i, "export", {{"since_wall_ns", 0}}));
  }
  std::vector<UniqueFd> greedy;
  for (int c = 0; c < 4; ++c) {
    greedy.push_back(connect_nonblocking(d.socket()));
    ASSERT_TRUE(greedy.back());
    ASSERT_EQ(::send(greedy.back().get(), exports.data(), exports.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(exports.size()));
  }
  auto clocks = run_command({ENERGYCTL_BIN, "--socket", d.socket(), "clocks"}, std::chrono::seconds(10));
  EXPECT_EQ(clocks.exit_code, 0) << clocks.err;
  greedy.clear();  // they leave without reading: their queued exports are dropped
  auto status = d.ctl_json({"status"});
  EXPECT_GE(status["connections"].value("paused_reading", 0), 4) << status["connections"].dump();
  EXPECT_LT(rss_kib(pid), 200 * 1024) << "energyd's RSS grew with never-read export pages";
  EXPECT_EQ(d.ctl({"clocks"}).exit_code, 0);
}

}  // namespace
}  // namespace energy::testing
