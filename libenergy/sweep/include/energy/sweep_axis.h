// Sweep axes: which clock values and parameter values a sweep visits.
//
// Owns: the grammar of `energyctl sweep --cpu/--gpu/--emc SPEC` and
// `--param NAME=v1,v2`, checked against the board's clock table (the
// ascending Hz list clocks.list gives for the domain). SPEC is a comma list
// of items; the axis is their union, ascending, each value once:
//   600M, 1.2G, 624.75M, 1510400k, 1.2GHz   one table value; a unit suffix
//                                 k/M/G (Hz optional, any case), or plain Hz
//   min, max, mid                 lowest, highest, middle table value (the
//                                 lower middle for an even count)
//   all                           every table value
//   every:N                       every N-th table value from the lowest, and
//                                 the highest always (N >= 1)
//   LO..HI                        every table value from LO to HI (LO, HI are
//                                 table values, min or max)
//   LO..HI/K                      K values from LO to HI, evenly spaced in
//                                 table steps, both ends included (K >= 2)
// A value the table does not list is an error naming it and the nearest
// listed values below and above: a clock is never rounded silently.
//
// Units: Hz. Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "energy/result.h"

namespace energy {

struct ClockAxis {
  std::string domain;         // "cpu", "gpu", "emc": as the option names it
  std::vector<int64_t> hz;    // ascending, distinct, every one in the table
  std::vector<size_t> index;  // each value's position in the table, parallel to hz
};

// Parses `spec` for `domain` against `table` (ascending Hz). Errors name the
// option (--DOMAIN), the item at fault and, for an unlisted value, the
// nearest table values.
Result<ClockAxis> parse_clock_axis(const std::string& domain, const std::string& spec,
                                   const std::vector<int64_t>& table);

// One frequency with a unit suffix or plain Hz ("600M", "1.2GHz", "1510400k",
// "1200000000"), as Hz. Delegates to clocks' parse_freq_bound after making
// the unit explicit, so both spell frequencies alike.
Result<int64_t> parse_sweep_hz(const std::string& text);

}  // namespace energy
