#include "http_server.h"

#include <cstring>
#include <exception>
#include <string>

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>

namespace energy::exporter {

namespace {

constexpr const char* kMetricsType = "text/plain; version=0.0.4; charset=utf-8";
constexpr const char* kIndex =
    "<html><head><title>energyd exporter</title></head><body><a href=\"/metrics\">/metrics</a></body></html>\n";

MHD_Result reply(MHD_Connection* c, unsigned status, const std::string& body, const char* type) {
  MHD_Response* r = MHD_create_response_from_buffer(body.size(), const_cast<char*>(body.data()), MHD_RESPMEM_MUST_COPY);
  if (r == nullptr) return MHD_NO;
  MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
  MHD_Result ret = MHD_queue_response(c, status, r);
  MHD_destroy_response(r);
  return ret;
}

// The page, or a 500 naming the fault: no exception may cross libmicrohttpd's
// C callback (it would end the exporter).
MHD_Result metrics_page(MHD_Connection* c, HttpServer& server) {
  try {
    return reply(c, MHD_HTTP_OK, server.source()(), kMetricsType);
  } catch (const std::exception& e) {
    return reply(c, MHD_HTTP_INTERNAL_SERVER_ERROR, std::string("scrape failed: ") + e.what() + "\n", "text/plain");
  }
}

MHD_Result handle(void* cls, MHD_Connection* c, const char* url, const char* method, const char*, const char*,
                  size_t* upload_size, void**) {
  auto* server = static_cast<HttpServer*>(cls);
  if (std::strcmp(method, "GET") != 0 && std::strcmp(method, "HEAD") != 0) {
    return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "only GET\n", "text/plain");
  }
  if (*upload_size != 0) return reply(c, MHD_HTTP_BAD_REQUEST, "no body expected\n", "text/plain");
  if (std::strcmp(url, "/metrics") == 0) return metrics_page(c, *server);
  if (std::strcmp(url, "/") == 0) return reply(c, MHD_HTTP_OK, kIndex, "text/html");
  return reply(c, MHD_HTTP_NOT_FOUND, "not found; try /metrics\n", "text/plain");
}

Result<int> parse_port(const std::string& text, const std::string& whole) {
  bool digits = !text.empty() && text.size() <= 5 && text.find_first_not_of("0123456789") == std::string::npos;
  int port = digits ? std::stoi(text) : -1;
  if (port < 0 || port > 65535) {
    return make_error(ErrorCode::kInvalid,
                      "--listen: the port of \"" + whole + "\" must be 0-65535, got \"" + text + "\"");
  }
  return port;
}

}  // namespace

Result<ListenAddress> parse_listen_address(const std::string& text) {
  auto colon = text.rfind(':');
  if (colon == std::string::npos) {
    return make_error(ErrorCode::kInvalid, "--listen must be HOST:PORT, [IPV6]:PORT or :PORT, got \"" + text + "\"");
  }
  auto port = parse_port(text.substr(colon + 1), text);
  if (!port) return port.take_error();
  std::string host = text.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.empty()) host = "0.0.0.0";
  unsigned char buf[sizeof(in6_addr)];
  if (inet_pton(AF_INET, host.c_str(), buf) != 1 && inet_pton(AF_INET6, host.c_str(), buf) != 1) {
    return make_error(ErrorCode::kInvalid,
                      "--listen: \"" + host + "\" is not an IPv4 or IPv6 address (in \"" + text + "\")");
  }
  return ListenAddress{host, *port};
}

Result<std::unique_ptr<HttpServer>> HttpServer::start(const ListenAddress& at, MetricsSource source) {
  std::unique_ptr<HttpServer> s(new HttpServer(std::move(source)));
  s->requested_port_ = at.port;
  sockaddr_in v4{};
  sockaddr_in6 v6{};
  const sockaddr* addr = nullptr;
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO;
  if (inet_pton(AF_INET, at.host.c_str(), &v4.sin_addr) == 1) {
    v4.sin_family = AF_INET;
    v4.sin_port = htons(static_cast<uint16_t>(at.port));
    addr = reinterpret_cast<const sockaddr*>(&v4);
  } else if (inet_pton(AF_INET6, at.host.c_str(), &v6.sin6_addr) == 1) {
    v6.sin6_family = AF_INET6;
    v6.sin6_port = htons(static_cast<uint16_t>(at.port));
    addr = reinterpret_cast<const sockaddr*>(&v6);
    flags |= MHD_USE_IPv6;
  } else {
    return make_error(ErrorCode::kInvalid, "not an IP address: " + at.host);
  }
  s->daemon_ = MHD_start_daemon(flags, static_cast<uint16_t>(at.port), nullptr, nullptr, &handle, s.get(),
                                MHD_OPTION_SOCK_ADDR, addr, MHD_OPTION_CONNECTION_LIMIT, kMaxConnections,
                                MHD_OPTION_CONNECTION_TIMEOUT, kConnectionTimeoutS, MHD_OPTION_END);
  if (s->daemon_ == nullptr) {
    return make_error(ErrorCode::kIo, "cannot listen on " + at.host + " port " + std::to_string(at.port), errno);
  }
  return s;
}

HttpServer::~HttpServer() {
  if (daemon_ != nullptr) MHD_stop_daemon(daemon_);
}

int HttpServer::port() const {
  const MHD_DaemonInfo* info = MHD_get_daemon_info(daemon_, MHD_DAEMON_INFO_BIND_PORT);
  return info != nullptr && info->port != 0 ? info->port : requested_port_;
}

}  // namespace energy::exporter
