#include "terminal_text.h"

#include <cstdio>

namespace energy::cli {
namespace {

std::string hex_escape(const char* prefix, unsigned value, int digits) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%s%0*x", prefix, digits, value);
  return buf;
}

std::string c0_escape(unsigned char c) {
  switch (c) {
    case '\t': return "\\t";
    case '\n': return "\\n";
    case '\r': return "\\r";
    default: return hex_escape("\\x", c, 2);
  }
}

bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// The length of the valid UTF-8 sequence at text[i] (lead byte >= 0x80),
// or 0 when it is not one (RFC 3629: no overlong forms, no surrogates, at
// most U+10FFFF).
size_t utf8_length(std::string_view text, size_t i) {
  auto at = [&](size_t k) { return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0u; };
  unsigned lead = at(0), second = at(1);
  size_t n = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC2 ? 2 : 0;
  if (n == 0 || lead > 0xF4) return 0;
  unsigned lo = lead == 0xE0 ? 0xA0 : lead == 0xF0 ? 0x90 : 0x80;
  unsigned hi = lead == 0xED ? 0x9F : lead == 0xF4 ? 0x8F : 0xBF;
  if (second < lo || second > hi) return 0;
  for (size_t k = 2; k < n; ++k) {
    if (!is_continuation(static_cast<unsigned char>(at(k)))) return 0;
  }
  return n;
}

}  // namespace

std::string terminal_safe(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7F) {
      out += c0_escape(c);
      ++i;
    } else if (c < 0x80) {
      out += static_cast<char>(c);
      ++i;
    } else if (size_t n = utf8_length(text, i); n == 0) {
      out += hex_escape("\\x", c, 2);
      ++i;
    } else if (c == 0xC2 && static_cast<unsigned char>(text[i + 1]) < 0xA0) {
      out += hex_escape("\\u", static_cast<unsigned char>(text[i + 1]), 4);  // C1: U+0080..U+009F
      i += 2;
    } else {
      out.append(text.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string csv_field(std::string_view text) {
  std::string safe = terminal_safe(text);
  if (safe.find_first_of(",\"") == std::string::npos) return safe;
  std::string out = "\"";
  for (char c : safe) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace energy::cli
