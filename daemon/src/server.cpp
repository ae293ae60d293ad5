#include "server.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <spdlog/spdlog.h>

namespace energy::daemon {

struct Server::Connection {
  uint64_t id = 0;
  Server* server = nullptr;
  UniqueFd fd;
  SourcePtr source;
  protocol::FrameDecoder decoder{protocol::kMaxRequestBytes};
  std::string out;
  bool closing = false;  // close once `out` is written
  bool dead = false;     // to be destroyed by handle_io (never while dispatching)
};

void Responder::reply(nlohmann::json result) const { server_->send(conn_, protocol::make_ok(id_, std::move(result))); }
void Responder::fail(const Error& error) const { server_->send(conn_, protocol::make_error_reply(id_, error)); }

Server::Server(sd_event* loop, std::string socket_path, Handler handler)
    : loop_(loop), path_(std::move(socket_path)), handler_(std::move(handler)) {}

Server::~Server() {
  conns_.clear();
  listen_source_.reset();
  if (listen_fd_) ::unlink(path_.c_str());
}

Status Server::listen() {
  sockaddr_un addr{};
  if (path_.size() >= sizeof addr.sun_path) return make_error(ErrorCode::kInvalid, "socket path too long: " + path_);
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path_.c_str(), path_.size() + 1);
  listen_fd_.reset(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!listen_fd_) return errno_error("cannot create socket " + path_);
  struct stat st {};
  if (::lstat(path_.c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) ::unlink(path_.c_str());  // stale from a crash
  if (::bind(listen_fd_.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    return errno_error("cannot bind socket " + path_);
  }
  ::chmod(path_.c_str(), 0660);
  if (::listen(listen_fd_.get(), 64) != 0) return errno_error("cannot listen on " + path_);
  sd_event_source* s = nullptr;
  int r = sd_event_add_io(loop_, &s, listen_fd_.get(), EPOLLIN, &Server::on_accept, this);
  if (r < 0) return make_error(ErrorCode::kIo, "cannot watch socket " + path_, -r);
  listen_source_.reset(s);
  return ok_status();
}

int Server::on_accept(sd_event_source*, int, uint32_t, void* self) {
  static_cast<Server*>(self)->accept_all();
  return 0;
}

void Server::accept_all() {
  for (;;) {
    UniqueFd fd(::accept4(listen_fd_.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
    if (!fd) return;  // EAGAIN, or a transient error: the next readiness retries
    auto c = std::make_unique<Connection>();
    c->id = next_conn_++;
    c->server = this;
    c->fd = std::move(fd);
    sd_event_source* s = nullptr;
    if (sd_event_add_io(loop_, &s, c->fd.get(), EPOLLIN, &Server::on_io, c.get()) < 0) continue;
    c->source.reset(s);
    conns_[c->id] = std::move(c);
  }
}

int Server::on_io(sd_event_source*, int, uint32_t revents, void* conn) {
  auto* c = static_cast<Connection*>(conn);
  c->server->handle_io(*c, revents);
  return 0;
}

// The only place a connection is destroyed: level-triggered epoll reports a
// dead or finished peer again, so a connection marked dead elsewhere is
// closed on its next event.
void Server::handle_io(Connection& c, uint32_t revents) {
  if ((revents & EPOLLIN) != 0 && !c.closing && !c.dead) {
    bool open = read_some(c);
    dispatch(c);
    if (!open) c.closing = true;
  }
  flush(c);
  if ((revents & (EPOLLHUP | EPOLLERR)) != 0 && c.out.empty()) c.dead = true;
  if (c.dead) close(c.id);
}

// False when the peer has finished sending.
bool Server::read_some(Connection& c) {
  char buf[16384];
  for (;;) {
    ssize_t n = ::recv(c.fd.get(), buf, sizeof buf, 0);
    if (n > 0) {
      c.decoder.feed(buf, static_cast<size_t>(n));
      if (c.decoder.buffered() > protocol::kHeaderBytes + protocol::kMaxRequestBytes) return true;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
  }
}

void Server::dispatch(Connection& c) {
  while (!c.closing && !c.dead) {
    auto msg = c.decoder.next();
    if (!msg) {
      spdlog::debug("client {}: {}; closing", c.id, msg.error().message);
      c.out += protocol::encode_frame(protocol::make_error_reply(0, msg.error()));
      c.closing = true;
      return;
    }
    if (!msg->has_value()) return;
    auto req = protocol::parse_request(**msg);
    int64_t rid = (**msg).value("id", int64_t{0});
    if (!req) {
      c.out += protocol::encode_frame(protocol::make_error_reply(rid, req.error()));
      continue;
    }
    handler_(*req, Responder(this, c.id, req->id));
  }
}

void Server::send(uint64_t conn, const nlohmann::json& message) {
  auto it = conns_.find(conn);
  if (it == conns_.end()) return;  // the client left before its answer was ready
  it->second->out += protocol::encode_frame(message);
  flush(*it->second);
}

void Server::flush(Connection& c) {
  while (!c.out.empty()) {
    ssize_t n = ::send(c.fd.get(), c.out.data(), c.out.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n < 0) {
      c.out.clear();
      c.dead = true;
      return;
    }
    c.out.erase(0, static_cast<size_t>(n));
  }
  if (c.out.empty() && c.closing) c.dead = true;
  if (c.dead) return;
  sd_event_source_set_io_events(c.source.get(), c.out.empty() ? EPOLLIN : (EPOLLIN | EPOLLOUT));
}

void Server::close(uint64_t id) {
  conns_.erase(id);
  if (close_hook_) close_hook_(id);
}

}  // namespace energy::daemon
