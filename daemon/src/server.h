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
// Thread-safety: loop thread only. Responder::reply must be called on the
// loop thread (use Poster from other threads).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "access.h"
#include "log_limit.h"
#include "energy/protocol.h"
#include "event_loop.h"

namespace energy::daemon {

class Server;

struct ServerOptions {
  AccessPolicy policy;
  size_t max_connections_per_user = 16;
  std::chrono::milliseconds client_deadline{10000};
  size_t output_limit_bytes = 8u << 20;  // one reply is always queued, however large
};

class Responder {
 public:
  Responder(Server* server, uint64_t conn, int64_t request_id, PeerCredentials caller = {})
      : server_(server), conn_(conn), id_(request_id), caller_(std::move(caller)) {}
  void reply(nlohmann::json result) const;
  void fail(const Error& error) const;
  // The connection the request came on (ids are never reused by a Server).
  uint64_t connection() const { return conn_; }
  // Who sent the request (its peer credentials when it connected).
  const PeerCredentials& caller() const { return caller_; }

 private:
  Server* server_;
  uint64_t conn_;
  int64_t id_;
  PeerCredentials caller_;
};

class Server {
 public:
  using Handler = std::function<void(const protocol::Request&, const Responder&)>;
  using CloseHook = std::function<void(uint64_t conn)>;

  Server(sd_event* loop, std::string socket_path, Handler handler, ServerOptions options = {});
  ~Server();
  Status listen();
  void send(uint64_t conn, const nlohmann::json& message);
  size_t connection_count() const { return conns_.size(); }
  // Called on the loop thread after a client's connection is closed (not at
  // Server destruction); clock leases tied to the connection end there.
  void set_close_hook(CloseHook hook) { close_hook_ = std::move(hook); }

 private:
  struct Connection;
  static int on_accept(sd_event_source* s, int fd, uint32_t revents, void* self);
  static int on_io(sd_event_source* s, int fd, uint32_t revents, void* conn);
  void accept_all();
  void wake_sweep();
  void admit(UniqueFd fd);
  size_t connections_of(uid_t uid) const;
  static int on_sweep(sd_event_source* s, uint64_t usec, void* self);
  void sweep(uint64_t now_us);
  bool permitted(Connection& c, const protocol::Request& req);
  void handle_request(Connection& c, const nlohmann::json& message);
  void cut_off(Connection& c, const std::string& why);
  uint64_t now_us() const;
  uint64_t sweep_every_us() const;
  void handle_io(Connection& c, uint32_t revents);
  bool read_some(Connection& c);
  void dispatch(Connection& c);
  void flush(Connection& c);
  void close(uint64_t id);

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
  uint64_t next_conn_ = 1;
  std::map<uint64_t, std::unique_ptr<Connection>> conns_;
};

}  // namespace energy::daemon
