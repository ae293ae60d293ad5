// Access control for energyd's socket: who is calling (peer credentials) and
// what they may do (the per-verb policy of docs/SECURITY.md).
//
// Two privileges: kRead (status, rails, clocks, export, mark.*, runs.*) and
// kClock (every verb starting with "clocks.pin" or "clocks.unpin"). Root and
// the daemon's own uid hold both; members of the clock group hold both;
// members of the read group hold kRead. Group membership counts the peer's
// primary and supplementary groups as they were when it connected.
//
// Thread-safety: plain values and reentrant functions; the socket helpers
// touch only the file or descriptor they are given.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "energy/result.h"

namespace energy::daemon {

struct PeerCredentials {
  pid_t pid = 0;
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;  // supplementary groups
};

// SO_PEERCRED plus SO_PEERGROUPS (Linux 4.13+); falls back to the Groups:
// line of <proc_dir>/<pid>/status when the kernel lacks SO_PEERGROUPS.
Result<PeerCredentials> read_peer_credentials(int fd, const std::string& proc_dir = "/proc");
// The numbers of a "Groups:" line of /proc/PID/status text.
Result<std::vector<gid_t>> parse_status_groups(const std::string& status_text);

enum class Privilege { kRead, kClock };
const char* privilege_name(Privilege p);
Privilege verb_privilege(const std::string& verb);

struct AccessPolicy {
  std::optional<gid_t> read_gid;   // nullopt: no read group (root and the clock group only)
  std::optional<gid_t> clock_gid;  // nullopt: no clock group (root only)
  uid_t daemon_uid = 0;            // a peer with the daemon's own uid could ptrace it anyway
  std::string read_group;          // as configured, for messages
  std::string clock_group;

  bool permits(const PeerCredentials& peer, Privilege needed) const;
};

// A group given as a name or a numeric GID. Empty means "no group" (nullopt).
// An unknown name is kNotFound, so the caller can say what happens next.
Result<std::optional<gid_t>> resolve_group(const std::string& key, const std::string& spec);

// Makes a bound socket file mode 0660, group `read_gid`, and (when it differs)
// grants `clock_gid` read/write through a POSIX ACL, so clock-group members
// who are not in the read group can connect too.
Status restrict_socket_file(const std::string& path, const AccessPolicy& policy);

}  // namespace energy::daemon
