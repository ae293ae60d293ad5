// A simulator-built board tree of static files in a temporary directory, for
// daemon unit tests that read a board through a SysRoot (no FUSE).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>

#include "energy/sysroot.h"
#include "energysim/board_state.h"
#include "energysim/board_tree.h"
#include "energysim/catalog.h"
#include "energysim/data_file.h"
#include "energysim/materialize.h"

namespace energy::daemon {

class StaticBoardTest : public ::testing::Test {
 protected:
  // Builds `board` at `l4t` under dir_/root and opens root_; call with ASSERT_NO_FATAL_FAILURE.
  void make_board(const std::string& board, int l4t) {
    char tmpl[] = "/tmp/energy-static-board-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    auto path = sim::locate_data_file({});
    ASSERT_TRUE(path.ok());
    auto cat = sim::Catalog::load(*path);
    ASSERT_TRUE(cat.ok()) << cat.error().describe();
    auto spec = cat->find(board, l4t);
    ASSERT_TRUE(spec.ok());
    auto plan = sim::plan_tree(*spec, {});
    auto tree = sim::build_board_tree(*spec, *plan);
    ASSERT_TRUE(tree.ok());
    auto made = sim::materialize_tree(*tree, sim::idle_state(*spec), dir_ + "/root",
                                      {sim::ExistingRoot::kRefuse, spec->id, spec->l4t});
    ASSERT_TRUE(made.ok()) << made.error().describe();
    root_ = std::make_unique<SysRoot>(dir_ + "/root");
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  std::string dir_;
  std::unique_ptr<SysRoot> root_;
};

}  // namespace energy::daemon
