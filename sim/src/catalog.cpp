// Catalog loading: read the file once, index boards and generations, resolve
// every board x generation. yaml-cpp exceptions stop here (rule 2 of
// STYLE.md): a whole-file problem fails load(), a board problem becomes that
// entry's error.
#include "energysim/catalog.h"

#include <cctype>

#include "energy/attr_file.h"
#include "resolve.h"

namespace energy::sim {
namespace {

constexpr int kSchemaVersion = 1;

std::string lower(std::string_view text) {
  std::string out;
  for (char c : text) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::vector<GenerationNode> index_generations(YamlReader& r, const std::string& board_id, const YAML::Node& board) {
  std::vector<GenerationNode> out;
  for (auto& [key, node] : r.entries(board, "generations")) {
    Result<int> l4t = parse_generation(key);
    if (!l4t) {
      r.fail(ErrorCode::kParse, "generation key '" + key + "' is not l4t<N>");
      continue;
    }
    out.push_back(GenerationNode{board_id, *l4t, key, node});
  }
  return out;
}

// Boards in file order; a board without generations (e.g. one described as
// "same as X except") is kept for SoC lookups but yields no entries.
Result<std::vector<BoardNode>> index_boards(const YAML::Node& root, const std::string& path) {
  YamlReader r(path);
  std::vector<BoardNode> boards;
  if (r.integer<int>(root, "schema_version") != kSchemaVersion) {
    return make_error(ErrorCode::kUnsupported, path + ": schema_version is not " + std::to_string(kSchemaVersion));
  }
  for (const YAML::Node& node : r.items(root, "boards")) {
    BoardNode board{r.text(node, "id").value_or(""), r.text(node, "soc").value_or(""), node, {}};
    if (board.id.empty()) r.fail(ErrorCode::kParse, "a board has no 'id'");
    auto scope = r.scope("board " + board.id);
    board.generations = index_generations(r, board.id, node);
    boards.push_back(std::move(board));
  }
  if (!r.ok()) return r.error();
  if (boards.empty()) return make_error(ErrorCode::kParse, path + ": no 'boards'");
  return boards;
}

BoardSpec resolve_sections(ResolveContext& ctx) {
  BoardSpec spec;
  spec.id = ctx.board().id;
  spec.name = ctx.reader().text(ctx.board().node, "name").value_or(spec.id);
  spec.soc = ctx.board().soc;
  spec.l4t = ctx.l4t();
  spec.monitors = resolve_monitors(ctx);
  spec.total_rails = resolve_total_rails(ctx, spec.monitors);
  spec.cpu = resolve_cpu(ctx);
  spec.gpus = resolve_gpus(ctx);
  spec.thermal_zones = resolve_thermal_zones(ctx);
  spec.identity = resolve_identity(ctx);
  spec.fan = resolve_fan(ctx);
  spec.emc = resolve_emc(ctx);
  spec.notes = ctx.take_notes();
  return spec;
}

Result<BoardSpec> resolve_entry(const std::vector<BoardNode>& boards, const BoardNode& board,
                                const GenerationNode& generation) {
  const std::string where = board.id + " " + generation.key;
  if (!YamlReader::present(YamlReader::get(generation.node, "power_monitors"))) {
    return make_error(ErrorCode::kUnsupported, where + ": no power_monitors in the data file; not simulated (A24)");
  }
  try {
    YamlReader reader(where);
    ResolveContext ctx(boards, board, generation.l4t, reader);
    BoardSpec spec = resolve_sections(ctx);
    if (!reader.ok()) return reader.error();
    return spec;
  } catch (const std::exception& e) {  // yaml-cpp errors derive from std::exception
    return make_error(ErrorCode::kParse, where + ": " + e.what());
  }
}

std::vector<CatalogEntry> resolve_all(const std::vector<BoardNode>& boards) {
  std::vector<CatalogEntry> entries;
  for (const BoardNode& board : boards) {
    for (const GenerationNode& generation : board.generations) {
      entries.push_back(CatalogEntry{board.id, generation.l4t, resolve_entry(boards, board, generation)});
    }
  }
  return entries;
}

std::string generations_of(const std::vector<CatalogEntry>& entries, std::string_view board_id) {
  std::string out;
  for (const CatalogEntry& e : entries) {
    if (e.board_id == board_id) out += (out.empty() ? "" : ", ") + std::to_string(e.l4t);
  }
  return out;
}

std::string board_ids(const std::vector<CatalogEntry>& entries) {
  std::string out;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (i > 0 && entries[i - 1].board_id == entries[i].board_id) continue;
    out += (out.empty() ? "" : ", ") + entries[i].board_id;
  }
  return out;
}

Result<YAML::Node> load_yaml(const std::string& path) {
  try {
    return YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    return make_error(ErrorCode::kNotFound, "cannot open data file " + path);
  } catch (const std::exception& e) {
    return make_error(ErrorCode::kParse, path + ": " + e.what());
  }
}

}  // namespace

Result<int> parse_generation(std::string_view text) {
  const std::string key = lower(text);
  const std::string digits = key.rfind("l4t", 0) == 0 ? key.substr(3) : key;
  if (!all_digits(digits) || digits.size() > 3) {
    return make_error(ErrorCode::kInvalid, "'" + std::string(text) + "' is not an L4T generation (e.g. 36 or l4t36)");
  }
  return std::stoi(digits);
}

Result<Catalog> Catalog::load(const std::string& path) {
  Result<YAML::Node> root = load_yaml(path);
  if (!root) return root.take_error();
  try {
    Result<std::vector<BoardNode>> boards = index_boards(*root, path);
    if (!boards) return boards.take_error();
    return Catalog(resolve_all(*boards));
  } catch (const std::exception& e) {
    return make_error(ErrorCode::kParse, path + ": " + e.what());
  }
}

Result<BoardSpec> Catalog::find(std::string_view board_id, int l4t) const {
  for (const CatalogEntry& e : entries_) {
    if (e.board_id == board_id && e.l4t == l4t) return e.spec;
  }
  const std::string generations = generations_of(entries_, board_id);
  if (generations.empty()) {
    return make_error(ErrorCode::kNotFound,
                      "unknown board '" + std::string(board_id) + "' (known: " + board_ids(entries_) + ")");
  }
  return make_error(ErrorCode::kNotFound, "board " + std::string(board_id) + " has no L4T " + std::to_string(l4t) +
                                              " (it has: " + generations + ")");
}

}  // namespace energy::sim
