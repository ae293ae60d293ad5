#include "energy/durable_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "energy/sysroot.h"
#include "energy/unique_fd.h"

namespace energy {
namespace {

Status write_all(int fd, const std::string& text, const std::string& path) {
  size_t off = 0;
  while (off < text.size()) {
    ssize_t n = ::write(fd, text.data() + off, text.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_error("cannot write " + path);
    off += static_cast<size_t>(n);
  }
  return ok_status();
}

Status fsync_dir(const std::string& path) {
  size_t slash = path.rfind('/');
  std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd) return errno_error("cannot open directory " + dir + " to sync it");
  if (::fsync(fd.get()) != 0) return errno_error("cannot sync directory " + dir);
  return ok_status();
}

}  // namespace

// A stale "<path>.tmp" (a crash between create and rename, or something
// planted there, such as a FIFO that would block open()) is removed first;
// the new one is created exclusively and never followed through a link.
Status replace_file_durably(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp";
  if (::unlink(tmp.c_str()) != 0 && errno != ENOENT) return errno_error("cannot remove the stale " + tmp);
  UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd) return errno_error("cannot create " + tmp);
  auto st = write_all(fd.get(), text, tmp);
  if (!st) return st;
  if (::fsync(fd.get()) != 0) return errno_error("cannot sync " + tmp);
  fd.reset();
  if (::rename(tmp.c_str(), path.c_str()) != 0) return errno_error("cannot rename " + tmp + " to " + path);
  return fsync_dir(path);
}

Result<std::optional<std::string>> read_state_file(const std::string& path) {
  auto fd = open_regular_file(path, path, FileAccess::kRead);
  if (!fd && fd.error().sys_errno == ENOENT) return std::optional<std::string>();
  if (!fd) return fd.take_error();
  auto text = read_all(fd->get(), path, kMaxStateFileBytes);
  if (!text) return text.take_error();
  return std::optional<std::string>(std::move(text).value());
}

Result<nlohmann::json> parse_journal(const std::string& text, const char* format, int version, const std::string& what,
                                     const char* kind, int oldest_version) {
  try {
    nlohmann::json j = nlohmann::json::parse(text);
    if (j.at("format").get<std::string>() != format) return make_error(ErrorCode::kParse, what + ": not " + kind);
    const int v = j.at("version").get<int>();
    const int oldest = oldest_version > 0 ? oldest_version : version;
    if (v < oldest || v > version) {
      std::string wanted =
          oldest == version ? std::to_string(version) : std::to_string(oldest) + " to " + std::to_string(version);
      return make_error(ErrorCode::kParse, what + ": journal version " + j.at("version").dump() + " is not " + wanted);
    }
    return j;
  } catch (const std::exception& e) {
    return make_error(ErrorCode::kParse, what + ": " + e.what());
  }
}

}  // namespace energy
