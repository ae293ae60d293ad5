// Client: a blocking connection to energyd's socket, for energyctl, tests
// and C++ programs that mark their own runs (see also scoped_run.h).
//
// Each call sends one request frame and waits for its reply. Every wait is
// bounded (ClientTimeouts): connecting (connect() on a Unix socket blocks
// while energyd's listen backlog is full, e.g. when it is out of file
// descriptors), sending, and each whole reply. Errors from the daemon come
// back as Error values with the daemon's code (kNotFound for an unknown run,
// kState for one already stopped, ...) and message; transport failures
// (kIo, kTimeout) name the socket path, and a timeout the time waited; a
// reply this client cannot read is kProtocol. An error frame with id 0 is the
// daemon's word about the connection (a refused connection or envelope, see
// docs/PROTOCOL.md): it is returned with the daemon's code and message, also
// when a send failed because energyd had already closed the connection.
// A late reply to a request that timed out is skipped by the next call.
// Nothing here throws. Verbs and fields: docs/PROTOCOL.md.
//
// Thread-safety: one thread at a time per Client.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "energy/protocol.h"
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

// How long a Client waits; a value below 1 ms counts as 1 ms.
struct ClientTimeouts {
  // For energyd to take the connection (its listen backlog is full while it
  // is overloaded or out of descriptors).
  std::chrono::milliseconds connect{5000};
  // For each whole reply, from sending its request (and for the send itself).
  // Marks wait for a sample and a database commit; an export page for a query.
  std::chrono::milliseconds reply{10000};
};

class Client {
 public:
  static Result<Client> connect(const std::string& socket_path, ClientTimeouts timeouts = {});
  // The default connect timeout, and `reply_timeout` for each reply.
  static Result<Client> connect(const std::string& socket_path, std::chrono::milliseconds reply_timeout);
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
  using Deadline = std::chrono::steady_clock::time_point;

  Client(UniqueFd fd, std::string path, ClientTimeouts timeouts);
  Status send_all(const std::string& bytes);
  Result<nlohmann::json> receive_one(Deadline deadline);
  // The reply with `id`, skipping late replies to earlier (timed-out) requests.
  Result<nlohmann::json> receive_reply(int64_t id, Deadline deadline);
  Result<nlohmann::json> exchange(const std::string& verb, const nlohmann::json& args);
  // After a send failed: the daemon's id-0 frame when it closed the
  // connection with one, else `send_error`.
  Error last_word_or(Error send_error, Deadline deadline);
  // The Error an id-0 error frame carries, naming the socket.
  Error refusal(const nlohmann::json& frame) const;

  UniqueFd fd_;
  std::string path_;
  ClientTimeouts timeouts_;
  protocol::FrameDecoder decoder_{protocol::kMaxReplyBytes};
  int64_t next_id_ = 1;
};

}  // namespace energy
