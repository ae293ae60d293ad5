#include "sysfs_write.h"

#include <cctype>
#include <cerrno>
#include <charconv>

namespace energy::sim {
namespace {

// kstrto*() allow exactly one trailing newline.
std::string_view without_newline(std::string_view text) {
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  return text;
}

template <typename Number>
Result<Number> parse_number(std::string_view text) {
  const std::string_view body = without_newline(text);
  std::string_view digits = body;
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  Number value{};
  const char* end = digits.data() + digits.size();
  const auto [ptr, ec] = std::from_chars(digits.data(), end, value);
  if (digits.empty() || ec != std::errc() || ptr != end) {
    return rejected_write("'" + std::string(body) + "' is not a number");
  }
  return value;
}

}  // namespace

Result<std::int64_t> parse_written_integer(std::string_view text) { return parse_number<std::int64_t>(text); }

Result<std::uint64_t> parse_written_unsigned(std::string_view text) { return parse_number<std::uint64_t>(text); }

std::string written_word(std::string_view text) {
  std::size_t begin = 0;
  while (begin < text.size() && std::isspace(static_cast<unsigned char>(text[begin])) != 0) ++begin;
  std::size_t end = begin;
  while (end < text.size() && std::isspace(static_cast<unsigned char>(text[end])) == 0) ++end;
  return std::string(text.substr(begin, end - begin));
}

Error rejected_write(std::string why) { return make_error(ErrorCode::kInvalid, std::move(why), EINVAL); }

}  // namespace energy::sim
