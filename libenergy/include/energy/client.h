// Client: a blocking connection to energyd's socket, for energyctl, tests
// and C++ programs that mark their own runs (see also scoped_run.h).
//
// Each call sends one request frame and waits for its reply, with a deadline
// (the `timeout` given to connect, per reply). Errors from the daemon come
// back as Error values with the daemon's code (kNotFound for an unknown run,
// kState for one already stopped, ...) and message; transport failures
// (kIo, kTimeout) name the socket path; a reply this client cannot read is
// kProtocol. Nothing here throws. Verbs and fields: docs/PROTOCOL.md.
//
// Thread-safety: one thread at a time per Client.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "energy/result.h"
#include "energy/unique_fd.h"

namespace energy {

// /run/energyd/energyd.sock, or $ENERGYD_SOCKET when set.
std::string default_socket_path();

// Run tags: free-form key -> value strings stored with the run.
using Tags = std::map<std::string, std::string>;

// An open run, as mark.start acknowledges it.
struct RunInfo {
  int64_t id = 0;
  std::string name;
  Tags tags;
  int64_t start_ns = 0;       // CLOCK_BOOTTIME of the daemon's boot (energy is integrated on it)
  int64_t start_wall_ns = 0;  // wall clock, for display only
};

class Client {
 public:
  static Result<Client> connect(const std::string& socket_path,
                                std::chrono::milliseconds timeout = std::chrono::milliseconds(10000));
  Result<nlohmann::json> call(const std::string& verb, const nlohmann::json& args = nlohmann::json::object());

  // Typed helpers over call().
  Result<nlohmann::json> status();
  // Opens a run once the daemon has sampled every rail and stored the mark durably.
  Result<RunInfo> mark_start(const std::string& name, const Tags& tags = {});
  // Closes a run and returns its report (energy_j, avg_power_w, ... per rail and in `total`).
  Result<nlohmann::json> mark_stop(int64_t run_id);
  // By decimal id, or by name when exactly one open run has it.
  Result<nlohmann::json> mark_stop(const std::string& name_or_id);
  const std::string& socket_path() const { return path_; }
  // The connected socket, for waiting on it (poll) while holding a
  // connection-scoped clock lease; owned by the Client.
  int native_handle() const { return fd_.get(); }

 private:
  Client(UniqueFd fd, std::string path, std::chrono::milliseconds timeout);
  Status send_all(const std::string& bytes);
  Result<nlohmann::json> receive_one();
  Result<nlohmann::json> exchange(const std::string& verb, const nlohmann::json& args);

  UniqueFd fd_;
  std::string path_;
  std::chrono::milliseconds timeout_;
  int64_t next_id_ = 1;
};

}  // namespace energy
