#include "energy/attr_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <charconv>

#include "energy/tick_path.h"

namespace energy {
namespace {

bool is_vanished(int err) { return err == ENOENT || err == ENODEV || err == ESTALE || err == ENXIO; }

ENERGY_TICK_PATH bool only_line_ends(std::string_view rest) {
  return rest.find_first_not_of(std::string_view("\n\0", 2)) == rest.npos;
}

std::string lower(std::string_view text) {
  std::string out;
  for (char c : text) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "", or " ma" / " mw" / " mv" / " ms" (L4T 32 staging driver), then line ends.
ENERGY_TICK_PATH bool is_unit_suffix(std::string_view rest) {
  size_t end = rest.find_first_of(std::string_view("\n\0", 2));
  std::string_view word = rest.substr(0, end);
  if (!only_line_ends(rest.substr(word.size()))) return false;
  if (word.empty()) return true;
  std::string unit = lower(word);
  return unit == " ma" || unit == " mw" || unit == " mv" || unit == " ms";
}

std::string shown(std::string_view text) {
  std::string out(text.substr(0, 32));
  while (!out.empty() && (out.back() == '\n' || out.back() == '\0')) out.pop_back();
  for (char& c : out) {
    if (std::isprint(static_cast<unsigned char>(c)) == 0) c = '?';
  }
  return out + (text.size() > 32 ? "..." : "");
}

// The error paths of the reads below, out of line and in .text.unlikely:
// the reads run every tick, and their code stays a few cache lines
// (tick_path.h).
[[gnu::cold, gnu::noinline]] Result<UniqueFd> open_attr(const SysRoot& root, const std::string& path,
                                                        const std::string& label) {
  auto host = root.confined_path(path);
  if (!host) return host.take_error();
  return open_regular_file(*host, label, FileAccess::kRead);
}

[[gnu::cold, gnu::noinline]] Error cut_error(const std::string& label, size_t cap) {
  return make_error(ErrorCode::kParse, label + ": more than " + std::to_string(cap - 1) + " bytes");
}

[[gnu::cold, gnu::noinline]] Error read_error(const std::string& label, int err) {
  return errno_error("cannot read " + label, err);
}

[[gnu::cold, gnu::noinline]] Error not_an_integer(std::string_view text, std::string_view what, bool beyond) {
  if (beyond)
    return make_error(ErrorCode::kParse, std::string(what) + ": \"" + shown(text) + "\" is beyond a 64-bit integer");
  return make_error(ErrorCode::kParse, std::string(what) + ": expected an integer, read \"" + shown(text) + "\"");
}

[[gnu::cold, gnu::noinline]] Error out_of_range(int64_t value, std::string_view what, int64_t min, int64_t max,
                                                std::string_view unit) {
  std::string u = unit.empty() ? "" : " " + std::string(unit);
  return make_error(ErrorCode::kInvalid,
                    std::string(what) + ": " + std::to_string(value) + u + " is outside the plausible range " +
                        std::to_string(min) + " to " + std::to_string(max) + u,
                    ERANGE);
}

// What every tick reads: at most 18 digits (below 2^63 whatever they are)
// and at most one newline, taken in one pass without from_chars' general
// path (about 120 instructions a value there, 11 values a tick; issue 16).
// Anything else, a sign or a unit or a 19th digit, goes the general way.
ENERGY_TICK_PATH bool plain_digits(std::string_view text, int64_t& value) {
  size_t n = text.size();
  if (n > 0 && text[n - 1] == '\n') --n;
  if (n == 0 || n > 18) return false;
  int64_t v = 0;
  for (size_t i = 0; i < n; ++i) {
    auto d = static_cast<unsigned>(static_cast<unsigned char>(text[i])) - unsigned{'0'};
    if (d > 9) return false;
    v = v * 10 + static_cast<int64_t>(d);
  }
  value = v;
  return true;
}

// The general parse (a sign, a unit, a 19th digit, or an error), out of
// the tick's way.
[[gnu::noinline]] bool general_int(std::string_view text, const std::string& label, int64_t& value, Error* error) {
  auto r = parse_sysfs_int(text, label);
  if (r) {
    value = *r;
    return true;
  }
  if (error != nullptr) *error = r.take_error();
  return false;
}

}  // namespace

AttrFile::AttrFile(const SysRoot& root, std::string board_path)
    : root_(root), path_(std::move(board_path)), label_(path_) {}

AttrFile::AttrFile(std::string host_path, std::string label) : path_(std::move(host_path)), label_(std::move(label)) {}

// Content that fills the whole buffer may have been cut: an error, never a
// prefix taken for the value.
ENERGY_TICK_PATH ssize_t AttrFile::read_into(char* buf, size_t cap, Error* error) {
  if (!fd_) {
    auto fd = open_attr(root_, path_, label_);
    if (!fd) {
      if (error != nullptr) *error = fd.take_error();
      return -1;
    }
    fd_ = std::move(fd).value();
  }
  ssize_t n = tick_pread(fd_.get(), buf, cap, 0);
  if (n >= 0 && static_cast<size_t>(n) < cap) return n;
  if (n >= 0) {
    if (error != nullptr) *error = cut_error(label_, cap);
    return -1;
  }
  int err = errno;
  if (is_vanished(err)) fd_.reset();
  if (error != nullptr) *error = read_error(label_, err);
  return -1;
}

ENERGY_TICK_PATH bool AttrFile::read_int(int64_t& value, Error* error) {
  char buf[64];
  ssize_t n = read_into(buf, sizeof buf, error);
  if (n < 0) return false;
  const std::string_view text(buf, static_cast<size_t>(n));
  if (plain_digits(text, value)) return true;
  return general_int(text, label_, value, error);
}

Result<int64_t> AttrFile::read_int() {
  int64_t value = 0;
  Error error;
  if (!read_int(value, &error)) return error;
  return value;
}

Result<std::string> AttrFile::read_text() {
  char buf[4096];
  Error error;
  ssize_t n = read_into(buf, sizeof buf, &error);
  if (n < 0) return error;
  std::string s(buf, static_cast<size_t>(n));
  while (!s.empty() && (s.back() == '\n' || s.back() == '\0')) s.pop_back();
  return s;
}

ENERGY_TICK_PATH bool all_digits(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

Result<int64_t> parse_sysfs_int(std::string_view text, std::string_view what) {
  int64_t value = 0;
  if (plain_digits(text, value)) return value;
  const char* first = text.data();
  const char* last = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(first, last, value);
  // Digits then one newline are accepted before the unit-suffix scan.
  if (ec == std::errc() && (ptr == last || (ptr + 1 == last && *ptr == '\n'))) return value;
  if (ec == std::errc::result_out_of_range) return not_an_integer(text, what, true);
  if (ec != std::errc() || !is_unit_suffix(std::string_view(ptr, static_cast<size_t>(last - ptr))))
    return not_an_integer(text, what, false);
  return value;
}

ENERGY_TICK_PATH Result<int64_t> check_range(int64_t value, std::string_view what, int64_t min, int64_t max,
                                             std::string_view unit) {
  if (value >= min && value <= max) return value;
  return out_of_range(value, what, min, max, unit);
}

}  // namespace energy
