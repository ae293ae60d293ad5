#include "energy/histogram.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "energy/tick_path.h"

namespace energy {

// Values below 2^kSubBits map to themselves; above, the bucket is the
// position of the highest set bit (its "octave") and the next kSubBits bits.
ENERGY_TICK_PATH int LatencyHistogram::index(uint64_t v) {
  constexpr uint64_t kSub = uint64_t{1} << kSubBits;
  if (v < kSub) return static_cast<int>(v);
  int msb = 63 - __builtin_clzll(v);
  int shift = msb - kSubBits;
  int octave = shift + 1;
  return (octave << kSubBits) + static_cast<int>((v >> shift) & (kSub - 1));
}

int64_t LatencyHistogram::upper_edge(int i) {
  constexpr int kSub = 1 << kSubBits;
  if (i < kSub) return i;
  int shift = (i >> kSubBits) - 1;
  uint64_t base = (uint64_t{1} << (shift + kSubBits)) + (static_cast<uint64_t>(i & (kSub - 1)) << shift);
  uint64_t edge = base + ((uint64_t{1} << shift) - 1);
  return edge > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ? std::numeric_limits<int64_t>::max()
                                                                           : static_cast<int64_t>(edge);
}

ENERGY_TICK_PATH void LatencyHistogram::record(int64_t value_ns) {
  uint64_t v = value_ns < 0 ? 0 : static_cast<uint64_t>(value_ns);
  counts_[static_cast<size_t>(std::min(index(v), kBuckets - 1))] += 1;
  count_ += 1;
  max_ = std::max(max_, static_cast<int64_t>(v));
}

int64_t LatencyHistogram::quantile(double q) const {
  if (count_ == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  auto needed = static_cast<int64_t>(std::ceil(q * static_cast<double>(count_)));
  needed = std::max<int64_t>(needed, 1);
  int64_t seen = 0;
  for (int i = 0; i < kBuckets; ++i) {
    seen += counts_[static_cast<size_t>(i)];
    if (seen >= needed) return std::min(upper_edge(i), max_);
  }
  return max_;
}

void LatencyHistogram::clear() {
  counts_.fill(0);
  count_ = 0;
  max_ = 0;
}

}  // namespace energy
