#include "server.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
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
  PeerCredentials peer;
  uint64_t partial_since_us = 0;  // a frame has been started but not finished since (0: none)
  uint64_t stalled_since_us = 0;  // replies have waited unsent since (0: none waiting)
  bool closing = false;           // close once `out` is written
  bool dead = false;              // to be destroyed by handle_io or the sweep (never while dispatching)
};

namespace {

std::string peer_name(const PeerCredentials& p) {
  return "uid " + std::to_string(p.uid) + " pid " + std::to_string(p.pid);
}

}  // namespace

void Responder::reply(nlohmann::json result) const { server_->send(conn_, protocol::make_ok(id_, std::move(result))); }
void Responder::fail(const Error& error) const { server_->send(conn_, protocol::make_error_reply(id_, error)); }

Server::Server(sd_event* loop, std::string socket_path, Handler handler, ServerOptions options)
    : loop_(loop), path_(std::move(socket_path)), handler_(std::move(handler)), options_(std::move(options)) {}

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
  if (auto perms = restrict_socket_file(path_, options_.policy); !perms) {
    spdlog::warn("{}; clients outside the socket's group may be unable to connect", perms.error().describe());
  }
  if (::listen(listen_fd_.get(), 64) != 0) return errno_error("cannot listen on " + path_);
  sd_event_source* s = nullptr;
  int r = sd_event_add_io(loop_, &s, listen_fd_.get(), EPOLLIN, &Server::on_accept, this);
  if (r < 0) return make_error(ErrorCode::kIo, "cannot watch socket " + path_, -r);
  listen_source_.reset(s);
  r = sd_event_add_time(loop_, &s, CLOCK_MONOTONIC, now_us() + sweep_every_us(), 0, &Server::on_sweep, this);
  if (r < 0) return make_error(ErrorCode::kIo, "cannot arm the client deadline timer", -r);
  sd_event_source_set_enabled(s, SD_EVENT_ON);
  sweep_source_.reset(s);
  return ok_status();
}

// Deadlines are enforced to within a quarter of their length.
uint64_t Server::sweep_every_us() const {
  auto every = std::clamp<std::chrono::microseconds>(options_.client_deadline / 4, std::chrono::milliseconds(25),
                                                     std::chrono::seconds(1));
  return static_cast<uint64_t>(every.count());
}

uint64_t Server::now_us() const {
  uint64_t now = 0;
  sd_event_now(loop_, CLOCK_MONOTONIC, &now);
  return now;
}

int Server::on_accept(sd_event_source*, int, uint32_t, void* self) {
  static_cast<Server*>(self)->accept_all();
  return 0;
}

void Server::accept_all() {
  for (;;) {
    UniqueFd fd(::accept4(listen_fd_.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
    if (!fd) return;  // EAGAIN, or a transient error: the next readiness retries
    admit(std::move(fd));
    wake_sweep();
  }
}

// The deadline sweep sleeps while there are no clients (on_sweep).
void Server::wake_sweep() {
  int enabled = SD_EVENT_OFF;
  if (sd_event_source_get_enabled(sweep_source_.get(), &enabled) < 0 || enabled != SD_EVENT_OFF) return;
  sd_event_source_set_time(sweep_source_.get(), now_us() + sweep_every_us());
  sd_event_source_set_enabled(sweep_source_.get(), SD_EVENT_ON);
}

// A refused connection gets one error frame (best effort: its buffer is
// empty, so it fits) and is closed at once.
void Server::admit(UniqueFd fd) {
  auto peer = read_peer_credentials(fd.get());
  std::string refusal;
  if (!peer)
    refusal = "cannot identify the client: " + peer.error().describe();
  else if (connections_of(peer->uid) >= options_.max_connections_per_user) {
    refusal = "too many connections from uid " + std::to_string(peer->uid) + " (max_connections_per_user is " +
              std::to_string(options_.max_connections_per_user) + ")";
  }
  if (!refusal.empty()) {
    if (auto v = log_limit_.allow("connection"); v.log) {
      spdlog::warn("refusing a connection{}: {}{}", peer ? " from " + peer_name(*peer) : "", refusal,
                   LogLimiter::suffix(v));
    }
    std::string frame = protocol::encode_frame(protocol::make_error_reply(0, make_error(ErrorCode::kDenied, refusal)));
    (void)::send(fd.get(), frame.data(), frame.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    return;
  }
  auto c = std::make_unique<Connection>();
  c->id = next_conn_++;
  c->server = this;
  c->fd = std::move(fd);
  c->peer = std::move(peer).value();
  sd_event_source* s = nullptr;
  if (sd_event_add_io(loop_, &s, c->fd.get(), EPOLLIN, &Server::on_io, c.get()) < 0) return;
  c->source.reset(s);
  conns_[c->id] = std::move(c);
}

size_t Server::connections_of(uid_t uid) const {
  return static_cast<size_t>(std::count_if(
      conns_.begin(), conns_.end(), [uid](const auto& kv) { return kv.second->peer.uid == uid && !kv.second->dead; }));
}

int Server::on_sweep(sd_event_source* s, uint64_t usec, void* self) {
  auto* server = static_cast<Server*>(self);
  server->sweep(usec);
  sd_event_source_set_time(s, usec + server->sweep_every_us());
  // Without clients there is nothing to sweep: accept_all() turns it back on.
  sd_event_source_set_enabled(s, server->conns_.empty() ? SD_EVENT_OFF : SD_EVENT_ON);
  return 0;
}

// Cuts off clients past a deadline and destroys connections marked dead
// outside handle_io (e.g. by a reply posted from another thread).
void Server::sweep(uint64_t now) {
  auto limit =
      static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(options_.client_deadline).count());
  std::vector<uint64_t> gone;
  for (auto& [id, c] : conns_) {
    if (!c->dead && c->partial_since_us != 0 && now - c->partial_since_us > limit) {
      cut_off(*c, "sent part of a request frame and not the rest within client_deadline_ms");
    }
    if (!c->dead && c->stalled_since_us != 0 && now - c->stalled_since_us > limit) {
      cut_off(*c, "did not read its replies within client_deadline_ms");
    }
    if (c->dead) gone.push_back(id);
  }
  for (uint64_t id : gone) close(id);
}

void Server::cut_off(Connection& c, const std::string& why) {
  if (auto v = log_limit_.allow("connection"); v.log) {
    spdlog::warn("cutting off client {} ({}): {}{}", c.id, peer_name(c.peer), why, LogLimiter::suffix(v));
  }
  c.out.clear();
  c.dead = true;
}

int Server::on_io(sd_event_source*, int, uint32_t revents, void* conn) {
  auto* c = static_cast<Connection*>(conn);
  c->server->handle_io(*c, revents);
  return 0;
}

// Connections are destroyed here and in sweep() only: level-triggered epoll
// reports a dead or finished peer again, so a connection marked dead
// elsewhere is closed on its next event or by the next sweep.
void Server::handle_io(Connection& c, uint32_t revents) {
  if ((revents & EPOLLIN) != 0 && !c.closing && !c.dead) {
    bool open = read_some(c);
    dispatch(c);
    if (!open) c.closing = true;
    if (c.decoder.buffered() == 0)
      c.partial_since_us = 0;
    else if (c.partial_since_us == 0)
      c.partial_since_us = now_us();
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
    c.partial_since_us = 0;  // a frame was completed; what is left starts the next one
    if (c.out.size() >= options_.output_limit_bytes) {
      return cut_off(c, "left more than client_output_limit_bytes of replies unread");
    }
    handle_request(c, **msg);
  }
}

// The envelope is checked before anything else reads the message (a request
// whose id is not an integer is answered with id 0). The handler validates
// its own arguments; an exception that escapes it anyway is a bug, answered
// as an `internal` error and logged instead of ending the process.
void Server::handle_request(Connection& c, const nlohmann::json& message) {
  auto req = protocol::parse_request(message);
  if (!req) {
    c.out += protocol::encode_frame(protocol::make_error_reply(protocol::request_id_or_zero(message), req.error()));
    return;
  }
  if (!permitted(c, *req)) return;
  try {
    handler_(*req, Responder(this, c.id, req->id, c.peer));
  } catch (const std::exception& e) {
    spdlog::error("BUG: verb '{}' from {} threw: {}", req->verb, peer_name(c.peer), e.what());
    c.out += protocol::encode_frame(protocol::make_error_reply(
        req->id, make_error(ErrorCode::kInternal, "energyd could not handle '" + req->verb + "': " + e.what())));
  }
}

bool Server::permitted(Connection& c, const protocol::Request& req) {
  Privilege needed = verb_privilege(req.verb);
  if (options_.policy.permits(c.peer, needed)) return true;
  if (auto v = log_limit_.allow("denial"); v.log) {
    spdlog::warn("refused '{}' from {}: needs the {} privilege{}", req.verb, peer_name(c.peer), privilege_name(needed),
                 LogLimiter::suffix(v));
  }
  std::string group = needed == Privilege::kClock ? options_.policy.clock_group : options_.policy.read_group;
  c.out += protocol::encode_frame(protocol::make_error_reply(
      req.id, make_error(ErrorCode::kDenied, "permission denied: '" + req.verb + "' needs the " +
                                                 privilege_name(needed) + " privilege (root or group " +
                                                 (group.empty() ? std::string("none configured") : group) + ")")));
  return false;
}

void Server::send(uint64_t conn, const nlohmann::json& message) {
  auto it = conns_.find(conn);
  if (it == conns_.end() || it->second->dead) return;  // the client left before its answer was ready
  Connection& c = *it->second;
  if (c.out.size() >= options_.output_limit_bytes) {
    return cut_off(c, "left more than client_output_limit_bytes of replies unread");
  }
  c.out += protocol::encode_frame(message);
  flush(c);
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
    c.stalled_since_us = 0;  // progress: the client is reading
  }
  if (!c.out.empty() && c.stalled_since_us == 0) c.stalled_since_us = now_us();
  if (c.out.empty()) c.stalled_since_us = 0;
  if (c.out.empty() && c.closing) c.dead = true;
  if (c.dead) return;
  sd_event_source_set_io_events(c.source.get(), c.out.empty() ? EPOLLIN : (EPOLLIN | EPOLLOUT));
}

void Server::close(uint64_t id) {
  conns_.erase(id);
  if (close_hook_) close_hook_(id);
}

}  // namespace energy::daemon
