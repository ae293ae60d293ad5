// fuzz_config: bytes -> the config loader (config.h apply_config_yaml, the
// string-level entry point load_config_file uses), then validate_config and
// what the daemon derives from a valid config.
//
// Properties: the loader never throws (yaml-cpp's exceptions are caught in
// config.cpp) and never crashes; an error names the source; a config that
// validates converts to a retention policy without overflow (UBSan).
#include <cstddef>
#include <cstdint>
#include <string>

#include "energy/config.h"
#include "energy/store.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using energy::fuzz::require;
  std::string text(reinterpret_cast<const char*>(data), size);
  auto config = energy::apply_config_yaml(text, "fuzz.yaml", energy::DaemonConfig{});
  if (!config) {
    require(config.error().message.find("fuzz.yaml") != std::string::npos, "config error does not name the file");
    return 0;
  }
  if (!energy::validate_config(*config)) return 0;
  auto policy = energy::retention_policy(*config);
  require(policy.raw_retention_ns > 0, "a valid config keeps raw readings for no time");
  require(!energy::database_path(*config).empty(), "a valid config has no database path");
  return 0;
}
