// The FUSE front end of a LiveFs (libfuse3 low-level API, FUSE_USE_VERSION
// 31 so that libfuse 3.10 and 3.14 both build it).
//
//   * multi-threaded loop: a blocked read occupies one worker, others go on;
//   * direct_io on every open: each read(2) reaches LiveFs, so a pread at
//     offset 0 recomputes the value;
//   * attribute and entry timeouts of 0: every lookup and stat reaches
//     LiveFs, so renumbered and vanished paths change at once;
//   * default_permissions: the kernel enforces the tree's mode bits (rail_name
//     files 0600 on L4T 32); allow_other when running as root. Files belong to
//     the user running the simulator.
//
// FuseSession owns the libfuse session, the mount and libfuse's handlers
// for SIGINT, SIGTERM and SIGHUP (installed as soon as the mount exists).
// run() blocks until one of those signals or an external unmount; the
// destructor unmounts. Threads that must not take those signals are started
// with them blocked (control_server.h: thread_without_signals).
//
// Thread-safety: mount() and run() from one thread; LiveFs is called from
// libfuse's workers.
#pragma once

#include <memory>
#include <string>

#include "energy/result.h"
#include "live_fs.h"

struct fuse_session;

namespace energy::sim {

// Before mounting: /dev/fuse must be usable and, for a non-root user,
// fusermount3 must be on PATH; the mount point must be a directory. The
// error says what to install or pass.
Status check_fuse_available(const std::string& mountpoint);

class FuseSession {
 public:
  static Result<std::unique_ptr<FuseSession>> mount(LiveFs& fs, const std::string& mountpoint);
  ~FuseSession();
  FuseSession(const FuseSession&) = delete;
  FuseSession& operator=(const FuseSession&) = delete;

  // Serves requests until a signal or an unmount; kIo if libfuse fails.
  Status run();

  struct Context;  // what the request handlers see (fuse_server.cpp)

 private:
  explicit FuseSession(std::unique_ptr<Context> context);
  std::unique_ptr<Context> context_;
  bool mounted_ = false;
  bool handlers_ = false;
};

}  // namespace energy::sim
