// ClockCounters: the residency counters a kernel keeps per clock domain
// (cpufreq `stats/time_in_state` and `stats/total_trans`, devfreq
// `trans_stat`), kept exactly from the model's clock history.
//
// The model reports its governed state at every event (observe()); between
// two events every domain holds one frequency, so the time per frequency up
// to any later instant is a sum (fill()). Counting starts at boot (t = 0 of
// CLOCK_BOOTTIME): the board was at rest at its initial frequency before the
// model's start, as the model assumes (A23).
//
// A frequency that is not in the domain's table (a rail-gated GPU's 0) is
// not a transition: its time goes on accruing to the last listed frequency,
// as the kernel's devfreq does while nvgpu is rail-gated (ASSUMPTIONS A53).
//
// Units: ns, model time (CLOCK_BOOTTIME). Thread-safety: none; PowerModel's
// caller serialises.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "energysim/board_spec.h"
#include "energysim/board_state.h"

namespace energy::sim {

class ClockCounters {
 public:
  ClockCounters(const BoardSpec& spec, const BoardState& governed);
  // The governed state from t_ns on; t_ns never decreases between calls.
  void observe(std::int64_t t_ns, const BoardState& governed);
  // Each domain's ClockStats in `state` as of t_ns (>= the last observed instant).
  void fill(BoardState& state, std::int64_t t_ns) const;

 private:
  struct Domain {
    std::vector<std::uint64_t> table;  // kHz or Hz, the domain's listed frequencies
    ClockStats stats;                  // up to since_ns
    std::int64_t since_ns = 0;         // when stats was last brought up to date
  };

  static Domain make_domain(std::vector<std::uint64_t> table, std::uint64_t freq);
  static void move_to(Domain& domain, std::int64_t t_ns, std::uint64_t freq);
  static ClockStats stats_at(const Domain& domain, std::int64_t t_ns);

  std::map<int, Domain> policies_;      // key: policy number
  std::map<std::string, Domain> gpus_;  // key: devfreq name
};

// The index of `freq` in a domain's table; table.size() when it is not listed.
template <typename Number>
std::size_t table_index(const std::vector<Number>& table, std::uint64_t freq) {
  return static_cast<std::size_t>(std::find(table.begin(), table.end(), freq) - table.begin());
}

// `stats` as the files show it: the counters kept, or (a static tree, empty
// stats) zero time everywhere with `cur` as the last frequency set.
ClockStats shown_stats(const ClockStats& stats, std::size_t table_size, std::size_t cur);

// cpufreq `stats/time_in_state`: "<kHz> <time>" per table entry, time in
// USER_HZ (100) ticks, truncated.
std::string format_time_in_state(const std::vector<std::uint32_t>& khz, const ClockStats& stats);
// cpufreq `stats/total_trans`.
std::string format_total_trans(const ClockStats& stats);
// devfreq `trans_stat`: a header of the frequencies, one row per frequency
// ("*" on the last one set) with its transitions to each and its time in ms
// (truncated), then "Total transition : N".
std::string format_trans_stat(const std::vector<std::uint64_t>& hz, const ClockStats& stats);

}  // namespace energy::sim
