// YamlReader: typed, exception-free reads from yaml-cpp nodes, for the
// catalog only. yaml-cpp throws on bad conversions and on subscripting
// scalars; the reader checks node types first and catches what remains,
// keeping the FIRST failure (naming the board, section and key) and making
// that and every later read return nullopt / empty. Callers read a whole
// board and check ok() once.
//
// Absent and null are the same to every reader ("bus: null" = unknown);
// has_key() tells them apart where the data file gives null a meaning.
//
// Never assign a YAML::Node after construction (and never sort containers of
// them): yaml-cpp's Node::operator= rebinds the node it refers to inside the
// document. Copy-construct only.
//
// Only yaml-cpp API present in 0.6.3 is used: const operator[],
// IsDefined/IsNull/IsScalar/IsMap/IsSequence, as<T>() and iteration.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "energy/result.h"

namespace energy::sim {

class YamlReader {
 public:
  explicit YamlReader(std::string where) : where_(std::move(where)) {}

  // Adds `name` to the context of messages while alive ("gpu", "zones[2]").
  class Scope {
   public:
    Scope(YamlReader& reader, std::string name) : reader_(reader) { reader_.scopes_.push_back(std::move(name)); }
    ~Scope() { reader_.scopes_.pop_back(); }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    YamlReader& reader_;
  };
  Scope scope(std::string name) { return Scope(*this, std::move(name)); }

  static bool present(const YAML::Node& node);                    // defined and not null
  static bool has_key(const YAML::Node& map, const char* key);    // defined, null allowed
  static YAML::Node get(const YAML::Node& map, const char* key);  // undefined node if absent

  template <typename Int>
  std::optional<Int> integer(const YAML::Node& map, const char* key) {
    return narrow<Int>(to_int64(get(map, key), key), key);
  }
  template <typename Int>
  std::vector<Int> integers(const YAML::Node& map, const char* key) {
    std::vector<Int> out;
    for (const YAML::Node& item : items(map, key)) {
      std::optional<Int> value = narrow<Int>(to_int64(item, key), key);
      if (value) out.push_back(*value);
    }
    return out;
  }
  std::optional<std::string> text(const YAML::Node& map, const char* key);
  // A sequence of strings; a single string counts as a one-element list.
  std::vector<std::string> texts(const YAML::Node& map, const char* key);
  bool flag(const YAML::Node& map, const char* key);                      // absent -> false
  std::vector<YAML::Node> items(const YAML::Node& map, const char* key);  // a sequence's elements
  std::vector<std::pair<std::string, YAML::Node>> entries(const YAML::Node& map, const char* key);

  // A scalar node's text; `what` names it in the error.
  std::optional<std::string> value_text(const YAML::Node& node, const char* what) { return to_text(node, what); }

  void fail(ErrorCode code, const std::string& what);
  bool ok() const { return !error_.has_value(); }
  Error error() const { return error_.value_or(Error{}); }
  std::string context() const;  // "jetson-tx2 l4t32, gpu"

 private:
  template <typename Int>
  std::optional<Int> narrow(std::optional<std::int64_t> value, const char* key) {
    if (!value) return std::nullopt;
    if (!fits<Int>(*value)) {
      fail(ErrorCode::kParse, std::string("'") + key + "' is out of range: " + std::to_string(*value));
      return std::nullopt;
    }
    return static_cast<Int>(*value);
  }
  template <typename Int>
  static bool fits(std::int64_t v) {
    if constexpr (std::is_signed_v<Int>) {
      return v >= static_cast<std::int64_t>(std::numeric_limits<Int>::min()) &&
             v <= static_cast<std::int64_t>(std::numeric_limits<Int>::max());
    } else {
      return v >= 0 && static_cast<std::uint64_t>(v) <= std::uint64_t{std::numeric_limits<Int>::max()};
    }
  }
  std::optional<std::int64_t> to_int64(const YAML::Node& node, const char* key);
  std::optional<std::string> to_text(const YAML::Node& node, const char* key);
  void fail_type(const char* key, const char* expected);

  std::string where_;
  std::vector<std::string> scopes_;
  std::optional<Error> error_;
};

}  // namespace energy::sim
