// Which of a board's rails form the module's total power, chosen by label.
//
// Thread-safety: pure function.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace energy {

// The rails whose sum is the module's total power, chosen by label:
// VIN (Thor INA238) or POM_5V_IN or VDD_IN alone when present (the input
// rail already contains every other rail); otherwise the sum of all rails
// except those fed from another metered rail (AGX Orin's VDDQ_VDD2_1V8AO is
// fed from VIN_SYS_5V0).
struct TotalRule {
  std::vector<size_t> rail_indices;  // indices into the rail list
  std::string explanation;
};
TotalRule select_total_rails(const std::vector<std::string>& labels);

}  // namespace energy
