// A client of the simulator's control socket (control.h): `energyd-sim ctl`,
// `energyd-sim workload` and the tests use it.
//
// Thread-safety: one thread at a time per client.
#pragma once

#include <chrono>
#include <string>

#include <nlohmann/json.hpp>

#include "energy/result.h"
#include "energy/unique_fd.h"

namespace energy::sim {

class ControlClient {
 public:
  // kIo naming the path (ENOENT / ECONNREFUSED: no simulator there).
  static Result<ControlClient> connect(const std::string& path);

  // Sends {"cmd": cmd, ...args} and waits for the reply. Returns the whole
  // reply on "ok": true; an "ok": false reply becomes its Error (code and
  // message); kTimeout after `timeout`; kProtocol for a broken stream.
  Result<nlohmann::json> call(const std::string& cmd, const nlohmann::json& args = nlohmann::json::object(),
                              std::chrono::milliseconds timeout = std::chrono::seconds(10));
  // The raw reply to a request object, whatever its "ok".
  Result<nlohmann::json> exchange(const nlohmann::json& request, std::chrono::milliseconds timeout);

 private:
  explicit ControlClient(UniqueFd fd) : fd_(std::move(fd)) {}
  Status send_all(const std::string& bytes);
  UniqueFd fd_;
};

// The ErrorCode whose error_code_name() is `name`; kProtocol if none.
ErrorCode error_code_from_name(const std::string& name);

}  // namespace energy::sim
