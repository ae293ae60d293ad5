// Helpers shared by the simulator tests: a self-removing mkdtemp directory,
// the reference catalog loaded once, and whole-file reads.
#pragma once

#include <string>

#include "energysim/board_spec.h"
#include "energysim/board_state.h"
#include "energysim/board_tree.h"
#include "energysim/catalog.h"
#include "energysim/tree.h"

namespace energy::sim::test {

// A fresh directory from mkdtemp(3) under the system temp dir, removed with
// everything in it when the object goes away.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& relative) const { return path_ + "/" + relative; }

 private:
  std::string path_;
};

// The committed sim/data/jetson-boards.yaml, loaded once per process.
const Catalog& reference_catalog();
// The resolved entry; fails the calling test (via ADD_FAILURE) if absent.
BoardSpec board(const std::string& id, int l4t);

// A board's tree built in memory with the default plan.
struct BuiltBoard {
  BoardSpec spec;
  TreePlan plan;
  Tree tree;
};
BuiltBoard build(const std::string& id, int l4t, const TreeOptions& options = {});

// Whole file, binary; "<missing>" if it cannot be opened.
std::string read_file(const std::string& path);
bool exists_no_follow(const std::string& path);

}  // namespace energy::sim::test
