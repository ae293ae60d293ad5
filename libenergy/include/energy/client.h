// Client: a blocking connection to energyd's socket, for energyctl, tests
// and C++ programs that mark their own runs.
//
// Each call sends one request frame and waits for its reply, with a deadline.
// Errors from the daemon come back as Error values with the daemon's code and
// message; transport failures name the socket path.
//
// Thread-safety: one thread at a time per Client.
#pragma once

#include <chrono>
#include <string>

#include <nlohmann/json.hpp>

#include "energy/result.h"
#include "energy/unique_fd.h"

namespace energy {

// /run/energyd/energyd.sock, or $ENERGYD_SOCKET when set.
std::string default_socket_path();

class Client {
 public:
  static Result<Client> connect(const std::string& socket_path,
                                std::chrono::milliseconds timeout = std::chrono::milliseconds(10000));
  Result<nlohmann::json> call(const std::string& verb, const nlohmann::json& args = nlohmann::json::object());
  const std::string& socket_path() const { return path_; }
  // The connected socket, for waiting on it (poll) while holding a
  // connection-scoped clock lease; owned by the Client.
  int native_handle() const { return fd_.get(); }

 private:
  Client(UniqueFd fd, std::string path, std::chrono::milliseconds timeout);
  Status send_all(const std::string& bytes);
  Result<nlohmann::json> receive_one();

  UniqueFd fd_;
  std::string path_;
  std::chrono::milliseconds timeout_;
  int64_t next_id_ = 1;
};

}  // namespace energy
