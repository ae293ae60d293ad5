#include "errno_names.h"

#include <cerrno>
#include <utility>

#include "energysim/materialize.h"

namespace energy::sim {
namespace {

// What INA3221 / cpufreq / devfreq / runtime-PM files are documented to fail with.
constexpr std::pair<const char*, int> kErrnos[] = {
    {"ENODATA", ENODATA}, {"EIO", EIO},     {"EAGAIN", EAGAIN}, {"ETIMEDOUT", ETIMEDOUT},
    {"EACCES", EACCES},   {"EBUSY", EBUSY}, {"EINVAL", EINVAL},
};

}  // namespace

std::optional<int> errno_from_name(std::string_view name) {
  for (const auto& [text, value] : kErrnos) {
    if (name == text) return value;
  }
  return std::nullopt;
}

std::optional<std::string> known_errno_name(int sys_errno) {
  for (const auto& [text, value] : kErrnos) {
    if (sys_errno == value) return std::string(text);
  }
  return std::nullopt;
}

std::string errno_name(int sys_errno) {
  return known_errno_name(sys_errno).value_or("errno " + std::to_string(sys_errno));
}

}  // namespace energy::sim
