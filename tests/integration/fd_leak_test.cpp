// Descriptor leaks (QUALITY S5): energyd on a simulated board keeps the
// descriptors it had after many clients came and went in every way a client
// can leave: at once, mid-frame, with an oversized or malformed frame, before
// or after reading its reply, after a query or an export (each of which
// opens database connections on a worker).
#include <dirent.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "board_fixture.h"
#include "energy/protocol.h"
#include "energy/unique_fd.h"

namespace energy::testing {
namespace {

using namespace std::chrono_literals;

// energyd's descriptors (/proc/PID/fd), by what they point to.
struct Fds {
  long database = 0;  // the database file itself (not -wal/-shm)
  long other = 0;
  std::string listing;  // "fd -> target" per line, for failure messages
};

Fds open_fds(long pid) {
  Fds out;
  std::string dir = "/proc/" + std::to_string(pid) + "/fd";
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return Fds{-1, -1, "cannot read " + dir};
  while (const dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.') continue;
    char buf[512] = {};
    ssize_t n = ::readlink((dir + "/" + e->d_name).c_str(), buf, sizeof buf - 1);
    std::string target = n > 0 ? std::string(buf, static_cast<size_t>(n)) : "?";
    bool db = target.size() >= 11 && target.compare(target.size() - 11, 11, "/energyd.db") == 0;
    ++(db ? out.database : out.other);
    out.listing += std::string(e->d_name) + " -> " + target + "\n";
  }
  ::closedir(d);
  return out;
}

UniqueFd connect_unix(const std::string& path) {
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  if (!fd || ::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return UniqueFd();
  return fd;
}

void send_bytes(const UniqueFd& fd, const std::string& bytes) {
  (void)::send(fd.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL);
}

// Reads until one whole frame came (true) or the daemon closed / 5 s passed.
bool read_frame(const UniqueFd& fd) {
  protocol::FrameDecoder decoder(protocol::kMaxReplyBytes);
  char buf[4096];
  for (;;) {
    auto next = decoder.next();
    if (!next) return false;
    if (next->has_value()) return true;
    pollfd p{fd.get(), POLLIN, 0};
    if (::poll(&p, 1, 5000) <= 0) return false;
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n <= 0) return false;
    decoder.feed(buf, static_cast<size_t>(n));
  }
}

std::string request(int64_t id, const std::string& verb, const nlohmann::json& args = nlohmann::json::object()) {
  return protocol::encode_frame(protocol::make_request(id, verb, args));
}

// One client of each kind; returns how many got the reply they waited for.
int clients_of_every_kind(const std::string& socket, int64_t id) {
  int replies = 0;
  { UniqueFd fd = connect_unix(socket); }                                    // leaves at once
  { send_bytes(connect_unix(socket), request(id, "status").substr(0, 9)); }  // mid-frame
  { send_bytes(connect_unix(socket), request(id, "runs.list")); }            // before its reply
  {
    UniqueFd fd = connect_unix(socket);
    send_bytes(fd, std::string("\x7f\xff\xff\xff", 4));  // oversized header: an error reply, then closed
    replies += read_frame(fd) ? 1 : 0;
  }
  {
    UniqueFd fd = connect_unix(socket);
    send_bytes(fd, protocol::encode_frame(nlohmann::json::array()).replace(4, 2, "{x"));  // not JSON
    replies += read_frame(fd) ? 1 : 0;
  }
  for (const char* verb : {"status", "runs.list", "export"}) {
    UniqueFd fd = connect_unix(socket);
    send_bytes(fd, request(id, verb));
    replies += read_frame(fd) ? 1 : 0;
  }
  return replies;
}

// SQLite keeps the descriptor of a closed connection open while other
// connections of the process hold locks on the file (closing it would drop
// theirs) and reuses it for the next open: database descriptors may exceed
// their number before by the queries that ran at once, never by the number of
// connections. Every other descriptor must be back to what it was.
constexpr long kConcurrentQueries = 2;  // the run-query worker and an export

TEST(DescriptorLeaks, ClientsThatComeAndGoLeaveEnergydsDescriptorsAsTheyWere) {
  SimulatedDaemon d(constant_orin_nano());
  ASSERT_TRUE(d.started()) << d.setup_error();
  long pid = d.ctl_json({"status"}).value("pid", int64_t{-1});
  ASSERT_GT(open_fds(pid).other, 0) << open_fds(pid).listing;
  // Once first: connections and files opened lazily on first use stay open.
  ASSERT_EQ(clients_of_every_kind(d.socket(), 1), 5);
  std::this_thread::sleep_for(500ms);
  Fds before = open_fds(pid);
  for (int64_t i = 0; i < 40; ++i) ASSERT_EQ(clients_of_every_kind(d.socket(), i + 2), 5) << "round " << i;
  // Closing runs on the event loop: wait for it rather than sleeping a guess.
  Fds after;
  EXPECT_TRUE(eventually(
      [&] {
        after = open_fds(pid);
        return after.other <= before.other && after.database <= before.database + kConcurrentQueries;
      },
      10s))
      << "energyd's descriptors before 320 client connections:\n"
      << before.listing << "after:\n"
      << after.listing;
}

}  // namespace
}  // namespace energy::testing
