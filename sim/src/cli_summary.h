// The report `energyd-sim create` prints: board, generation, root, total,
// then per rail its rail id, V, I, P and the files holding them, as read
// back from the tree (so it shows exactly what a reader will find).
#pragma once

#include <ostream>
#include <string>

#include "energysim/board_spec.h"
#include "energysim/board_state.h"
#include "energysim/board_tree.h"
#include "energysim/materialize.h"
#include "energysim/tree.h"

namespace energy::sim {

struct SummaryInput {
  const BoardSpec& spec;
  const BoardState& state;
  const Tree& tree;
  const TreePlan& plan;
  const MaterializeReport& report;
  const std::string& root;
};

void print_summary(std::ostream& out, const SummaryInput& in);

}  // namespace energy::sim
