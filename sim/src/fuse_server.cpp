#define FUSE_USE_VERSION 31
#include "fuse_server.h"

#include <fuse3/fuse_lowlevel.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

namespace energy::sim {

struct FuseSession::Context {
  LiveFs* fs = nullptr;
  fuse_session* session = nullptr;
  timespec mounted_at{};
  std::mutex dirs_mutex;
  std::map<std::uint64_t, std::vector<DirEntry>> dirs;  // open directory listings
  std::uint64_t next_dir = 1;
};

namespace {

using Context = FuseSession::Context;

Context& context_of(fuse_req_t req) { return *static_cast<Context*>(fuse_req_userdata(req)); }

void reply_error(fuse_req_t req, const Error& error) {
  fuse_reply_err(req, error.sys_errno != 0 ? error.sys_errno : EIO);
}

mode_t type_bits(NodeKind kind) {
  switch (kind) {
    case NodeKind::kDirectory: return S_IFDIR;
    case NodeKind::kSymlink: return S_IFLNK;
    case NodeKind::kFile: return S_IFREG;
  }
  return S_IFREG;
}

struct stat stat_of(const Context& c, const FileAttr& a) {
  struct stat st {};
  st.st_ino = a.ino;
  st.st_mode = type_bits(a.kind) | static_cast<mode_t>(a.mode);
  st.st_nlink = a.kind == NodeKind::kDirectory ? 2 : 1;
  st.st_size = static_cast<off_t>(a.size);
  st.st_uid = ::geteuid();
  st.st_gid = ::getegid();
  st.st_blksize = 4096;
  st.st_atim = st.st_mtim = st.st_ctim = c.mounted_at;
  return st;
}

// ---- metadata -----------------------------------------------------------------

void op_lookup(fuse_req_t req, fuse_ino_t parent, const char* name) {
  Context& c = context_of(req);
  Result<FileAttr> attr = c.fs->lookup(parent, name);
  if (!attr) return reply_error(req, attr.error());
  fuse_entry_param entry{};
  entry.ino = attr->ino;
  entry.attr = stat_of(c, *attr);
  fuse_reply_entry(req, &entry);  // timeouts 0: the next path walk asks again
}

void op_getattr(fuse_req_t req, fuse_ino_t ino, fuse_file_info*) {
  Context& c = context_of(req);
  Result<FileAttr> attr = c.fs->getattr(ino);
  if (!attr) return reply_error(req, attr.error());
  const struct stat st = stat_of(c, *attr);
  fuse_reply_attr(req, &st, 0);
}

// Only a truncation (open with O_TRUNC, as `echo 1 > file` does) is accepted; sysfs ignores it too.
void op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat*, int to_set, fuse_file_info* fi) {
  if ((to_set & ~FUSE_SET_ATTR_SIZE) != 0) return (void)fuse_reply_err(req, EPERM);
  op_getattr(req, ino, fi);
}

void op_readlink(fuse_req_t req, fuse_ino_t ino) {
  Result<std::string> target = context_of(req).fs->readlink(ino);
  if (!target) return reply_error(req, target.error());
  fuse_reply_readlink(req, target->c_str());
}

// ---- directories ------------------------------------------------------------------

void op_opendir(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi) {
  Context& c = context_of(req);
  Result<std::vector<DirEntry>> entries = c.fs->list(ino);
  if (!entries) return reply_error(req, entries.error());
  std::lock_guard<std::mutex> lock(c.dirs_mutex);
  fi->fh = c.next_dir++;
  c.dirs[fi->fh] = std::move(entries).value();
  fuse_reply_open(req, fi);
}

// Entries at offset k are "." (0), ".." (1), then the listing; each names the next offset.
void op_readdir(fuse_req_t req, fuse_ino_t ino, std::size_t size, off_t offset, fuse_file_info* fi) {
  Context& c = context_of(req);
  std::vector<char> buffer(size);
  std::size_t used = 0;
  std::lock_guard<std::mutex> lock(c.dirs_mutex);
  const std::vector<DirEntry>& entries = c.dirs[fi->fh];
  for (std::size_t k = static_cast<std::size_t>(offset); k < entries.size() + 2; ++k) {
    FileAttr attr = k < 2 ? FileAttr{ino, NodeKind::kDirectory, 0755, 0} : entries[k - 2].attr;
    const std::string name = k == 0 ? "." : k == 1 ? ".." : entries[k - 2].name;
    const struct stat st = stat_of(c, attr);
    const std::size_t n =
        fuse_add_direntry(req, buffer.data() + used, size - used, name.c_str(), &st, static_cast<off_t>(k + 1));
    if (n > size - used) break;
    used += n;
  }
  fuse_reply_buf(req, buffer.data(), used);
}

void op_releasedir(fuse_req_t req, fuse_ino_t, fuse_file_info* fi) {
  Context& c = context_of(req);
  std::lock_guard<std::mutex> lock(c.dirs_mutex);
  c.dirs.erase(fi->fh);
  fuse_reply_err(req, 0);
}

// ---- files ----------------------------------------------------------------------

void op_open(fuse_req_t req, fuse_ino_t ino, fuse_file_info* fi) {
  const OpenMode mode = (fi->flags & O_ACCMODE) == O_RDONLY ? OpenMode::kRead : OpenMode::kWrite;
  Result<std::uint64_t> fh = context_of(req).fs->open(ino, mode);
  if (!fh) return reply_error(req, fh.error());
  fi->fh = *fh;
  fi->direct_io = 1;  // no page cache: every read reaches the model
  fi->keep_cache = 0;
  fuse_reply_open(req, fi);
}

void op_read(fuse_req_t req, fuse_ino_t, std::size_t size, off_t offset, fuse_file_info* fi) {
  Context& c = context_of(req);
  const auto at = static_cast<std::uint64_t>(offset);
  Result<std::optional<ReadFault>> fault = c.fs->begin_read(fi->fh, at);
  if (!fault) return reply_error(req, fault.error());
  if (*fault) {
    Status waited =
        c.fs->wait(**fault, [&] { return fuse_req_interrupted(req) != 0 || fuse_session_exited(c.session) != 0; });
    if (!waited) return reply_error(req, waited.error());
  }
  Result<std::string> data = c.fs->read(fi->fh, at, size);
  if (!data) return reply_error(req, data.error());
  fuse_reply_buf(req, data->data(), data->size());
}

void op_write(fuse_req_t req, fuse_ino_t, const char* buf, std::size_t size, off_t, fuse_file_info* fi) {
  Result<std::size_t> written = context_of(req).fs->write(fi->fh, std::string_view(buf, size));
  if (!written) return reply_error(req, written.error());
  fuse_reply_write(req, *written);
}

void op_release(fuse_req_t req, fuse_ino_t, fuse_file_info* fi) {
  context_of(req).fs->release(fi->fh);
  fuse_reply_err(req, 0);
}

fuse_lowlevel_ops operations() {
  fuse_lowlevel_ops ops{};
  ops.lookup = op_lookup;
  ops.getattr = op_getattr;
  ops.setattr = op_setattr;
  ops.readlink = op_readlink;
  ops.opendir = op_opendir;
  ops.readdir = op_readdir;
  ops.releasedir = op_releasedir;
  ops.open = op_open;
  ops.read = op_read;
  ops.write = op_write;
  ops.release = op_release;
  return ops;
}

bool on_path(const char* program) {
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/bin:/bin";
  for (std::size_t start = 0; start <= dirs.size();) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string candidate = dirs.substr(start, end - start) + "/" + program;
    if (::access(candidate.c_str(), X_OK) == 0) return true;
    start = end + 1;
  }
  return false;
}

// A fuse_args vector that frees what libfuse allocated into it.
class FuseArgs {
 public:
  explicit FuseArgs(const std::string& options) : options_(options) {
    argv_ = {program_.data(), dash_o_.data(), options_.data(), nullptr};
    args_ = FUSE_ARGS_INIT(3, argv_.data());
  }
  ~FuseArgs() { fuse_opt_free_args(&args_); }
  FuseArgs(const FuseArgs&) = delete;
  FuseArgs& operator=(const FuseArgs&) = delete;
  fuse_args* get() { return &args_; }

 private:
  std::string program_ = "energyd-sim";
  std::string dash_o_ = "-o";
  std::string options_;
  std::vector<char*> argv_;
  fuse_args args_{};
};

std::string mount_options() {
  std::string options = "fsname=energyd-sim,subtype=energyd-sim,default_permissions";
  if (::geteuid() == 0) options += ",allow_other";
  return options;
}

}  // namespace

Status check_fuse_available(const std::string& mountpoint) {
  if (::access("/dev/fuse", R_OK | W_OK) != 0) {
    const int err = errno;
    if (err == ENOENT) {
      return make_error(ErrorCode::kUnsupported,
                        "/dev/fuse is missing: load the fuse module (modprobe fuse) or, in a container, pass "
                        "--device /dev/fuse",
                        err);
    }
    return make_error(ErrorCode::kDenied, "cannot open /dev/fuse for reading and writing", err);
  }
  if (::geteuid() != 0 && !on_path("fusermount3")) {
    return make_error(ErrorCode::kUnsupported,
                      "fusermount3 is not on PATH: install fuse3 (needed to mount as non-root)");
  }
  struct stat st {};
  if (::stat(mountpoint.c_str(), &st) != 0) return errno_error("mount point " + mountpoint);
  if (!S_ISDIR(st.st_mode)) return make_error(ErrorCode::kInvalid, "mount point " + mountpoint + " is not a directory");
  return ok_status();
}

FuseSession::FuseSession(std::unique_ptr<Context> context) : context_(std::move(context)) {}

Result<std::unique_ptr<FuseSession>> FuseSession::mount(LiveFs& fs, const std::string& mountpoint) {
  auto context = std::make_unique<Context>();
  context->fs = &fs;
  ::clock_gettime(CLOCK_REALTIME, &context->mounted_at);
  FuseArgs args(mount_options());
  const fuse_lowlevel_ops ops = operations();
  context->session = fuse_session_new(args.get(), &ops, sizeof(ops), context.get());
  if (context->session == nullptr) return make_error(ErrorCode::kIo, "libfuse refused the session options");
  std::unique_ptr<FuseSession> session(new FuseSession(std::move(context)));
  if (fuse_session_mount(session->context_->session, mountpoint.c_str()) != 0) {
    return make_error(ErrorCode::kIo, "cannot mount a FUSE file system at " + mountpoint +
                                          " (libfuse printed why; a stale mount needs `fusermount3 -u " + mountpoint +
                                          "`)");
  }
  session->mounted_ = true;
  // From now on SIGINT / SIGTERM / SIGHUP end the loop (or make it return at
  // once), so the destructor always unmounts. libfuse leaves an ignored
  // signal ignored, and a shell ignores SIGINT for `cmd &`: the contract is
  // to stop on SIGINT and SIGTERM, so those two are reset first (SIGHUP is
  // left alone for nohup).
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  if (fuse_set_signal_handlers(session->context_->session) != 0) {
    return make_error(ErrorCode::kIo, "cannot install the signal handlers");
  }
  session->handlers_ = true;
  return session;
}

Status FuseSession::run() {
  const int rc = fuse_session_loop_mt(context_->session, 0);  // clone_fd 0; > 0: ended by that signal
  context_->fs->shutdown();
  if (rc < 0) return make_error(ErrorCode::kIo, "the FUSE loop failed", -rc);
  return ok_status();
}

FuseSession::~FuseSession() {
  if (context_->session == nullptr) return;
  if (handlers_) fuse_remove_signal_handlers(context_->session);
  if (mounted_) fuse_session_unmount(context_->session);
  fuse_session_destroy(context_->session);
}

}  // namespace energy::sim
