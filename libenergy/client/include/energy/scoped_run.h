// ScopedRun: a run that is closed when it goes out of scope.
//
//   auto client = energy::Client::connect(energy::default_socket_path());
//   auto run = energy::ScopedRun::start(*client, "resnet50", {{"batch", "8"}});
//   infer();                                  // may throw: the run is still closed
//   auto report = run->stop();                // the report, or the daemon's error
//
// start() opens the run (mark.start); stop() closes it (mark.stop by id) and
// returns the report, and later calls return the same outcome: a run is
// closed at most once. The destructor closes a run stop() did not, e.g.
// while an exception unwinds; it never throws: its outcome (report or Error)
// is handed to the optional `on_implicit_stop` callback, or dropped.
//
// The Client must outlive the ScopedRun. Thread-safety: as the Client's.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "energy/client.h"
#include "energy/result.h"

namespace energy {

class ScopedRun {
 public:
  using StopCallback = std::function<void(const Result<nlohmann::json>&)>;

  static Result<ScopedRun> start(Client& client, const std::string& name, const Tags& tags = {},
                                 StopCallback on_implicit_stop = {});
  ~ScopedRun();
  ScopedRun(ScopedRun&& other) noexcept;
  ScopedRun& operator=(ScopedRun&&) = delete;
  ScopedRun(const ScopedRun&) = delete;
  ScopedRun& operator=(const ScopedRun&) = delete;

  const RunInfo& info() const { return info_; }
  bool stopped() const { return outcome_.has_value(); }
  // Closes the run once; the report (docs/PROTOCOL.md, mark.stop) or the error.
  const Result<nlohmann::json>& stop();

 private:
  ScopedRun(Client& client, RunInfo info, StopCallback on_implicit_stop);

  Client* client_;  // null once moved from
  RunInfo info_;
  StopCallback on_implicit_stop_;
  std::optional<Result<nlohmann::json>> outcome_;
};

}  // namespace energy
