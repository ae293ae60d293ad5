// LatencyHistogram: counts of non-negative durations (ns) in log-linear
// buckets, for percentiles of tick lateness and read times without keeping
// every value.
//
// Buckets: exact below 16 ns; above, 16 buckets per power of two, so a
// reported percentile is at most 1/16 (6.25%) above the true value and never
// below it (the bucket's upper edge is reported). Negative values count as 0.
// Fixed size (a few KiB), no allocation after construction: record() is
// cheap enough for every tick.
//
// Thread-safety: none; the owner serialises access.
#pragma once

#include <array>
#include <cstdint>

namespace energy {

class LatencyHistogram {
 public:
  void record(int64_t value_ns);
  int64_t count() const { return count_; }
  int64_t max() const { return max_; }
  // The smallest bucket upper edge with at least q of the values at or below
  // it (0 <= q <= 1); 0 when empty.
  int64_t quantile(double q) const;
  void clear();

 private:
  static constexpr int kSubBits = 4;  // 16 sub-buckets per power of two
  static constexpr int kBuckets = (64 - kSubBits) << kSubBits;
  static int index(uint64_t v);
  static int64_t upper_edge(int index);

  std::array<int64_t, kBuckets> counts_{};
  int64_t count_ = 0;
  int64_t max_ = 0;
};

}  // namespace energy
