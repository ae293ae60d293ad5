// Server: energyd's Unix-socket front end on the sd-event loop.
//
// Accepts connections, decodes request frames (docs/PROTOCOL.md), hands each
// request to the handler with a Responder, and writes replies without ever
// blocking the loop. A request may be answered later (marks wait for a
// sample and a commit); if its connection is gone by then, the reply is
// dropped. A malformed or oversized frame gets an error reply and the
// connection is closed.
//
// Every connection is checked against ServerOptions (docs/SECURITY.md): the
// peer's credentials are read when it connects and each request's verb must
// be permitted by the AccessPolicy (refusals answer `denied` and are logged,
// rate limited, with uid, pid and verb); a uid may hold at most
// max_connections_per_user connections; a partial frame must be completed,
// and queued replies must start draining, within client_deadline; a client
// whose unsent replies exceed output_limit_bytes is cut off.
//
// Work per connection is bounded: at most kMaxRequestsInFlight requests of a
// connection are unanswered at once, and while it is at that bound or has
// output_limit_bytes of replies unread, no further frame of it is read (the
// socket is left unread, so a client that pipelines thousands of requests
// queues no work). When a connection closes, its Responders report
// cancelled(): work queued on other threads checks that and is dropped.
// Across connections, the replies queued in total are gauged against
// total_output_limit_bytes: while they are at it, no connection's frames
// are read and the export worker builds no page (it waits), so energyd
// holds at most that much plus what the requests already read produce
// (8 per connection; one export page at a time).
//
// The socket path: listen() refuses a path that holds something other than a
// socket, and a socket that another process still accepts on; only a stale
// socket (connect() refused) is replaced. The destructor unlinks the path
// only while it is still the socket this Server bound (same device/inode).
// accept() failing (EMFILE, ENFILE, ENOMEM, ...; not EAGAIN or ECONNABORTED)
// pauses accepting for kAcceptBackoff instead of retrying at once.
//
// Thread-safety: loop thread only, except Responder::cancelled() and
// Responder::backlogged() (any thread). Responder::reply must be called on
// the loop thread (use Poster from other threads).
#pragma once

#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "access.h"
#include "energy/protocol.h"
#include "event_loop.h"
#include "log_limit.h"

namespace energy::daemon {

class Server;

// Requests of one connection that may await their replies at once; further
// frames wait unread in the socket until one is answered.
constexpr size_t kMaxRequestsInFlight = 8;
// How long accepting pauses after accept() ran out of descriptors.
constexpr std::chrono::milliseconds kAcceptBackoff{100};

// Descriptors energyd needs besides its clients' connections (database,
// sysfs files, journal, event loop, threads' fds), with room to spare.
constexpr rlim_t kDescriptorsBesidesClients = 128;

// What fit_descriptor_limit decided: the soft limit to set (equal to the
// current one when nothing changes) and a line for the log (empty: nothing to say).
struct DescriptorPlan {
  rlim_t soft = 0;
  std::string notice;
  bool short_of_descriptors = false;  // even the hard limit leaves too few
};
// Pure: the RLIMIT_NOFILE soft limit that `connections` client connections
// plus kDescriptorsBesidesClients need, raised at most to the hard limit.
DescriptorPlan plan_descriptor_limit(const rlimit& current, size_t connections);
// Applies plan_descriptor_limit to this process; returns the plan (its
// notice says what was done) or the setrlimit failure.
Result<DescriptorPlan> fit_descriptor_limit(size_t connections);

// Whether `path` may become energyd's socket: nothing is there, or a stale
// socket (connect() refused; removed here). Anything else, or a socket that
// still accepts connections, is an error naming the path and what is there.
// listen() checks again; energyd checks first thing at start, before it
// touches the clocks or the database a running instance owns.
Status claim_socket_path(const std::string& path);

// The bytes of replies queued on all of a Server's connections, against
// ServerOptions::total_output_limit_bytes. Written on the loop thread, read
// on any (the export worker builds no page while it is full).
struct OutputGauge {
  std::atomic<size_t> pending{0};
  size_t limit = 0;
  bool full() const { return pending.load(std::memory_order_relaxed) >= limit; }
};

// Shared between the loop and worker threads for one connection.
struct ConnectionFlags {
  std::atomic<bool> gone{false};              // closed or cut off: its work is dropped
  std::atomic<bool> backlogged{false};        // unread replies at or past output_limit_bytes
  std::shared_ptr<const OutputGauge> output;  // the Server's (null: no total limit)
};

// Counters of the front end since start (loop thread).
struct ServerStats {
  uint64_t accepted = 0;         // connections admitted
  uint64_t refused = 0;          // connections refused (per-user cap, unknown peer)
  uint64_t accept_failures = 0;  // accept() calls that failed for want of descriptors or memory
  uint64_t cut_off = 0;          // connections closed for a missed deadline or the output limit
  uint64_t paused_reading = 0;   // times a connection's reading paused at its bounds (throttled)
};

// The `connections` object of `status` (docs/PROTOCOL.md): `open` and the counters.
nlohmann::json server_stats_json(const ServerStats& stats, size_t open);

struct ServerOptions {
  AccessPolicy policy;
  size_t max_connections_per_user = 16;
  std::chrono::milliseconds client_deadline{10000};
  size_t output_limit_bytes = 8u << 20;  // one reply is always queued, however large
  // Replies queued on all connections together at which no connection's
  // frames are read and no export page is built (Responder::
  // server_backlogged: pages wait for room on their worker).
  size_t total_output_limit_bytes = 16u << 20;
};

class Responder {
 public:
  Responder(Server* server, uint64_t conn, int64_t request_id, PeerCredentials caller = {},
            std::shared_ptr<const ConnectionFlags> flags = nullptr)
      : server_(server), conn_(conn), id_(request_id), caller_(std::move(caller)), flags_(std::move(flags)) {}
  void reply(nlohmann::json result) const;
  // As reply, with the result already JSON text (a large export page is
  // written as text, never built as a document); it must be one JSON value.
  void reply_text(std::string result_json) const;
  void fail(const Error& error) const;
  // Any thread: the connection has closed (or was cut off); nobody will read
  // the reply, so queued work should be dropped and running work stopped.
  bool cancelled() const { return flags_ && flags_->gone.load(std::memory_order_relaxed); }
  // Any thread: the client has left output_limit_bytes of replies unread; a
  // large reply built now would cut it off on arrival.
  bool backlogged() const { return flags_ && flags_->backlogged.load(std::memory_order_relaxed); }
  // Any thread: the replies queued on all connections are at
  // total_output_limit_bytes; a large reply should wait for room.
  bool server_backlogged() const { return flags_ && flags_->output && flags_->output->full(); }
  // The connection the request came on (ids are never reused by a Server).
  uint64_t connection() const { return conn_; }
  // Who sent the request (its peer credentials when it connected).
  const PeerCredentials& caller() const { return caller_; }

 private:
  Server* server_;
  uint64_t conn_;
  int64_t id_;
  PeerCredentials caller_;
  std::shared_ptr<const ConnectionFlags> flags_;
};

class Server {
 public:
  using Handler = std::function<void(const protocol::Request&, const Responder&)>;
  using CloseHook = std::function<void(uint64_t conn)>;

  Server(sd_event* loop, std::string socket_path, Handler handler, ServerOptions options = {});
  ~Server();
  Status listen();
  // Queues the reply to one request of `conn` (a Responder's reply or fail).
  void send(uint64_t conn, const nlohmann::json& message);
  // Queues the ok reply to request `id` of `conn` whose result is the JSON
  // text `result_json` (Responder::reply_text).
  void send_text(uint64_t conn, int64_t id, std::string result_json);
  size_t connection_count() const { return conns_.size(); }
  // Bytes of replies queued on all connections (OutputGauge).
  size_t pending_output_bytes() const { return output_->pending.load(std::memory_order_relaxed); }
  const ServerStats& stats() const { return stats_; }
  // Called on the loop thread after a client's connection is closed (not at
  // Server destruction); clock leases tied to the connection end there.
  void set_close_hook(CloseHook hook) { close_hook_ = std::move(hook); }

 private:
  struct Connection;
  static int on_accept(sd_event_source* s, int fd, uint32_t revents, void* self);
  static int on_io(sd_event_source* s, int fd, uint32_t revents, void* conn);
  void accept_all();
  void accept_failed(int err);
  static int on_accept_resume(sd_event_source* s, uint64_t usec, void* self);
  void wake_sweep();
  void admit(UniqueFd fd);
  size_t connections_of(uid_t uid) const;
  static int on_sweep(sd_event_source* s, uint64_t usec, void* self);
  void sweep(uint64_t now_us);
  bool permitted(Connection& c, const protocol::Request& req);
  void handle_request(Connection& c, const nlohmann::json& message);
  void cut_off(Connection& c, const std::string& why);
  bool throttled(const Connection& c) const;
  void note_partial(Connection& c);
  void resume(Connection& c);
  void watch(Connection& c);
  uint64_t now_us() const;
  uint64_t sweep_every_us() const;
  void handle_io(Connection& c, uint32_t revents);
  bool read_some(Connection& c);
  void dispatch(Connection& c);
  void flush(Connection& c);
  void close(uint64_t id);
  Connection* answerable(uint64_t conn);
  void account(Connection& c);
  void release_held();
  void queue(Connection& c, std::string frame);

  sd_event* loop_;
  std::string path_;
  Handler handler_;
  CloseHook close_hook_;
  ServerOptions options_;
  SystemClock clock_;
  // Refused requests ("denial") and refused or cut-off connections
  // ("connection"): up to 20 lines per cause per 10 s.
  LogLimiter log_limit_{clock_, std::chrono::seconds(10), 20};
  SourcePtr sweep_source_;
  UniqueFd listen_fd_;
  SourcePtr listen_source_;
  SourcePtr accept_resume_;  // re-enables listen_source_ after an EMFILE/ENFILE pause
  bool bound_ = false;       // the path is the socket this Server bound (bound_dev_, bound_ino_)
  dev_t bound_dev_ = 0;
  ino_t bound_ino_ = 0;
  ServerStats stats_;
  uint64_t next_conn_ = 1;
  std::map<uint64_t, std::unique_ptr<Connection>> conns_;
  std::shared_ptr<OutputGauge> output_;  // shared with the connections' flags
  bool release_pending_ = false;         // the gauge fell under its limit: held connections may read again
};

}  // namespace energy::daemon
