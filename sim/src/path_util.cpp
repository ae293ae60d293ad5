#include "path_util.h"

namespace energy::sim {

std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> parts;
  std::size_t pos = 0;
  while (pos < path.size()) {
    std::size_t next = path.find('/', pos);
    if (next == std::string_view::npos) next = path.size();
    if (next > pos) parts.emplace_back(path.substr(pos, next - pos));
    pos = next + 1;
  }
  return parts;
}

std::string join_path(std::string_view dir, std::string_view name) {
  std::string out(dir);
  while (!out.empty() && out.back() == '/') out.pop_back();
  while (!name.empty() && name.front() == '/') name.remove_prefix(1);
  return out + "/" + std::string(name);
}

std::string parent_path(std::string_view path) {
  const std::vector<std::string> parts = split_path(path);
  std::string out;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) out += "/" + parts[i];
  return out.empty() ? "/" : out;
}

std::string base_name(std::string_view path) {
  const std::vector<std::string> parts = split_path(path);
  return parts.empty() ? std::string() : parts.back();
}

std::string sysfs_link_target(std::string_view link_path, std::string_view target_path) {
  const std::vector<std::string> from = split_path(parent_path(link_path));
  const std::vector<std::string> target = split_path(target_path);
  const std::size_t target_parent_size = target.empty() ? 0 : target.size() - 1;
  std::size_t common = 0;
  while (common < from.size() && common < target_parent_size && from[common] == target[common]) ++common;
  std::string out;
  for (std::size_t i = common; i < from.size(); ++i) out += "../";
  for (std::size_t i = common; i < target.size(); ++i) out += (i > common ? "/" : "") + target[i];
  return out;
}

}  // namespace energy::sim
