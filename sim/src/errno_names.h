// The few errno values the simulated drivers produce, by name, both ways.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace energy::sim {

// "ENODATA" -> ENODATA; nullopt for names the simulator does not model.
std::optional<int> errno_from_name(std::string_view name);
// ENODATA -> "ENODATA"; nullopt for other values.
std::optional<std::string> known_errno_name(int sys_errno);

}  // namespace energy::sim
