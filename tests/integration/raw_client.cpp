#include "raw_client.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace energy::testing {

int connect_to(const std::string& path) {
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    int e = errno;
    ::close(fd);
    return -e;
  }
  return fd;
}

bool send_all(int fd, const std::string& data) {
  size_t at = 0;
  while (at < data.size()) {
    ssize_t n = ::send(fd, data.data() + at, data.size() - at, MSG_NOSIGNAL);
    if (n <= 0) return false;
    at += static_cast<size_t>(n);
  }
  return true;
}

std::string Replies::next(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto msg = dec_.next();
    if (!msg) return "bad frame: " + msg.error().message;
    if (msg->has_value()) return (**msg).dump();
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return "timeout";
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char buf[65536];
    ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
    if (n <= 0) return "eof";
    dec_.feed(buf, static_cast<size_t>(n));
  }
}

std::string read_reply(int fd, std::chrono::milliseconds timeout) { return Replies(fd).next(timeout); }

std::string call(int fd, const std::string& verb, const nlohmann::json& args) {
  if (!send_all(fd, protocol::encode_frame(protocol::make_request(1, verb, args)))) return "send failed";
  return read_reply(fd);
}

std::string outcome(const std::string& reply_text) {
  auto j = nlohmann::json::parse(reply_text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return reply_text;
  if (j.value("ok", false)) return "ok";
  const auto& err = j["error"];
  return err.is_object() && err.contains("code") && err["code"].is_string() ? err["code"].get<std::string>() : "?";
}

std::string raw_frame(const std::string& payload) {
  std::string out;
  auto n = static_cast<uint32_t>(payload.size());
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((n >> shift) & 0xffu));
  return out + payload;
}

}  // namespace energy::testing
