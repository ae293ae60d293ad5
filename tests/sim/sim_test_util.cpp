#include "sim_test_util.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <stdlib.h>

namespace energy::sim::test {

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "energysim-test-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed for " << pattern;
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

const Catalog& reference_catalog() {
  static const Catalog catalog = [] {
    Result<Catalog> loaded = Catalog::load(ENERGYD_SIM_TEST_DATA);
    if (!loaded) {
      std::fprintf(stderr, "cannot load %s: %s\n", ENERGYD_SIM_TEST_DATA, loaded.error().describe().c_str());
      std::abort();
    }
    return std::move(loaded).value();
  }();
  return catalog;
}

BoardSpec board(const std::string& id, int l4t) {
  Result<BoardSpec> spec = reference_catalog().find(id, l4t);
  if (!spec) {
    ADD_FAILURE() << spec.error().describe();
    return BoardSpec{};
  }
  return *spec;
}

BuiltBoard build(const std::string& id, int l4t, const TreeOptions& options) {
  BoardSpec spec = board(id, l4t);
  Result<TreePlan> plan = plan_tree(spec, options);
  if (!plan) ADD_FAILURE() << plan.error().describe();
  TreePlan placed = plan ? *plan : TreePlan{};
  Result<Tree> tree = build_board_tree(spec, placed);
  if (!tree) ADD_FAILURE() << tree.error().describe();
  return BuiltBoard{spec, placed, tree ? std::move(tree).value() : Tree{}};
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "<missing>";
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

bool exists_no_follow(const std::string& path) {
  std::error_code ec;
  return std::filesystem::symlink_status(path, ec).type() != std::filesystem::file_type::not_found;
}

}  // namespace energy::sim::test
