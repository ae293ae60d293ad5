#include "yaml_reader.h"

namespace energy::sim {

bool YamlReader::present(const YAML::Node& node) {
  // IsDefined() first: every other query throws on an invalid (zombie) node.
  return node.IsDefined() && !node.IsNull();
}

bool YamlReader::has_key(const YAML::Node& map, const char* key) {
  return present(map) && map.IsMap() && map[key].IsDefined();
}

YAML::Node YamlReader::get(const YAML::Node& map, const char* key) {
  if (!present(map) || !map.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
  return map[key];
}

std::optional<std::string> YamlReader::text(const YAML::Node& map, const char* key) {
  return to_text(get(map, key), key);
}

std::vector<std::string> YamlReader::texts(const YAML::Node& map, const char* key) {
  const YAML::Node node = get(map, key);
  std::vector<std::string> out;
  if (present(node) && node.IsScalar()) {
    if (auto value = to_text(node, key)) out.push_back(*value);
    return out;
  }
  for (const YAML::Node& item : items(map, key)) {
    if (auto value = to_text(item, key)) out.push_back(*value);
  }
  return out;
}

bool YamlReader::flag(const YAML::Node& map, const char* key) {
  const YAML::Node node = get(map, key);
  if (!ok() || !present(node)) return false;
  try {
    if (node.IsScalar()) return node.as<bool>();
  } catch (const YAML::Exception&) {
  }
  fail_type(key, "true or false");
  return false;
}

std::vector<YAML::Node> YamlReader::items(const YAML::Node& map, const char* key) {
  const YAML::Node node = get(map, key);
  std::vector<YAML::Node> out;
  if (!ok() || !present(node)) return out;
  if (!node.IsSequence()) {
    fail_type(key, "a list");
    return out;
  }
  for (const YAML::Node& item : node) out.push_back(item);
  return out;
}

std::vector<std::pair<std::string, YAML::Node>> YamlReader::entries(const YAML::Node& map, const char* key) {
  const YAML::Node node = get(map, key);
  std::vector<std::pair<std::string, YAML::Node>> out;
  if (!ok() || !present(node)) return out;
  if (!node.IsMap()) {
    fail_type(key, "a map");
    return out;
  }
  for (const auto& pair : node) {
    std::optional<std::string> name = to_text(pair.first, key);
    if (name) out.emplace_back(*name, pair.second);
  }
  return out;
}

void YamlReader::fail(ErrorCode code, const std::string& what) {
  if (!error_) error_ = make_error(code, context() + ": " + what);
}

std::string YamlReader::context() const {
  std::string out = where_;
  for (std::size_t i = 0; i < scopes_.size(); ++i) out += (i == 0 ? ", " : ".") + scopes_[i];
  return out;
}

std::optional<std::int64_t> YamlReader::to_int64(const YAML::Node& node, const char* key) {
  if (!ok() || !present(node)) return std::nullopt;
  try {
    if (node.IsScalar()) return node.as<std::int64_t>();
  } catch (const YAML::Exception&) {
  }
  fail_type(key, "an integer");
  return std::nullopt;
}

std::optional<std::string> YamlReader::to_text(const YAML::Node& node, const char* key) {
  if (!ok() || !present(node)) return std::nullopt;
  try {
    if (node.IsScalar()) return node.as<std::string>();
  } catch (const YAML::Exception&) {
  }
  fail_type(key, "a string");
  return std::nullopt;
}

void YamlReader::fail_type(const char* key, const char* expected) {
  fail(ErrorCode::kParse, std::string("'") + key + "' must be " + expected);
}

}  // namespace energy::sim
