// Splitting the comma lists of sweep options ("600M,1.2G", "1,8,32").
#pragma once

#include <string>
#include <vector>

namespace energy {

// Every comma-separated item, empty ones included ("a,,b" -> a, "", b).
inline std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out(1);
  for (char c : text) {
    if (c == ',') {
      out.emplace_back();
    } else {
      out.back().push_back(c);
    }
  }
  return out;
}

}  // namespace energy
