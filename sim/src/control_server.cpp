#include "control_server.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <list>

#include "control.h"
#include "energy/protocol.h"

namespace energy::sim {
namespace {

struct Connection {
  explicit Connection(UniqueFd socket) : fd(std::move(socket)) {}
  UniqueFd fd;
  protocol::FrameDecoder decoder{protocol::kMaxRequestBytes};
  std::string out;
  bool closing = false;  // close once `out` is sent
};

Result<sockaddr_un> socket_address(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof(addr.sun_path)) {
    return make_error(ErrorCode::kInvalid, "control socket path '" + path + "' must be 1.." +
                                               std::to_string(sizeof(addr.sun_path) - 1) + " bytes long");
  }
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  return addr;
}

// A socket file nobody listens on is left by a dead simulator: replace it.
Status clear_stale_socket(const std::string& path, const sockaddr_un& addr) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return ok_status();
  if (!S_ISSOCK(st.st_mode)) return make_error(ErrorCode::kState, path + " exists and is not a socket");
  UniqueFd probe(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (probe && ::connect(probe.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) == 0) {
    return make_error(ErrorCode::kState, path + " is in use by a running simulator");
  }
  if (::unlink(path.c_str()) != 0) return errno_error("cannot remove the stale socket " + path);
  return ok_status();
}

Result<UniqueFd> listen_at(const std::string& path) {
  Result<sockaddr_un> addr = socket_address(path);
  if (!addr) return addr.take_error();
  Status cleared = clear_stale_socket(path, *addr);
  if (!cleared) return cleared.take_error();
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd) return errno_error("cannot create a Unix socket");
  if (::bind(fd.get(), reinterpret_cast<const sockaddr*>(&*addr), sizeof(*addr)) != 0) {
    return errno_error("cannot bind the control socket " + path);
  }
  if (::listen(fd.get(), 16) != 0) return errno_error("cannot listen on " + path);
  return fd;
}

void reply_to(Connection& c, const ControlServer::Handler& handler, const nlohmann::json& request) {
  nlohmann::json reply;
  try {
    reply = handler(request);
  } catch (const std::exception& e) {
    reply = control_error_reply(make_error(ErrorCode::kInvalid, std::string("request failed: ") + e.what()));
  }
  c.out += protocol::encode_frame(reply);
}

void decode(Connection& c, const ControlServer::Handler& handler) {
  for (;;) {
    Result<std::optional<nlohmann::json>> message = c.decoder.next();
    if (!message) {
      c.out += protocol::encode_frame(control_error_reply(message.error()));
      c.closing = true;
      return;
    }
    if (!*message) return;
    reply_to(c, handler, **message);
  }
}

// False when the connection is finished (peer closed or an error).
bool on_readable(Connection& c, const ControlServer::Handler& handler) {
  char buffer[4096];
  const ssize_t n = ::recv(c.fd.get(), buffer, sizeof(buffer), 0);
  if (n < 0) return errno == EAGAIN || errno == EINTR;
  if (n == 0) return false;
  c.decoder.feed(buffer, static_cast<std::size_t>(n));
  decode(c, handler);
  return true;
}

bool on_writable(Connection& c) {
  const ssize_t n = ::send(c.fd.get(), c.out.data(), c.out.size(), MSG_NOSIGNAL);
  if (n < 0) return errno == EAGAIN || errno == EINTR;
  c.out.erase(0, static_cast<std::size_t>(n));
  return !(c.closing && c.out.empty());
}

short wanted_events(const Connection& c) {
  short events = c.closing ? 0 : POLLIN;
  if (!c.out.empty()) events = static_cast<short>(events | POLLOUT);
  return events;
}

}  // namespace

std::thread thread_without_signals(std::function<void()> body) {
  sigset_t blocked;
  sigset_t previous;
  sigemptyset(&blocked);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&blocked, sig);
  pthread_sigmask(SIG_BLOCK, &blocked, &previous);
  std::thread thread(std::move(body));  // inherits the mask
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return thread;
}

Result<std::unique_ptr<ControlServer>> ControlServer::start(const std::string& path, Handler handler) {
  Result<UniqueFd> listener = listen_at(path);
  if (!listener) return listener.take_error();
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC | O_NONBLOCK) != 0) return errno_error("cannot create the wake-up pipe");
  return std::unique_ptr<ControlServer>(new ControlServer(path, std::move(listener).value(), UniqueFd(pipe_fds[0]),
                                                          UniqueFd(pipe_fds[1]), std::move(handler)));
}

ControlServer::ControlServer(std::string path, UniqueFd listener, UniqueFd wake_read, UniqueFd wake_write,
                             Handler handler)
    : path_(std::move(path)),
      listener_(std::move(listener)),
      wake_read_(std::move(wake_read)),
      wake_write_(std::move(wake_write)),
      handler_(std::move(handler)) {
  thread_ = thread_without_signals([this] { serve(); });
}

ControlServer::~ControlServer() {
  const char byte = 1;
  (void)!::write(wake_write_.get(), &byte, 1);
  if (thread_.joinable()) thread_.join();
  ::unlink(path_.c_str());
}

void ControlServer::serve() {
  std::list<Connection> connections;
  for (;;) {
    std::vector<pollfd> fds = {{wake_read_.get(), POLLIN, 0}, {listener_.get(), POLLIN, 0}};
    for (const Connection& c : connections) fds.push_back({c.fd.get(), wanted_events(c), 0});
    if (::poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR) return;
    if ((fds[0].revents & POLLIN) != 0) return;
    if ((fds[1].revents & POLLIN) != 0) {
      UniqueFd client(::accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
      if (client) connections.emplace_back(std::move(client));
    }
    std::size_t i = 2;
    for (auto it = connections.begin(); it != connections.end(); ++i) {
      const short revents = i < fds.size() ? fds[i].revents : 0;
      bool keep = true;
      if ((revents & POLLIN) != 0) keep = on_readable(*it, handler_);
      if (keep && (revents & POLLOUT) != 0) keep = on_writable(*it);
      if ((revents & (POLLERR | POLLHUP)) != 0 && (revents & POLLIN) == 0) keep = false;
      it = keep ? std::next(it) : connections.erase(it);
    }
  }
}

}  // namespace energy::sim
