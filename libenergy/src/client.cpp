#include "energy/client.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

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

Error unreadable_reply(const std::string& verb, const std::string& why) {
  return make_error(ErrorCode::kProtocol, "energyd's reply to " + verb + " cannot be read: " + why);
}

int64_t required_int(const nlohmann::json& j, const char* key) {
  const auto& v = j.at(key);
  if (!v.is_number_integer()) throw std::invalid_argument(std::string("field \"") + key + "\" is not an integer");
  return v.get<int64_t>();
}

// mark.start's result; throws (caught by the caller) on a missing or mistyped field.
RunInfo run_info_from(const nlohmann::json& j) {
  RunInfo info;
  info.id = required_int(j, "id");
  info.name = j.at("name").get<std::string>();
  info.start_ns = required_int(j, "start_ns");
  info.start_wall_ns = required_int(j, "start_wall_ns");
  auto tags = j.find("tags");
  if (tags != j.end() && tags->is_object()) {
    for (const auto& [k, v] : tags->items()) info.tags[k] = v.is_string() ? v.get<std::string>() : v.dump();
  }
  return info;
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
    if (r == 0)
      return make_error(ErrorCode::kTimeout,
                        "no reply from " + path_ + " within " + std::to_string(timeout_.count()) + " ms");
    ssize_t n = ::recv(fd_.get(), buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_error("cannot receive from " + path_);
    if (n == 0) return make_error(ErrorCode::kIo, "energyd closed the connection " + path_);
    decoder.feed(buf, static_cast<size_t>(n));
  }
}

Result<nlohmann::json> Client::call(const std::string& verb, const nlohmann::json& args) {
  try {
    return exchange(verb, args);
  } catch (const nlohmann::json::exception& e) {
    return unreadable_reply(verb, e.what());
  }
}

Result<nlohmann::json> Client::status() { return call("status"); }

Result<RunInfo> Client::mark_start(const std::string& name, const Tags& tags) {
  auto result = call("mark.start", {{"name", name}, {"tags", tags}});
  if (!result) return result.take_error();
  try {
    return run_info_from(*result);
  } catch (const std::exception& e) {
    return unreadable_reply("mark.start", e.what());
  }
}

Result<nlohmann::json> Client::mark_stop(int64_t run_id) { return mark_stop(std::to_string(run_id)); }

Result<nlohmann::json> Client::mark_stop(const std::string& name_or_id) {
  return call("mark.stop", {{"run", name_or_id}});
}

Result<nlohmann::json> Client::exchange(const std::string& verb, const nlohmann::json& args) {
  int64_t id = next_id_++;
  std::string frame = protocol::encode_frame(protocol::make_request(id, verb, args));
  if (frame.size() - protocol::kHeaderBytes > protocol::kMaxRequestBytes) {
    return make_error(ErrorCode::kInvalid, verb + " request of " + std::to_string(frame.size()) +
                                               " bytes exceeds the protocol's limit of " +
                                               std::to_string(protocol::kMaxRequestBytes) + " bytes");
  }
  auto sent = send_all(frame);
  if (!sent) return sent.take_error();
  auto reply = receive_one();
  if (!reply) return reply.take_error();
  return protocol::parse_reply(*reply, id);
}

}  // namespace energy
