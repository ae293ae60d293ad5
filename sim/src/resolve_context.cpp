#include <algorithm>
#include <cstdlib>

#include "resolve.h"

namespace energy::sim {
namespace {

bool nearer(int l4t, const GenerationNode* a, const GenerationNode* b) {
  const int da = std::abs(a->l4t - l4t);
  const int db = std::abs(b->l4t - l4t);
  return da != db ? da < db : a->l4t < b->l4t;
}

std::vector<const GenerationNode*> pointers(const std::vector<GenerationNode>& generations) {
  std::vector<const GenerationNode*> out;
  for (const GenerationNode& generation : generations) out.push_back(&generation);
  return out;
}

}  // namespace

ResolveContext::ResolveContext(const std::vector<BoardNode>& boards, const BoardNode& board, int l4t,
                               YamlReader& reader)
    : boards_(boards), board_(board), l4t_(l4t), reader_(reader), chain_(pointers(board.generations)) {
  std::stable_sort(chain_.begin(), chain_.end(),
                   [l4t](const GenerationNode* a, const GenerationNode* b) { return nearer(l4t, a, b); });
}

std::vector<const GenerationNode*> ResolveContext::same_soc_generations() const {
  std::vector<const GenerationNode*> out;
  for (const BoardNode& other : boards_) {
    if (other.id == board_.id || other.soc != board_.soc) continue;
    for (const GenerationNode* generation : pointers(other.generations)) out.push_back(generation);
  }
  std::stable_sort(out.begin(), out.end(), [this](const GenerationNode* a, const GenerationNode* b) {
    return (a->l4t == l4t_) > (b->l4t == l4t_);
  });
  return out;
}

YAML::Node ResolveContext::section_of(const GenerationNode& generation, const char* section) {
  if (section[0] == '\0') return generation.node;
  return YamlReader::get(generation.node, section);
}

ResolveContext::Field ResolveContext::nearest(const char* section, std::initializer_list<const char*> keys) {
  for (const GenerationNode* generation : chain_) {
    const YAML::Node map = section_of(*generation, section);
    for (const char* key : keys) {
      if (!YamlReader::present(YamlReader::get(map, key))) continue;
      if (generation->l4t != l4t_) note(std::string(section) + "." + key + " taken from " + generation->key);
      return Field{map, key};
    }
  }
  return Field{};
}

}  // namespace energy::sim
