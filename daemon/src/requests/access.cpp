#include "access.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>

#include <grp.h>

#include "energy/attr_file.h"

namespace energy::daemon {
namespace {

// Linux's value; older libc headers lack the name (the kernel has had it since 4.13).
#ifndef SO_PEERGROUPS
#define SO_PEERGROUPS 59
#endif

Result<std::vector<gid_t>> peer_groups_from_socket(int fd) {
  std::vector<gid_t> groups(64);
  for (int attempt = 0; attempt < 2; ++attempt) {
    socklen_t len = static_cast<socklen_t>(groups.size() * sizeof(gid_t));
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups.data(), &len) == 0) {
      groups.resize(len / sizeof(gid_t));
      return groups;
    }
    if (errno != ERANGE) return errno_error("getsockopt(SO_PEERGROUPS)");
    groups.resize(len / sizeof(gid_t) + 1);  // the kernel said how much it needs
  }
  return errno_error("getsockopt(SO_PEERGROUPS)");
}

Result<std::vector<gid_t>> peer_groups_from_proc(const std::string& proc_dir, pid_t pid) {
  std::string path = proc_dir + "/" + std::to_string(pid) + "/status";
  std::ifstream in(path);
  if (!in) return errno_error("cannot read " + path);
  std::stringstream text;
  text << in.rdbuf();
  auto groups = parse_status_groups(text.str());
  if (!groups) return make_error(groups.error().code, path + ": " + groups.error().message);
  return groups;
}

bool in_group(const PeerCredentials& peer, const std::optional<gid_t>& gid) {
  if (!gid) return false;
  if (peer.gid == *gid) return true;
  return std::find(peer.groups.begin(), peer.groups.end(), *gid) != peer.groups.end();
}

// POSIX ACL as the kernel's "system.posix_acl_access" xattr: a little-endian
// version word, then (tag, perm, id) entries sorted by tag.
constexpr uint32_t kAclVersion = 2;
constexpr uint16_t kAclUserObj = 0x01, kAclGroupObj = 0x04, kAclGroup = 0x08, kAclMask = 0x10, kAclOther = 0x20;
constexpr uint16_t kAclReadWrite = 6;
constexpr uint32_t kAclNoId = 0xFFFFFFFF;

void put_le(std::string& out, uint32_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

std::string acl_with_group(gid_t gid) {
  std::string blob;
  put_le(blob, kAclVersion, 4);
  auto entry = [&blob](uint16_t tag, uint16_t perm, uint32_t id) {
    put_le(blob, tag, 2);
    put_le(blob, perm, 2);
    put_le(blob, id, 4);
  };
  entry(kAclUserObj, kAclReadWrite, kAclNoId);
  entry(kAclGroupObj, kAclReadWrite, kAclNoId);
  entry(kAclGroup, kAclReadWrite, gid);
  entry(kAclMask, kAclReadWrite, kAclNoId);
  entry(kAclOther, 0, kAclNoId);
  return blob;
}

}  // namespace

Result<std::vector<gid_t>> parse_status_groups(const std::string& status_text) {
  std::istringstream lines(status_text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("Groups:", 0) != 0) continue;
    std::istringstream nums(line.substr(7));
    std::vector<gid_t> out;
    std::string tok;
    while (nums >> tok) {
      if (!all_digits(tok)) return make_error(ErrorCode::kParse, "Groups: line holds '" + tok + "', not a GID");
      out.push_back(static_cast<gid_t>(std::stoul(tok)));
    }
    return out;
  }
  return make_error(ErrorCode::kParse, "no Groups: line");
}

Result<PeerCredentials> read_peer_credentials(int fd, const std::string& proc_dir) {
  ucred cred{};
  socklen_t len = sizeof cred;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return errno_error("getsockopt(SO_PEERCRED)");
  PeerCredentials peer{cred.pid, cred.uid, cred.gid, {}};
  auto groups = peer_groups_from_socket(fd);
  if (!groups && groups.error().sys_errno == ENOPROTOOPT) groups = peer_groups_from_proc(proc_dir, cred.pid);
  if (!groups) return groups.take_error();
  peer.groups = std::move(groups).value();
  return peer;
}

const char* privilege_name(Privilege p) { return p == Privilege::kClock ? "clock" : "read"; }

// Prefix match, so later verbs of the same family (clocks.pin.run, ...) need
// the clock privilege without a policy change; everything else is a read.
Privilege verb_privilege(const std::string& verb) {
  if (verb.rfind("clocks.pin", 0) == 0 || verb.rfind("clocks.unpin", 0) == 0) return Privilege::kClock;
  return Privilege::kRead;
}

bool AccessPolicy::permits(const PeerCredentials& peer, Privilege needed) const {
  if (peer.uid == 0 || peer.uid == daemon_uid) return true;
  if (in_group(peer, clock_gid)) return true;
  return needed == Privilege::kRead && in_group(peer, read_gid);
}

Result<std::optional<gid_t>> resolve_group(const std::string& key, const std::string& spec) {
  if (spec.empty()) return std::optional<gid_t>();
  if (all_digits(spec)) {
    if (spec.size() > 10 || std::stoull(spec) >= 0xFFFFFFFFull) {
      return make_error(ErrorCode::kInvalid, key + ": GID " + spec + " is out of range");
    }
    return std::optional<gid_t>(static_cast<gid_t>(std::stoul(spec)));
  }
  group g{};
  group* found = nullptr;
  std::vector<char> buf(16384);
  int r = ::getgrnam_r(spec.c_str(), &g, buf.data(), buf.size(), &found);
  if (r != 0) return make_error(ErrorCode::kIo, key + ": cannot look up group '" + spec + "'", r);
  if (found == nullptr) {
    return make_error(ErrorCode::kNotFound,
                      key + ": no group named '" + spec + "' (create it with systemd-sysusers, or give a numeric GID)");
  }
  return std::optional<gid_t>(g.gr_gid);
}

Status restrict_socket_file(const std::string& path, const AccessPolicy& policy) {
  if (policy.read_gid && ::chown(path.c_str(), static_cast<uid_t>(-1), *policy.read_gid) != 0) {
    return errno_error("cannot give socket " + path + " to group " + std::to_string(*policy.read_gid));
  }
  if (::chmod(path.c_str(), 0660) != 0) return errno_error("cannot chmod 0660 socket " + path);
  if (!policy.clock_gid || policy.clock_gid == policy.read_gid) return ok_status();
  std::string acl = acl_with_group(*policy.clock_gid);
  if (::setxattr(path.c_str(), "system.posix_acl_access", acl.data(), acl.size(), 0) != 0) {
    return errno_error("cannot grant group " + std::to_string(*policy.clock_gid) + " access to socket " + path +
                       " with an ACL");
  }
  return ok_status();
}

}  // namespace energy::daemon
