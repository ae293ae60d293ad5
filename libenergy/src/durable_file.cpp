#include "energy/durable_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>

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

Status replace_file_durably(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp";
  UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  if (!fd) return errno_error("cannot create " + tmp);
  auto st = write_all(fd.get(), text, tmp);
  if (!st) return st;
  if (::fsync(fd.get()) != 0) return errno_error("cannot sync " + tmp);
  fd.reset();
  if (::rename(tmp.c_str(), path.c_str()) != 0) return errno_error("cannot rename " + tmp + " to " + path);
  return fsync_dir(path);
}

Result<std::optional<std::string>> read_state_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return std::optional<std::string>();
    return errno_error("cannot open " + path);
  }
  std::ifstream in(path);
  if (!in) return errno_error("cannot open " + path);
  std::stringstream text;
  text << in.rdbuf();
  return std::optional<std::string>(text.str());
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
