#include "energy/client.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "energy/protocol.h"

namespace energy {
namespace {

using std::chrono::milliseconds;
using SteadyClock = std::chrono::steady_clock;

std::string ms_text(milliseconds t) { return std::to_string(t.count()) + " ms"; }

milliseconds at_least_1ms(milliseconds t) { return std::max(t, milliseconds(1)); }

// SO_SNDTIMEO bounds both connect() (while the listen backlog is full: it
// then fails with EAGAIN) and send() on a Unix stream socket.
Status set_send_timeout(int fd, milliseconds t) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(t.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((t.count() % 1000) * 1000);
  if (::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) != 0) {
    return errno_error("cannot set a send timeout on the socket");
  }
  return ok_status();
}

Error connect_error(const std::string& path, int err, milliseconds timeout) {
  if (err == EAGAIN || err == EWOULDBLOCK || err == EINPROGRESS) {
    return make_error(ErrorCode::kTimeout, "energyd did not accept the connection on " + path + " within " +
                                               ms_text(timeout) +
                                               " (its listen backlog is full: is it overloaded or out of file "
                                               "descriptors?)");
  }
  std::string hint = (err == ENOENT || err == ECONNREFUSED) ? " (is energyd running?)" : "";
  return make_error(ErrorCode::kIo, "cannot connect to " + path + hint, err);
}

Result<UniqueFd> connect_unix(const std::string& path, milliseconds timeout) {
  sockaddr_un addr{};
  if (path.size() >= sizeof addr.sun_path) {
    return make_error(ErrorCode::kInvalid, "socket path too long: " + path);
  }
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) return errno_error("cannot create a socket");
  auto timed = set_send_timeout(fd.get(), timeout);
  if (!timed) return timed.take_error();
  int r = 0;
  do {
    r = ::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  } while (r != 0 && errno == EINTR);
  if (r != 0) return connect_error(path, errno, timeout);
  return fd;
}

// An id-0 frame is about the connection, never a reply: requests start at 1.
bool is_connection_frame(const nlohmann::json& frame) {
  auto id = frame.find("id");
  return id != frame.end() && id->is_number_integer() && id->get<int64_t>() == 0;
}

bool peer_closed(const Error& e) { return e.sys_errno == EPIPE || e.sys_errno == ECONNRESET; }

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

Client::Client(UniqueFd fd, std::string path, ClientTimeouts timeouts)
    : fd_(std::move(fd)), path_(std::move(path)), timeouts_(timeouts) {}

Result<Client> Client::connect(const std::string& socket_path, ClientTimeouts timeouts) {
  timeouts.connect = at_least_1ms(timeouts.connect);
  timeouts.reply = at_least_1ms(timeouts.reply);
  auto fd = connect_unix(socket_path, timeouts.connect);
  if (!fd) return fd.take_error();
  auto timed = set_send_timeout(fd->get(), timeouts.reply);
  if (!timed) return timed.take_error();
  return Client(std::move(fd).value(), socket_path, timeouts);
}

Result<Client> Client::connect(const std::string& socket_path, milliseconds reply_timeout) {
  ClientTimeouts timeouts;
  timeouts.reply = reply_timeout;
  return connect(socket_path, timeouts);
}

Status Client::send_all(const std::string& bytes) {
  size_t off = 0;
  while (off < bytes.size()) {
    ssize_t n = ::send(fd_.get(), bytes.data() + off, bytes.size() - off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return make_error(ErrorCode::kTimeout,
                        "energyd did not take the request on " + path_ + " within " + ms_text(timeouts_.reply));
    }
    if (n < 0) return errno_error("cannot send to " + path_);
    off += static_cast<size_t>(n);
  }
  return ok_status();
}

// The decoder is the Client's: bytes read past one frame belong to the next.
Result<nlohmann::json> Client::receive_one(Deadline deadline) {
  char buf[65536];
  for (;;) {
    auto msg = decoder_.next();
    if (!msg) return msg.take_error();
    if (msg->has_value()) return std::move(**msg);
    auto left = std::chrono::ceil<milliseconds>(deadline - SteadyClock::now());
    pollfd p{fd_.get(), POLLIN, 0};
    int r = left.count() > 0 ? ::poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), INT32_MAX))) : 0;
    if (r < 0 && errno == EINTR) continue;
    if (r == 0)
      return make_error(ErrorCode::kTimeout, "no reply from " + path_ + " within " + ms_text(timeouts_.reply));
    ssize_t n = ::recv(fd_.get(), buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_error("cannot receive from " + path_);
    if (n == 0) return make_error(ErrorCode::kIo, "energyd closed the connection " + path_);
    decoder_.feed(buf, static_cast<size_t>(n));
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
  Deadline deadline = SteadyClock::now() + timeouts_.reply;
  auto sent = send_all(frame);
  if (!sent) return last_word_or(sent.take_error(), deadline);
  auto reply = receive_reply(id, deadline);
  if (!reply) return reply.take_error();
  if (is_connection_frame(*reply)) return refusal(*reply);
  return protocol::parse_reply(*reply, id);
}

Result<nlohmann::json> Client::receive_reply(int64_t id, Deadline deadline) {
  for (;;) {
    auto frame = receive_one(deadline);
    if (!frame) return frame;
    auto got = frame->find("id");
    bool stale = got != frame->end() && got->is_number_integer() && got->get<int64_t>() > 0 && got->get<int64_t>() < id;
    if (!stale) return frame;
  }
}

// energyd refuses a connection with one id-0 frame and closes it; a request
// sent meanwhile fails with EPIPE (or ECONNRESET), but the frame is still
// in this socket's receive queue.
Error Client::last_word_or(Error send_error, Deadline deadline) {
  if (!peer_closed(send_error)) return send_error;
  auto last = receive_one(deadline);
  if (last && is_connection_frame(*last)) return refusal(*last);
  return send_error;
}

Error Client::refusal(const nlohmann::json& frame) const {
  auto said = protocol::parse_reply(frame, 0);
  if (said)
    return make_error(ErrorCode::kProtocol, "energyd sent a frame with id 0 that is not an error (" + path_ + ")");
  Error e = said.take_error();
  e.message = "energyd refused the connection on " + path_ + ": " + error_code_name(e.code) + ": " + e.message;
  return e;
}

}  // namespace energy
