#include "energy/attr_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <charconv>

namespace energy {
namespace {

bool is_vanished(int err) { return err == ENOENT || err == ENODEV || err == ESTALE || err == ENXIO; }

bool is_unit_suffix(std::string_view rest) {
  size_t i = 0;
  while (i < rest.size() && std::isspace(static_cast<unsigned char>(rest[i])) != 0) ++i;
  for (; i < rest.size(); ++i) {
    auto c = static_cast<unsigned char>(rest[i]);
    if (std::isalpha(c) == 0 && std::isspace(c) == 0 && c != '\0') return false;
  }
  return true;
}

}  // namespace

AttrFile::AttrFile(std::string host_path, std::string label)
    : host_path_(std::move(host_path)), label_(std::move(label)) {}

Result<size_t> AttrFile::read_into(char* buf, size_t cap) {
  if (!fd_) {
    fd_.reset(::open(host_path_.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd_) return errno_error("cannot open " + label_);
  }
  ssize_t n = ::pread(fd_.get(), buf, cap, 0);
  if (n >= 0) return static_cast<size_t>(n);
  int err = errno;
  if (is_vanished(err)) fd_.reset();
  return errno_error("cannot read " + label_, err);
}

Result<int64_t> AttrFile::read_int() {
  char buf[64];
  auto n = read_into(buf, sizeof buf);
  if (!n) return n.take_error();
  return parse_sysfs_int(std::string_view(buf, *n), label_);
}

Result<std::string> AttrFile::read_text() {
  char buf[4096];
  auto n = read_into(buf, sizeof buf);
  if (!n) return n.take_error();
  std::string s(buf, *n);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\0')) s.pop_back();
  return s;
}

Result<int64_t> parse_sysfs_int(std::string_view text, std::string_view what) {
  size_t start = 0;
  while (start < text.size() && std::isspace(static_cast<unsigned char>(text[start])) != 0) ++start;
  int64_t value = 0;
  const char* first = text.data() + start;
  const char* last = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(first, last, value);
  if (ec != std::errc() || !is_unit_suffix(std::string_view(ptr, static_cast<size_t>(last - ptr)))) {
    std::string shown(text.substr(0, 32));
    while (!shown.empty() && shown.back() == '\n') shown.pop_back();
    return make_error(ErrorCode::kParse, std::string(what) + ": expected an integer, read \"" + shown + "\"");
  }
  return value;
}

}  // namespace energy
