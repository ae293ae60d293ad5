#include "energysim/data_file.h"

#include <filesystem>
#include <vector>

#ifndef ENERGYD_SIM_INSTALLED_DATA
#error "sim/CMakeLists.txt defines ENERGYD_SIM_INSTALLED_DATA"
#endif
#ifndef ENERGYD_SIM_SOURCE_DATA
#error "sim/CMakeLists.txt defines ENERGYD_SIM_SOURCE_DATA"
#endif

namespace energy::sim {
namespace {

bool is_file(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

Result<std::string> explicit_file(const std::string& path, const char* origin) {
  if (is_file(path)) return path;
  return make_error(ErrorCode::kNotFound, std::string(origin) + " names " + path + ", which is not a readable file");
}

}  // namespace

std::string installed_data_file() { return ENERGYD_SIM_INSTALLED_DATA; }
std::string source_data_file() { return ENERGYD_SIM_SOURCE_DATA; }

Result<std::string> locate_data_file(const DataFileSearch& search) {
  if (search.flag) return explicit_file(*search.flag, "--data");
  if (search.env && !search.env->empty()) return explicit_file(*search.env, "ENERGYD_SIM_DATA");
  const std::vector<std::string> defaults = {installed_data_file(), source_data_file()};
  for (const std::string& path : defaults) {
    if (is_file(path)) return path;
  }
  return make_error(ErrorCode::kNotFound, "no board data file: pass --data FILE or set ENERGYD_SIM_DATA (looked at " +
                                              defaults[0] + " and " + defaults[1] + ")");
}

}  // namespace energy::sim
