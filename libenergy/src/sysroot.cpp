#include "energy/sysroot.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "energy/unique_fd.h"

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

}  // namespace

SysRoot::SysRoot(std::string root_dir) : root_(std::move(root_dir)) {
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
  if (root_.empty()) root_ = "/";
}

std::string SysRoot::resolve(std::string_view board_path) const {
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
    if (hops >= kMaxSymlinkHops || !read_link(host_of(root_, done), target)) continue;
    ++hops;
    done.pop_back();
    if (!target.empty() && target.front() == '/') done.clear();
    auto more = split_path(target);
    todo.insert(todo.end(), more.rbegin(), more.rend());
  }
  return host_of(root_, done);
}

Result<std::string> SysRoot::read_raw(std::string_view board_path) const {
  std::string host = resolve(board_path);
  UniqueFd fd(::open(host.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) return errno_error("cannot open " + std::string(board_path));
  std::string out;
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0) return errno_error("cannot read " + std::string(board_path));
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

Result<std::string> SysRoot::read_text(std::string_view board_path) const {
  auto raw = read_raw(board_path);
  if (!raw) return raw.take_error();
  return trim_trailing(std::move(raw).value());
}

Result<std::vector<std::string>> SysRoot::list_dir(std::string_view board_path) const {
  std::string host = resolve(board_path);
  DIR* dir = ::opendir(host.c_str());
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
  return ::stat(resolve(board_path).c_str(), &st) == 0;
}

bool SysRoot::is_dir(std::string_view board_path) const {
  struct stat st {};
  return ::stat(resolve(board_path).c_str(), &st) == 0 && S_ISDIR(st.st_mode);
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
