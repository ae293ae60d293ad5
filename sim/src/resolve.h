// Internal to the catalog: resolution of one board x generation from the
// parsed data file. Each resolve_* function reads one section through the
// context, records borrowed or assumed values as notes, and leaves errors in
// the context's YamlReader (checked once by the catalog).
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "energysim/board_spec.h"
#include "yaml_reader.h"

namespace energy::sim {

struct GenerationNode {
  std::string board_id;
  int l4t = 0;
  std::string key;  // "l4t35"
  YAML::Node node;
};

struct BoardNode {
  std::string id;
  std::string soc;
  YAML::Node node;
  std::vector<GenerationNode> generations;  // file order
};

// Orders of generations are kept as pointers, never by sorting GenerationNode
// values: yaml-cpp's Node::operator= rebinds the node it refers to INSIDE the
// document, so assigning (as std::sort does) would corrupt the parsed file.
class ResolveContext {
 public:
  ResolveContext(const std::vector<BoardNode>& boards, const BoardNode& board, int l4t, YamlReader& reader);

  YamlReader& reader() { return reader_; }
  const BoardNode& board() const { return board_; }
  int l4t() const { return l4t_; }
  // The requested generation's node.
  const YAML::Node& own() const { return chain_.front()->node; }
  // The requested generation first, then the board's others, nearest first
  // (older first on ties).
  const std::vector<const GenerationNode*>& chain() const { return chain_; }
  // Generations of OTHER boards with the same SoC: same L4T first, then the rest.
  std::vector<const GenerationNode*> same_soc_generations() const;

  // `section` of `generation` ("" = the generation node itself).
  static YAML::Node section_of(const GenerationNode& generation, const char* section);
  // Where a value was found: the map holding it and its key (nullptr: nowhere).
  struct Field {
    YAML::Node map;
    const char* key = nullptr;
    explicit operator bool() const { return key != nullptr; }
  };
  // The first of `keys` present in `section`, from the nearest generation
  // that has one; notes it when borrowed from another generation.
  Field nearest(const char* section, std::initializer_list<const char*> keys);

  template <typename Int>
  std::optional<Int> nearest_integer(const char* section, std::initializer_list<const char*> keys) {
    const Field f = nearest(section, keys);
    return f ? reader_.integer<Int>(f.map, f.key) : std::nullopt;
  }
  template <typename Int>
  std::vector<Int> nearest_integers(const char* section, std::initializer_list<const char*> keys) {
    const Field f = nearest(section, keys);
    return f ? reader_.integers<Int>(f.map, f.key) : std::vector<Int>{};
  }
  std::optional<std::string> nearest_text(const char* section, std::initializer_list<const char*> keys) {
    const Field f = nearest(section, keys);
    return f ? reader_.text(f.map, f.key) : std::nullopt;
  }
  std::vector<std::string> nearest_texts(const char* section, std::initializer_list<const char*> keys) {
    const Field f = nearest(section, keys);
    return f ? reader_.texts(f.map, f.key) : std::vector<std::string>{};
  }

  void note(std::string text) { notes_.push_back(std::move(text)); }
  std::vector<std::string> take_notes() { return std::move(notes_); }

 private:
  const std::vector<BoardNode>& boards_;
  const BoardNode& board_;
  int l4t_;
  YamlReader& reader_;
  std::vector<const GenerationNode*> chain_;  // pointers: see below
  std::vector<std::string> notes_;
};

std::vector<PowerMonitorSpec> resolve_monitors(ResolveContext& ctx);
std::vector<std::string> resolve_total_rails(ResolveContext& ctx, const std::vector<PowerMonitorSpec>& monitors);
CpuSpec resolve_cpu(ResolveContext& ctx);
std::vector<GpuSpec> resolve_gpus(ResolveContext& ctx);
std::vector<ThermalZoneSpec> resolve_thermal_zones(ResolveContext& ctx);
IdentitySpec resolve_identity(ResolveContext& ctx);
FanLayout resolve_fan(ResolveContext& ctx);
EmcSpec resolve_emc(ResolveContext& ctx);

}  // namespace energy::sim
