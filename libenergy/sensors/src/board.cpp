#include "energy/board.h"

#include <regex>

namespace energy {
namespace {

std::vector<std::string> split_nul(const std::string& raw) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < raw.size()) {
    size_t end = raw.find('\0', pos);
    if (end == std::string::npos) end = raw.size();
    if (end > pos) out.push_back(raw.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

}  // namespace

void parse_nv_tegra_release(const std::string& text, BoardIdentity& out) {
  static const std::regex kLine(R"(#\s*R(\d+)\s*\(release\),\s*REVISION:\s*([0-9.]+))");
  static const std::regex kBoard(R"(BOARD:\s*([A-Za-z0-9_]+))");
  std::smatch m;
  if (std::regex_search(text, m, kLine)) out.l4t_release = m[1].str() + "." + m[2].str();
  if (std::regex_search(text, m, kBoard)) out.l4t_board = m[1].str();
}

BoardIdentity identify_board(const SysRoot& root) {
  BoardIdentity id;
  auto model = root.read_text("/proc/device-tree/model");
  if (model) id.model = *model;
  auto compat = root.read_raw("/proc/device-tree/compatible");
  if (compat) id.compatible = split_nul(*compat);
  auto rel = root.read_text("/etc/nv_tegra_release");
  if (rel) parse_nv_tegra_release(*rel, id);
  id.known = !id.model.empty() || !id.compatible.empty() || !id.l4t_release.empty();
  return id;
}

}  // namespace energy
