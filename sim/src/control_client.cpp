#include "control_client.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cerrno>
#include <cstring>

#include "energy/protocol.h"

namespace energy::sim {

ErrorCode error_code_from_name(const std::string& name) {
  for (ErrorCode c :
       {ErrorCode::kIo, ErrorCode::kParse, ErrorCode::kNotFound, ErrorCode::kInvalid, ErrorCode::kUnsupported,
        ErrorCode::kProtocol, ErrorCode::kState, ErrorCode::kDenied, ErrorCode::kStorage, ErrorCode::kTimeout}) {
    if (name == error_code_name(c)) return c;
  }
  return ErrorCode::kProtocol;
}

namespace {

std::string string_field(const nlohmann::json& object, const char* key, const char* fallback) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string(fallback);
}

}  // namespace

Result<ControlClient> ControlClient::connect(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof(addr.sun_path)) {
    return make_error(ErrorCode::kInvalid, "control socket path '" + path + "' is empty or too long");
  }
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) return errno_error("cannot create a Unix socket");
  if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) != 0) {
    return errno_error("cannot connect to the simulator's control socket " + path + " (is energyd-sim run there?)");
  }
  return ControlClient(std::move(fd));
}

Status ControlClient::send_all(const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::send(fd_.get(), bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_error("cannot send to the control socket");
    done += static_cast<std::size_t>(n);
  }
  return ok_status();
}

Result<nlohmann::json> ControlClient::exchange(const nlohmann::json& request, std::chrono::milliseconds timeout) {
  Status sent = send_all(protocol::encode_frame(request));
  if (!sent) return sent.take_error();
  protocol::FrameDecoder decoder(protocol::kMaxReplyBytes);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    Result<std::optional<nlohmann::json>> reply = decoder.next();
    if (!reply) return reply.take_error();
    if (*reply) return **reply;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd pfd{fd_.get(), POLLIN, 0};
    if (left.count() <= 0 || ::poll(&pfd, 1, static_cast<int>(left.count())) == 0) {
      return make_error(ErrorCode::kTimeout,
                        "no reply from the simulator within " + std::to_string(timeout.count()) + " ms");
    }
    char buffer[4096];
    const ssize_t n = ::recv(fd_.get(), buffer, sizeof(buffer), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return make_error(ErrorCode::kProtocol, "the simulator closed the control connection");
    decoder.feed(buffer, static_cast<std::size_t>(n));
  }
}

Result<nlohmann::json> ControlClient::call(const std::string& cmd, const nlohmann::json& args,
                                           std::chrono::milliseconds timeout) {
  nlohmann::json request = args.is_object() ? args : nlohmann::json::object();
  request["cmd"] = cmd;
  Result<nlohmann::json> reply = exchange(request, timeout);
  if (!reply) return reply;
  const auto ok = reply->find("ok");
  if (ok != reply->end() && ok->is_boolean() && ok->get<bool>()) return reply;
  const auto error = reply->find("error");
  const nlohmann::json fields = error != reply->end() && error->is_object() ? *error : nlohmann::json::object();
  return make_error(error_code_from_name(string_field(fields, "code", "protocol")),
                    cmd + ": " + string_field(fields, "message", "the simulator gave no reason"));
}

}  // namespace energy::sim
