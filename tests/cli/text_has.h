// Whether a test's output text holds a piece (the CLI tests' plots and tables).
#pragma once

#include <string>

namespace energy::cli {

inline bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

}  // namespace energy::cli
