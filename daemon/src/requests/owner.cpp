#include "owner.h"

#include <charconv>

#include "energy/baseline.h"

namespace energy::daemon {

Caller make_caller(uid_t uid, uid_t daemon_uid) { return Caller{uid, uid == 0 || uid == daemon_uid}; }

std::optional<uid_t> run_owner(const RunRecord& run) {
  auto text = run_tag(run, kRunOwnerTag);
  if (!text) return std::nullopt;
  uid_t uid = 0;
  auto [p, ec] = std::from_chars(text->data(), text->data() + text->size(), uid);
  if (text->empty() || ec != std::errc() || p != text->data() + text->size()) return std::nullopt;
  return uid;
}

Status check_owner(const std::string& thing, const std::string& action, std::optional<uid_t> owner,
                   const Caller& caller) {
  if (caller.admin || (owner && *owner == caller.uid)) return ok_status();
  if (!owner) {
    return make_error(
        ErrorCode::kDenied,
        "permission denied: " + thing + " has no recorded owner (it predates owner records); only root may " + action);
  }
  return make_error(ErrorCode::kDenied, "permission denied: " + thing + " belongs to uid " + std::to_string(*owner) +
                                            "; only that uid or root may " + action);
}

}  // namespace energy::daemon
