// HttpServer: serves GET /metrics (and a short page at /) with libmicrohttpd
// on one internal thread, so the handler runs on that thread only.
//
// Owns the MHD daemon (stopped in the destructor). Other paths get 404,
// other methods 405. At most kMaxConnections connections at once, each
// closed after kConnectionTimeoutS idle seconds, so a slow or hostile
// client cannot hold the exporter.
//
// Thread-safety: construct and destroy on one thread; the handler runs on
// the server's thread.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "energy/result.h"

struct MHD_Daemon;

namespace energy::exporter {

// Where to listen: an IPv4 or IPv6 literal and a port.
struct ListenAddress {
  std::string host = "127.0.0.1";
  int port = 9862;
};

// "HOST:PORT", "[V6]:PORT" or ":PORT" (all IPv4 addresses); errors name
// the text and what was expected.
Result<ListenAddress> parse_listen_address(const std::string& text);

class HttpServer {
 public:
  static constexpr unsigned kMaxConnections = 32;
  static constexpr unsigned kConnectionTimeoutS = 10;
  using MetricsSource = std::function<std::string()>;

  static Result<std::unique_ptr<HttpServer>> start(const ListenAddress& at, MetricsSource source);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;
  // The port bound (useful with port 0). A libmicrohttpd that cannot tell
  // (MHD_DAEMON_INFO_BIND_PORT unknown to it) gives the port asked for.
  int port() const;
  // Answers one request (exposed for the handler trampoline).
  MetricsSource& source() { return source_; }

 private:
  explicit HttpServer(MetricsSource source) : source_(std::move(source)) {}
  MHD_Daemon* daemon_ = nullptr;
  MetricsSource source_;
  int requested_port_ = 0;
};

}  // namespace energy::exporter
