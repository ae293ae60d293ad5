#include "energy/sysroot.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

namespace energy {
namespace {

constexpr int kMaxSymlinkHops = 40;  // as the kernel's MAXSYMLINKS

std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> parts;
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t next = path.find('/', pos);
    if (next == std::string_view::npos) next = path.size();
    if (next > pos) parts.emplace_back(path.substr(pos, next - pos));
    pos = next + 1;
  }
  return parts;
}

std::string host_of(const std::string& root, const std::vector<std::string>& parts) {
  std::string out = root == "/" ? "" : root;
  for (const auto& p : parts) out += "/" + p;
  return out.empty() ? "/" : out;
}

bool read_link(const std::string& host, std::string& target) {
  char buf[4096];
  ssize_t n = ::readlink(host.c_str(), buf, sizeof buf);
  if (n < 0) return false;
  target.assign(buf, static_cast<size_t>(n));
  return true;
}

std::string trim_trailing(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
}

Error too_many_links(std::string_view board_path, const std::string& root) {
  return errno_error("cannot resolve " + std::string(board_path) + " under " + root + ": more than " +
                         std::to_string(kMaxSymlinkHops) + " symbolic links",
                     ELOOP);
}

Result<std::string> real_path(const std::string& host, std::string_view what) {
  char* real = ::realpath(host.c_str(), nullptr);
  if (real == nullptr) return errno_error("cannot open " + std::string(what));
  std::string out(real);
  std::free(real);
  return out;
}

bool is_under(const std::string& path, const std::string& dir) {
  if (dir == "/") return true;
  return path == dir || (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 && path[dir.size()] == '/');
}

const char* file_type_name(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}

Error not_regular(const std::string& label, mode_t mode) {
  return make_error(ErrorCode::kInvalid,
                    label + " is " + file_type_name(mode) + ", not a regular file; energyd reads only regular files");
}

// open() failed: a FIFO without a reader answers ENXIO to a non-blocking
// open for writing, and O_NOFOLLOW a link with ELOOP; say what the file is
// rather than "no such device" or "too many levels of symbolic links".
Error open_failure(const std::string& host_path, const std::string& label, int err) {
  struct stat st {};
  bool told_type = err == ENXIO || err == ELOOP;  // ELOOP: O_NOFOLLOW met a link
  if (told_type && ::lstat(host_path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) return not_regular(label, st.st_mode);
  return errno_error("cannot open " + label, err);
}

// Records one read in a ReadWatch, if there is one, for its duration.
class WatchScope {
 public:
  WatchScope(ReadWatch* watch, std::string_view board_path) : watch_(watch) {
    if (watch_ != nullptr) watch_->begin(board_path);
  }
  ~WatchScope() {
    if (watch_ != nullptr) watch_->end();
  }
  WatchScope(const WatchScope&) = delete;
  WatchScope& operator=(const WatchScope&) = delete;

 private:
  ReadWatch* watch_;
};

}  // namespace

Result<UniqueFd> open_regular_file(const std::string& host_path, const std::string& label, FileAccess access) {
  int flags = O_NONBLOCK | O_NOCTTY | O_CLOEXEC | O_NOFOLLOW;
  flags |= access == FileAccess::kWrite ? (O_WRONLY | O_TRUNC) : O_RDONLY;
  UniqueFd fd(::open(host_path.c_str(), flags));
  if (!fd) return open_failure(host_path, label, errno);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return errno_error("cannot stat " + label);
  if (!S_ISREG(st.st_mode)) return not_regular(label, st.st_mode);
  int status = ::fcntl(fd.get(), F_GETFL);
  if (status < 0 || ::fcntl(fd.get(), F_SETFL, status & ~O_NONBLOCK) != 0) {
    return errno_error("cannot clear O_NONBLOCK on " + label);
  }
  return Result<UniqueFd>(std::move(fd));
}

Result<std::string> read_all(int fd, const std::string& label, size_t limit) {
  std::string out;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_error("cannot read " + label);
    if (n == 0) return out;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > limit) {
      return make_error(ErrorCode::kInvalid,
                        label + " is larger than " + std::to_string(limit) + " bytes; refusing to read it");
    }
  }
}

void ReadWatch::begin(std::string_view board_path) {
  std::lock_guard<std::mutex> lock(mu_);
  reading_ = Reading{std::string(board_path), std::chrono::steady_clock::now()};
}

void ReadWatch::end() {
  std::lock_guard<std::mutex> lock(mu_);
  reading_ = Reading{};
}

ReadWatch::Reading ReadWatch::current() const {
  std::lock_guard<std::mutex> lock(mu_);
  return reading_;
}

SysRoot SysRoot::watched_by(std::shared_ptr<ReadWatch> watch) const {
  SysRoot copy = *this;
  copy.watch_ = std::move(watch);
  return copy;
}

SysRoot::SysRoot(std::string root_dir) : root_(std::move(root_dir)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
  if (root_.empty()) root_ = "/";
}

Result<std::string> SysRoot::resolve(std::string_view board_path) const {
  std::vector<std::string> done;
  std::vector<std::string> todo = split_path(board_path);
  std::reverse(todo.begin(), todo.end());
  int hops = 0;
  while (!todo.empty()) {
    std::string part = std::move(todo.back());
    todo.pop_back();
    if (part == ".") continue;
    if (part == "..") {
      if (!done.empty()) done.pop_back();
      continue;
    }
    done.push_back(part);
    std::string target;
    if (!read_link(host_of(root_, done), target)) continue;
    // Past the limit the link would be left for the kernel to follow, out of the root.
    if (++hops > kMaxSymlinkHops) return too_many_links(board_path, root_);
    done.pop_back();
    if (!target.empty() && target.front() == '/') done.clear();
    auto more = split_path(target);
    todo.insert(todo.end(), more.rbegin(), more.rend());
  }
  return host_of(root_, done);
}

Result<std::string> SysRoot::confined_path(std::string_view board_path) const {
  auto host = resolve(board_path);
  if (!host) return host.take_error();
  auto real = real_path(*host, board_path);
  if (!real) return real.take_error();
  auto real_root = real_path(root_, "the root directory " + root_);
  if (!real_root) return real_root.take_error();
  if (!is_under(*real, *real_root)) {
    return make_error(ErrorCode::kDenied, std::string(board_path) + " resolves to " + *real +
                                              ", outside the board root " + *real_root + "; refusing it");
  }
  return real;
}

Result<UniqueFd> SysRoot::open_file(std::string_view board_path, FileAccess access) const {
  auto host = confined_path(board_path);
  if (!host) return host.take_error();
  return open_regular_file(*host, std::string(board_path), access);
}

Result<std::string> SysRoot::read_raw(std::string_view board_path) const {
  WatchScope scope(watch_.get(), board_path);
  auto fd = open_file(board_path, FileAccess::kRead);
  if (!fd) return fd.take_error();
  return read_all(fd->get(), std::string(board_path), kMaxBoardFileBytes);
}

Result<std::string> SysRoot::read_text(std::string_view board_path) const {
  auto raw = read_raw(board_path);
  if (!raw) return raw.take_error();
  return trim_trailing(std::move(raw).value());
}

Result<std::vector<std::string>> SysRoot::list_dir(std::string_view board_path) const {
  WatchScope scope(watch_.get(), board_path);
  auto host = resolve(board_path);
  if (!host) return host.take_error();
  DIR* dir = ::opendir(host->c_str());
  if (dir == nullptr) return errno_error("cannot list " + std::string(board_path));
  std::vector<std::string> names;
  while (dirent* e = ::readdir(dir)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(std::move(name));
  }
  ::closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

bool SysRoot::exists(std::string_view board_path) const {
  struct stat st {};
  auto host = resolve(board_path);
  return host && ::stat(host->c_str(), &st) == 0;
}

bool SysRoot::is_dir(std::string_view board_path) const {
  struct stat st {};
  auto host = resolve(board_path);
  return host && ::stat(host->c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string join_path(std::string_view a, std::string_view b) {
  std::string out(a);
  while (!out.empty() && out.back() == '/') out.pop_back();
  size_t skip = 0;
  while (skip < b.size() && b[skip] == '/') ++skip;
  out += "/";
  out += b.substr(skip);
  return out;
}

}  // namespace energy
