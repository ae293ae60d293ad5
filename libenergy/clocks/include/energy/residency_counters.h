// Residency counters: the cumulative time per frequency a kernel keeps for
// a clock domain - cpufreq `stats/time_in_state` (CONFIG_CPU_FREQ_STAT) and
// devfreq `trans_stat` - parsed, and the time per frequency between two
// reads of them (docs/CLOCKS.md "Residency from counters").
//
// Units: Hz and ns, converted once here: time_in_state lists kHz and
// USER_HZ (10 ms) ticks, trans_stat Hz and ms. Both are truncated by the
// kernel, so a difference is exact to one unit per frequency, and the
// differences over consecutive reads add up with no error building up.
//
// Pure functions over text; errors are kParse (malformed text, naming the
// line) or kInvalid (a counter that went backwards or a frequency list that
// changed between reads): the caller stops trusting the counters.
//
// Thread-safety: reentrant.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "energy/context.h"
#include "energy/result.h"

namespace energy {

struct FrequencyTime {
  int64_t hz = 0;
  int64_t ns = 0;
  bool operator==(const FrequencyTime& o) const { return hz == o.hz && ns == o.ns; }
};

// The counters of one read, in the file's order (never empty).
using ResidencyCounters = std::vector<FrequencyTime>;

enum class CounterFormat { kTimeInState, kTransStat };

// `what` names the file in error messages.
Result<ResidencyCounters> parse_time_in_state(std::string_view text, std::string_view what);
Result<ResidencyCounters> parse_trans_stat(std::string_view text, std::string_view what);
Result<ResidencyCounters> parse_counters(CounterFormat format, std::string_view text, std::string_view what);

// The time per frequency from `before` to `after` (same frequencies, same
// order), frequencies whose time grew only.
Result<ResidencyCounters> counter_delta(const ResidencyCounters& before, const ResidencyCounters& after,
                                        std::string_view what);

// The kernel's unit of a format's times, ns (the truncation of each entry).
int64_t counter_unit_ns(CounterFormat format);

// kInvalid when the time `delta` counts differs from the `elapsed_ns` between
// the two reads by more than one unit per listed frequency (`listed`) plus
// `slack_ns` (how long the reads took): counters that do not advance (a
// static tree, a driver that stopped counting) or count too much.
Status check_coverage(const ResidencyCounters& delta, size_t listed, int64_t unit_ns, int64_t elapsed_ns,
                      int64_t slack_ns, std::string_view what);

// Change rows (Hz in `number`) that give each frequency of `delta` its
// counted time within (from_ns, to_ns]: the counters do not say in which
// order the changes came, so `prev_hz` (the value in force at from_ns)
// takes its time first, `cur_hz` (read with the counters) last, the others
// in between in table order. A row that would fall after to_ns is put at
// to_ns. `cur_hz` gets a row even without counted time.
std::vector<ContextRow> counted_rows(const ResidencyCounters& delta, int64_t from_ns, int64_t to_ns,
                                     std::optional<int64_t> prev_hz, std::optional<int64_t> cur_hz);

}  // namespace energy
