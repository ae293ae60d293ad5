#include "duration_arg.h"

#include <cctype>
#include <utility>

namespace energy::cli {

Result<int64_t> parse_duration_ms(const std::string& text) {
  size_t end = 0;
  while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end])) != 0) ++end;
  std::string unit = text.substr(end);
  const std::pair<const char*, int64_t> units[] = {
      {"ms", 1}, {"s", 1000}, {"m", 60000}, {"h", 3600000}, {"d", 86400000}};
  for (const auto& [name, ms] : units) {
    if (end == 0 || end > 9 || unit != name) continue;
    int64_t n = std::stoll(text.substr(0, end));
    if (n > 0) return n * ms;
  }
  return make_error(ErrorCode::kInvalid,
                    "duration '" + text + "' is not a positive number with a unit (ms, s, m, h, d), e.g. 90s");
}

}  // namespace energy::cli
