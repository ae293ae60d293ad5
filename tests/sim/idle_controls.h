// A model's controls with the board idle (the model tests' and the heat tests' start).
#pragma once

#include "energysim/board_spec.h"
#include "energysim/board_state.h"
#include "model.h"

namespace energy::sim {

inline ModelControls idle_controls(const BoardSpec& spec) { return ModelControls{idle_state(spec), 0, {}}; }

}  // namespace energy::sim
