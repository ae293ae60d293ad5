// Sample: one sweep of the sampler over every rail, stamped once.
//
// t_ns is CLOCK_BOOTTIME (integration); wall_ns is CLOCK_REALTIME (display).
// values[i] belongs to the i-th rail of the inventory the sampler was built
// with; a value with err != 0 is a failed read, never a zero.
#pragma once

#include <cstdint>
#include <vector>

#include "energy/rail_reader.h"

namespace energy {

struct Sample {
  int64_t t_ns = 0;
  int64_t wall_ns = 0;
  std::vector<RailValue> values;
};

}  // namespace energy
