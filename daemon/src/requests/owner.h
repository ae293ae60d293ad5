// Ownership of runs and clock leases (docs/SECURITY.md, "Owners"): a run or
// lease belongs to the uid that made it; its owner, root and the daemon's
// own uid may stop or unpin it, everyone else is `denied`. A run records its
// owner as the reserved tag energyd.uid, set by energyd at mark.start; a
// lease records it in the lease journal. A run or lease from before owners
// were recorded has none: only root (or the daemon's uid) may act on it.
//
// Thread-safety: plain values and pure functions.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "energy/result.h"
#include "energy/store.h"

namespace energy::daemon {

constexpr const char* kRunOwnerTag = "energyd.uid";

struct Caller {
  uid_t uid = 0;
  bool admin = false;  // root or the daemon's own uid: may act on anything
};
Caller make_caller(uid_t uid, uid_t daemon_uid);

// The owner recorded in the run's tags; nullopt when there is none (or it is malformed).
std::optional<uid_t> run_owner(const RunRecord& run);

// OK when `caller` may act on a thing owned by `owner`; else kDenied, e.g.
// "permission denied: run 4 (train) belongs to uid 1000; only that uid or root may stop it".
// `thing` names it ("run 4 (train)", "clock lease 2"), `action` says what was asked ("stop it").
Status check_owner(const std::string& thing, const std::string& action, std::optional<uid_t> owner,
                   const Caller& caller);

}  // namespace energy::daemon
