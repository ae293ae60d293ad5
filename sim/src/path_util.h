// Pure string helpers for absolute tree paths ("/sys/..."); no filesystem access.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace energy::sim {

// "/a//b/" -> {"a", "b"}.
std::vector<std::string> split_path(std::string_view path);
// "/a" + "b" -> "/a/b"; tolerates slashes on either side.
std::string join_path(std::string_view dir, std::string_view name);
// "/a/b" -> "/a"; "/a" -> "/".
std::string parent_path(std::string_view path);
// "/a/b" -> "b".
std::string base_name(std::string_view path);
// The relative target sysfs (kernfs_get_target_path) stores for a link at
// `link_path` to `target_path`: one "../" per level from the link's directory
// up to the nearest ancestor of the target's PARENT, then the rest of the
// target. Hence hwmon3/device -> ../../../1-0040 rather than ../..
std::string sysfs_link_target(std::string_view link_path, std::string_view target_path);

}  // namespace energy::sim
