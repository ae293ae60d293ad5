#include "number_arg.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace energy::cli {
namespace {

std::string range_text(int64_t min, int64_t max) {
  if (max == std::numeric_limits<int64_t>::max()) return "a whole number of at least " + std::to_string(min);
  return "a whole number from " + std::to_string(min) + " to " + std::to_string(max);
}

// strtod alone would take leading spaces, a sign, hex, "inf" and "nan".
bool plain_decimal(const std::string& text) {
  if (text.empty() || (text[0] < '0' || text[0] > '9')) return false;
  return text.find_first_not_of("0123456789.eE+-") == std::string::npos;
}

}  // namespace

Result<int64_t> parse_whole_option(const std::string& option, const std::string& text, int64_t min, int64_t max) {
  int64_t n = 0;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, n);
  bool digits_only = !text.empty() && text[0] != '-';
  if (!digits_only || ec != std::errc() || p != end || n < min || n > max) {
    return make_error(ErrorCode::kInvalid, option + " must be " + range_text(min, max) + ", got '" + text + "'");
  }
  return n;
}

Result<double> parse_positive_option(const std::string& option, const std::string& text) {
  char* end = nullptr;
  double n = plain_decimal(text) ? std::strtod(text.c_str(), &end) : 0.0;
  if (end == nullptr || *end != '\0' || !std::isfinite(n) || n <= 0) {
    return make_error(ErrorCode::kInvalid,
                      option + " must be a positive number, got '" + text + "' (e.g. 3200 or 2.5)");
  }
  return n;
}

}  // namespace energy::cli
