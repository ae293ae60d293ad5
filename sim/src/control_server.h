// The control socket: a Unix stream socket at a path, served by one thread
// with poll(2); any number of clients, each sending framed JSON requests
// (control.h) and getting one framed reply per request, in order. A frame
// that is oversized or not a JSON object gets an error reply and the
// connection is closed.
//
// The socket file is created by start() (a stale socket file left by a dead
// simulator is replaced; a live one is an error) and removed by the
// destructor, which also stops and joins the thread.
//
// Thread-safety: the handler runs on the server thread.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "energy/result.h"
#include "energy/unique_fd.h"

namespace energy::sim {

class ControlServer {
 public:
  using Handler = std::function<nlohmann::json(const nlohmann::json& request)>;

  static Result<std::unique_ptr<ControlServer>> start(const std::string& path, Handler handler);
  ~ControlServer();
  ControlServer(const ControlServer&) = delete;
  ControlServer& operator=(const ControlServer&) = delete;

 private:
  ControlServer(std::string path, UniqueFd listener, UniqueFd wake_read, UniqueFd wake_write, Handler handler);
  void serve();

  std::string path_;
  UniqueFd listener_;
  UniqueFd wake_read_;  // readable when the server must stop
  UniqueFd wake_write_;
  Handler handler_;
  std::thread thread_;
};

// Starts `body` on a new thread with SIGINT, SIGTERM and SIGHUP blocked, so
// those signals reach the thread that waits for them (libfuse's loop).
std::thread thread_without_signals(std::function<void()> body);

}  // namespace energy::sim
