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
  size_t in_flight = 0;           // requests handed to the handler and not yet answered
  size_t counted_out = 0;         // out.size() as last added to the Server's OutputGauge
  bool closing = false;           // a protocol error: close once `out` is written, read nothing more
  bool eof = false;               // the peer sent everything: close once its requests are answered
  bool dispatching = false;       // in dispatch(): a reply sent meanwhile must not dispatch again
  bool held = false;              // reading is paused at the bounds (throttled())
  bool dead = false;              // to be destroyed by handle_io or the sweep (never while dispatching)
  std::shared_ptr<ConnectionFlags> flags = std::make_shared<ConnectionFlags>();
  ~Connection() { flags->gone = true; }  // work queued for it elsewhere is dropped
};

namespace {

std::string peer_name(const PeerCredentials& p) {
  return "uid " + std::to_string(p.uid) + " pid " + std::to_string(p.pid);
}

// The frame of an ok reply whose result is the JSON text `result_json`: the
// members protocol::make_ok gives, in the order nlohmann::json writes them.
// Framed in the text's own buffer (export_rows.h leaves room), not a copy.
std::string ok_frame_of_text(int64_t id, std::string result_json) {
  std::string head = "{\"id\":" + std::to_string(id) + ",\"ok\":true,\"result\":";
  std::string tail = ",\"v\":" + std::to_string(protocol::kVersion) + "}";
  auto n = static_cast<uint32_t>(head.size() + result_json.size() + tail.size());
  std::string frame = std::move(result_json);
  frame.reserve(protocol::kHeaderBytes + n);
  frame.insert(0, protocol::frame_header(n) + head);
  frame += tail;
  return frame;
}

// Time from `since` to `now`, 0 when `since` is not earlier (never wraps).
uint64_t elapsed_us(uint64_t now, uint64_t since) { return now > since ? now - since : 0; }

const char* file_kind(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device node";
  return "not a socket";
}

// connect()'s errno for a Unix socket at `path` (0: something accepted).
// Non-blocking: a listener with a full backlog answers EAGAIN, not a hang.
int probe_socket(const std::string& path) {
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!fd) return errno;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) return 0;
  return errno == EINPROGRESS ? 0 : errno;
}

}  // namespace

DescriptorPlan plan_descriptor_limit(const rlimit& current, size_t connections) {
  DescriptorPlan plan;
  plan.soft = current.rlim_cur;
  rlim_t needed = static_cast<rlim_t>(connections) + kDescriptorsBesidesClients;
  if (current.rlim_cur >= needed) return plan;  // RLIM_INFINITY is the largest value
  plan.soft = std::min(needed, current.rlim_max);
  std::string want = std::to_string(connections) + " connections (max_connections_per_user) plus " +
                     std::to_string(kDescriptorsBesidesClients) + " of its own";
  plan.short_of_descriptors = plan.soft < needed;
  if (plan.short_of_descriptors) {
    plan.notice = "the open-file limit (RLIMIT_NOFILE, hard limit " + std::to_string(current.rlim_max) +
                  ") is below the " + std::to_string(needed) + " descriptors energyd needs for " + want +
                  "; raised the soft limit to the hard limit; clients past it wait until others close";
    return plan;
  }
  plan.notice = "raised the open-file limit (RLIMIT_NOFILE) from " + std::to_string(current.rlim_cur) + " to " +
                std::to_string(plan.soft) + " for " + want;
  return plan;
}

nlohmann::json server_stats_json(const ServerStats& stats, size_t open) {
  return {{"open", open},
          {"accepted", stats.accepted},
          {"refused", stats.refused},
          {"accept_failures", stats.accept_failures},
          {"cut_off", stats.cut_off},
          {"paused_reading", stats.paused_reading}};
}

Result<DescriptorPlan> fit_descriptor_limit(size_t connections) {
  rlimit lim{};
  if (::getrlimit(RLIMIT_NOFILE, &lim) != 0) return errno_error("cannot read RLIMIT_NOFILE");
  DescriptorPlan plan = plan_descriptor_limit(lim, connections);
  if (plan.soft == lim.rlim_cur) return plan;
  lim.rlim_cur = plan.soft;
  if (::setrlimit(RLIMIT_NOFILE, &lim) != 0)
    return errno_error("cannot raise RLIMIT_NOFILE to " + std::to_string(plan.soft));
  return plan;
}

void Responder::reply(nlohmann::json result) const { server_->send(conn_, protocol::make_ok(id_, std::move(result))); }
void Responder::reply_text(std::string result_json) const { server_->send_text(conn_, id_, std::move(result_json)); }
void Responder::fail(const Error& error) const { server_->send(conn_, protocol::make_error_reply(id_, error)); }

Server::Server(sd_event* loop, std::string socket_path, Handler handler, ServerOptions options)
    : loop_(loop),
      path_(std::move(socket_path)),
      handler_(std::move(handler)),
      options_(std::move(options)),
      output_(std::make_shared<OutputGauge>()) {
  output_->limit = options_.total_output_limit_bytes;
}

// Only the socket file this Server bound is removed: after a failed start,
// or when another process has since put its own socket there, it stays.
Server::~Server() {
  conns_.clear();
  listen_source_.reset();
  accept_resume_.reset();
  struct stat st {};
  if (bound_ && ::lstat(path_.c_str(), &st) == 0 && st.st_dev == bound_dev_ && st.st_ino == bound_ino_) {
    ::unlink(path_.c_str());
  }
}

// A socket left by a crashed energyd refuses connections and is replaced;
// anything else at the path is left alone and the start fails.
Status claim_socket_path(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    return errno == ENOENT ? ok_status() : errno_error("cannot inspect the socket path " + path);
  }
  if (!S_ISSOCK(st.st_mode)) {
    return make_error(ErrorCode::kInvalid, "socket path " + path + " is " + file_kind(st.st_mode) +
                                               ", not a socket; refusing to replace it (remove it or choose another "
                                               "--socket)");
  }
  int probe = probe_socket(path);
  if (probe == 0 || probe == EAGAIN) {
    return make_error(ErrorCode::kState, "another energyd is serving " + path + "; refusing to take its socket over");
  }
  if (probe != ECONNREFUSED) {
    return make_error(ErrorCode::kIo, "cannot tell whether the socket " + path + " is in use", probe);
  }
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) return errno_error("cannot remove the stale socket " + path);
  return ok_status();
}

Status Server::listen() {
  sockaddr_un addr{};
  if (path_.size() >= sizeof addr.sun_path) return make_error(ErrorCode::kInvalid, "socket path too long: " + path_);
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path_.c_str(), path_.size() + 1);
  if (auto claimed = claim_socket_path(path_); !claimed) return claimed;
  listen_fd_.reset(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
  if (!listen_fd_) return errno_error("cannot create socket " + path_);
  if (::bind(listen_fd_.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    return errno_error("cannot bind socket " + path_);
  }
  struct stat st {};
  bound_ = ::lstat(path_.c_str(), &st) == 0;
  bound_dev_ = st.st_dev;
  bound_ino_ = st.st_ino;
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

// CLOCK_MONOTONIC read afresh, not sd_event_now(): the loop's cached time is
// that of the iteration's start, and a callback that encodes a large reply
// runs long enough for it to be well in the past, which stamped clients as
// stalled since before they were and cut off clients that were reading.
uint64_t Server::now_us() const { return static_cast<uint64_t>(clock_.mono_ns() / 1000); }

int Server::on_accept(sd_event_source*, int, uint32_t, void* self) {
  static_cast<Server*>(self)->accept_all();
  return 0;
}

void Server::accept_all() {
  for (;;) {
    UniqueFd fd(::accept4(listen_fd_.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
    if (fd) {
      admit(std::move(fd));
      wake_sweep();
      continue;
    }
    if (errno == EINTR || errno == ECONNABORTED) continue;  // that connection is gone; the next may wait
    if (errno != EAGAIN && errno != EWOULDBLOCK) accept_failed(errno);
    return;
  }
}

// The pending connection stays queued, so level-triggered readiness would
// call accept() again at once, forever (EMFILE: one core at 100%). Accepting
// pauses instead; clients wait in the backlog until descriptors free up.
void Server::accept_failed(int err) {
  ++stats_.accept_failures;
  if (auto v = log_limit_.allow("accept"); v.log) {
    spdlog::warn("cannot accept a connection: {}; pausing accepting for {} ms ({} failed accepts so far){}",
                 std::strerror(err), kAcceptBackoff.count(), stats_.accept_failures, LogLimiter::suffix(v));
  }
  sd_event_source_set_enabled(listen_source_.get(), SD_EVENT_OFF);
  auto resume_at = now_us() + static_cast<uint64_t>(std::chrono::microseconds(kAcceptBackoff).count());
  if (accept_resume_) {
    sd_event_source_set_time(accept_resume_.get(), resume_at);
    sd_event_source_set_enabled(accept_resume_.get(), SD_EVENT_ONESHOT);
    return;
  }
  sd_event_source* s = nullptr;
  if (sd_event_add_time(loop_, &s, CLOCK_MONOTONIC, resume_at, 0, &Server::on_accept_resume, this) < 0) {
    sd_event_source_set_enabled(listen_source_.get(), SD_EVENT_ON);  // no timer: keep accepting rather than stop
    return;
  }
  accept_resume_.reset(s);
}

int Server::on_accept_resume(sd_event_source*, uint64_t, void* self) {
  sd_event_source_set_enabled(static_cast<Server*>(self)->listen_source_.get(), SD_EVENT_ON);
  return 0;
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
    ++stats_.refused;
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
  c->flags->output = output_;
  sd_event_source* s = nullptr;
  if (sd_event_add_io(loop_, &s, c->fd.get(), EPOLLIN, &Server::on_io, c.get()) < 0) return;
  c->source.reset(s);
  ++stats_.accepted;
  conns_[c->id] = std::move(c);
}

size_t Server::connections_of(uid_t uid) const {
  return static_cast<size_t>(std::count_if(
      conns_.begin(), conns_.end(), [uid](const auto& kv) { return kv.second->peer.uid == uid && !kv.second->dead; }));
}

// The time now, not the timer's scheduled `usec`: the timer fires up to its
// accuracy late, after events have stamped connections with later times.
int Server::on_sweep(sd_event_source* s, uint64_t, void* self) {
  auto* server = static_cast<Server*>(self);
  uint64_t now = server->now_us();
  server->sweep(now);
  sd_event_source_set_time(s, now + server->sweep_every_us());
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
    if (!c->dead && c->partial_since_us != 0 && elapsed_us(now, c->partial_since_us) > limit) {
      cut_off(*c, "sent part of a request frame and not the rest within client_deadline_ms");
    }
    if (!c->dead && c->stalled_since_us != 0 && elapsed_us(now, c->stalled_since_us) > limit) {
      cut_off(*c, "did not read its replies within client_deadline_ms");
    }
    if (c->dead) gone.push_back(id);
  }
  for (uint64_t id : gone) close(id);
  release_held();
}

void Server::cut_off(Connection& c, const std::string& why) {
  if (auto v = log_limit_.allow("connection"); v.log) {
    spdlog::warn("cutting off client {} ({}): {}{}", c.id, peer_name(c.peer), why, LogLimiter::suffix(v));
  }
  ++stats_.cut_off;
  c.out.clear();
  account(c);
  c.dead = true;
  c.flags->gone = true;
}

// At the in-flight bound, or with output_limit_bytes unread, or while the
// replies of all connections reach total_output_limit_bytes, a connection's
// further frames stay unread (in the decoder or the socket).
bool Server::throttled(const Connection& c) const {
  return c.in_flight >= kMaxRequestsInFlight || c.out.size() >= options_.output_limit_bytes || output_->full();
}

// The partial-frame deadline runs only while energyd reads the connection
// (not while reading is paused); a frame cut short by the peer's end of
// sending never completes and is cut off by it.
void Server::note_partial(Connection& c) {
  if (c.decoder.buffered() == 0 || throttled(c))
    c.partial_since_us = 0;
  else if (c.partial_since_us == 0)
    c.partial_since_us = now_us();
}

// Writes what it can, then dispatches the frames read but held back while
// the connection was at its bounds, then writes their immediate replies.
void Server::resume(Connection& c) {
  flush(c);
  if (c.dead) return;
  dispatch(c);
  note_partial(c);
  flush(c);
}

// Reading is watched only while frames may be read (level-triggered EPOLLIN
// would otherwise fire without end); HUP and ERR are reported regardless.
void Server::watch(Connection& c) {
  bool held = throttled(c);
  if (held && !c.held) ++stats_.paused_reading;
  c.held = held;
  uint32_t events = c.out.empty() ? 0u : static_cast<uint32_t>(EPOLLOUT);
  if (!c.closing && !c.eof && !held) events |= static_cast<uint32_t>(EPOLLIN);
  sd_event_source_set_io_events(c.source.get(), events);
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
  if ((revents & EPOLLIN) != 0 && !c.closing && !c.eof && !c.dead && !throttled(c)) {
    if (!read_some(c)) c.eof = true;
  }
  resume(c);
  if ((revents & (EPOLLHUP | EPOLLERR)) != 0 && c.out.empty()) c.dead = true;
  if (c.dead) close(c.id);
  release_held();
}

// Once the replies queued on all connections fall under the total limit,
// the connections held by it read again (their EPOLLIN was off: nothing
// else would wake them).
void Server::release_held() {
  if (!release_pending_ || output_->full()) return;
  release_pending_ = false;
  for (auto& [id, conn] : conns_) {
    if (conn->held && !conn->dead) resume(*conn);
  }
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
  c.dispatching = true;
  while (!c.closing && !c.dead && !throttled(c)) {
    auto msg = c.decoder.next();
    if (!msg) {
      spdlog::debug("client {}: {}; closing", c.id, msg.error().message);
      c.out += protocol::encode_frame(protocol::make_error_reply(0, msg.error()));
      c.closing = true;
      break;
    }
    if (!msg->has_value()) break;
    c.partial_since_us = 0;  // a frame was completed; what is left starts the next one
    handle_request(c, **msg);
  }
  c.dispatching = false;
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
  ++c.in_flight;  // until its reply comes through send()
  try {
    handler_(*req, Responder(this, c.id, req->id, c.peer, c.flags));
  } catch (const std::exception& e) {
    c.in_flight = c.in_flight > 0 ? c.in_flight - 1 : 0;
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
  if (Connection* c = answerable(conn)) queue(*c, protocol::encode_frame(message));
}

void Server::send_text(uint64_t conn, int64_t id, std::string result_json) {
  Connection* c = answerable(conn);
  if (c == nullptr) return;
  queue(*c, ok_frame_of_text(id, std::move(result_json)));
}

// The connection a reply to one of its requests goes to (that request is
// answered), or nullptr when it has gone or is cut off for unread replies.
Server::Connection* Server::answerable(uint64_t conn) {
  auto it = conns_.find(conn);
  if (it == conns_.end() || it->second->dead) return nullptr;  // the client left before its answer was ready
  Connection& c = *it->second;
  if (c.in_flight > 0) --c.in_flight;
  if (c.out.size() >= options_.output_limit_bytes) {
    cut_off(c, "left more than client_output_limit_bytes of replies unread");
    return nullptr;
  }
  return &c;
}

// A frame alone in the output is moved there, not copied (export pages are megabytes).
void Server::queue(Connection& c, std::string frame) {
  if (c.out.empty())
    c.out = std::move(frame);
  else
    c.out += frame;
  if (c.dispatching) return flush(c);  // the dispatch loop goes on by itself
  resume(c);
}

void Server::flush(Connection& c) {
  while (!c.out.empty()) {
    ssize_t n = ::send(c.fd.get(), c.out.data(), c.out.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n < 0) {
      c.out.clear();
      account(c);
      c.dead = true;
      return;
    }
    c.out.erase(0, static_cast<size_t>(n));
    c.stalled_since_us = 0;  // progress: the client is reading
  }
  if (!c.out.empty() && c.stalled_since_us == 0) c.stalled_since_us = now_us();
  if (c.out.empty()) c.stalled_since_us = 0;
  account(c);
  c.flags->backlogged = c.out.size() >= options_.output_limit_bytes;
  bool answered = c.eof && c.in_flight == 0 && c.decoder.buffered() == 0;
  if (c.out.empty() && (c.closing || answered)) c.dead = true;
  if (c.dead) return;
  watch(c);
}

// Keeps the OutputGauge equal to the sum of the connections' `out`.
void Server::account(Connection& c) {
  bool was_full = output_->full();
  output_->pending.fetch_add(c.out.size(), std::memory_order_relaxed);
  output_->pending.fetch_sub(c.counted_out, std::memory_order_relaxed);
  c.counted_out = c.out.size();
  if (was_full && !output_->full()) release_pending_ = true;
}

void Server::close(uint64_t id) {
  if (auto it = conns_.find(id); it != conns_.end()) {
    it->second->flags->gone = true;
    it->second->out.clear();
    account(*it->second);
  }
  conns_.erase(id);
  if (close_hook_) close_hook_(id);
}

}  // namespace energy::daemon
