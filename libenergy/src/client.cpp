#include "energy/client.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "energy/protocol.h"

namespace energy {
namespace {

Result<UniqueFd> connect_unix(const std::string& path) {
  sockaddr_un addr{};
  if (path.size() >= sizeof addr.sun_path) {
    return make_error(ErrorCode::kInvalid, "socket path too long: " + path);
  }
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) return errno_error("cannot create a socket");
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    int err = errno;
    std::string hint = (err == ENOENT || err == ECONNREFUSED) ? " (is energyd running?)" : "";
    return make_error(ErrorCode::kIo, "cannot connect to " + path + hint, err);
  }
  return fd;
}

}  // namespace

std::string default_socket_path() {
  const char* env = std::getenv("ENERGYD_SOCKET");
  return env != nullptr && *env != '\0' ? env : "/run/energyd/energyd.sock";
}

Client::Client(UniqueFd fd, std::string path, std::chrono::milliseconds timeout)
    : fd_(std::move(fd)), path_(std::move(path)), timeout_(timeout) {}

Result<Client> Client::connect(const std::string& socket_path, std::chrono::milliseconds timeout) {
  auto fd = connect_unix(socket_path);
  if (!fd) return fd.take_error();
  return Client(std::move(fd).value(), socket_path, timeout);
}

Status Client::send_all(const std::string& bytes) {
  size_t off = 0;
  while (off < bytes.size()) {
    ssize_t n = ::send(fd_.get(), bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_error("cannot send to " + path_);
    off += static_cast<size_t>(n);
  }
  return ok_status();
}

Result<nlohmann::json> Client::receive_one() {
  protocol::FrameDecoder decoder(protocol::kMaxReplyBytes);
  char buf[65536];
  for (;;) {
    auto msg = decoder.next();
    if (!msg) return msg.take_error();
    if (msg->has_value()) return std::move(**msg);
    pollfd p{fd_.get(), POLLIN, 0};
    int r = ::poll(&p, 1, static_cast<int>(timeout_.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) return make_error(ErrorCode::kTimeout, "no reply from " + path_ + " within " +
                                                           std::to_string(timeout_.count()) + " ms");
    ssize_t n = ::recv(fd_.get(), buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_error("cannot receive from " + path_);
    if (n == 0) return make_error(ErrorCode::kIo, "energyd closed the connection " + path_);
    decoder.feed(buf, static_cast<size_t>(n));
  }
}

Result<nlohmann::json> Client::call(const std::string& verb, const nlohmann::json& args) {
  int64_t id = next_id_++;
  auto sent = send_all(protocol::encode_frame(protocol::make_request(id, verb, args)));
  if (!sent) return sent.take_error();
  auto reply = receive_one();
  if (!reply) return reply.take_error();
  return protocol::parse_reply(*reply, id);
}

}  // namespace energy
