// Downsampled tiers: fixed-width buckets of one rail's power, and their
// compact encoding (the storage format of the 1 s and 1 min tiers).
//
// A bucket [start, start + width) keeps what energy and power statistics
// need: the integral of the rail's piecewise-linear power over the bucket
// (the same trapezoids the raw tier's running energy is made of, split
// exactly at the bucket edges by linear interpolation), the lowest and highest
// power the integrated part reaches (vertices and interpolated edges), valid
// and failed reading counts, the integrated time and the longest step
// between valid readings touching the bucket. Buckets with nothing in them
// are not stored; a rail's running energy does not move across them.
//
// Encoding (one blob per stored row of consecutive buckets): per bucket a
// head varint (the empty buckets skipped, and flags for the fields below
// that differ from their usual value), then zigzag varint deltas against the
// previous bucket of: energy (the running energy in whole mJ relative to the
// row's start, rounded once per edge, so bucket sums never drift), min and
// max power in mW (rounded outward, so bounds stay bounds); then only if
// flagged: valid count (delta), failed count, uncovered time in us, longest
// step in ms (delta). A busy rail costs about 5-7 bytes per bucket.
//
// Units: ns, uW, uJ. Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "energy/integrate.h"
#include "energy/result.h"

namespace energy {

enum class Tier { kRaw = 0, kSecond = 1, kMinute = 2 };

// The stored running energy's unit: a tier's running energy at a bucket edge
// is within half of it of the raw integral (1 mJ is 0.1 ppm of a 1 W rail's
// day and 0.1% of a 1 W 1 s bucket; it saves a byte per bucket over 1 uJ).
constexpr double kTierEnergyQuantumUj = 1000;
constexpr double kTierRoundingUj = kTierEnergyQuantumUj / 2 + 1;  // with floating-point slack
const char* tier_name(Tier tier);
// Bucket width of a downsampled tier (0 for kRaw).
int64_t tier_width_ns(Tier tier);

struct Bucket {
  int64_t start_ns = 0;
  int64_t width_ns = 0;
  double energy_uj = 0;      // integral over the bucket's integrated part
  double cum_end_uj = 0;     // running energy of the rail at start + width
  int64_t min_power_uw = 0;  // lowest power of the integrated part (a multiple of 1 mW, rounded down)
  int64_t max_power_uw = 0;  // highest (rounded up to 1 mW)
  int64_t samples = 0;       // valid readings in [start, start + width)
  int64_t failed_samples = 0;
  int64_t integrated_ns = 0;  // time of the bucket spanned by trapezoids (multiple of 1 us)
  int64_t max_step_ns = 0;    // longest span between consecutive valid readings touching it (rounded up to 1 ms)

  int64_t end_ns() const { return start_ns + width_ns; }
  bool empty() const { return integrated_ns == 0 && samples == 0 && failed_samples == 0; }
};

// Floor and ceiling of t to a multiple of width (width > 0; any sign of t).
int64_t floor_to(int64_t t_ns, int64_t width_ns);
int64_t ceil_to(int64_t t_ns, int64_t width_ns);

// Buckets of [begin, end) (both multiples of width) from readings sorted by
// time; one valid reading before begin and after end lets the edges be
// interpolated. Non-empty buckets only, quantized as they will be stored;
// cum_end_uj is left 0 (the caller chains it from its running energy).
std::vector<Bucket> bucketize(const std::vector<PowerPoint>& points, int64_t begin_ns, int64_t end_ns,
                              int64_t width_ns);

// Coarser buckets of [begin, end) (multiples of width) from finer ones that
// divide it: sums, minima and maxima. cum_end_uj is left 0.
std::vector<Bucket> aggregate(const std::vector<Bucket>& fine, int64_t begin_ns, int64_t end_ns, int64_t width_ns);

// Sets each bucket's cum_end_uj from the running energy at the first one's
// row start: cum_start + the energies so far.
void chain_running_energy(std::vector<Bucket>& buckets, double cum_start_uj);

// Encodes buckets (sorted, non-overlapping, starts at multiples of width at
// or after row_start) with their cum_end_uj; first_cum_uj is the running
// energy at row_start. decode_buckets gives back the stored form: energies
// are differences of the running energy rounded to kTierEnergyQuantumUj.
std::string encode_buckets(const std::vector<Bucket>& buckets, int64_t row_start_ns, int64_t width_ns,
                           double first_cum_uj);
Result<std::vector<Bucket>> decode_buckets(const std::string& blob, int64_t row_start_ns, int64_t width_ns,
                                           double first_cum_uj);

// The rail's energy from the bucket's start to t (inside the bucket),
// assuming the bucket's energy is spread evenly, and a bound on how far the
// real integral can be from that: the integrated part of [start, t] lies
// between min and max power.
struct PartialEnergy {
  double energy_uj = 0;
  double bound_uj = 0;
};
PartialEnergy partial_energy(const Bucket& bucket, int64_t t_ns);

// Statistics of a window from buckets (for reports of runs whose raw
// readings are gone). Energy here is the sum of whole buckets plus the
// even-spread share of the partial ones; gaps are known to step resolution.
// The readings' own error bound (integrate.h) is estimated from what buckets
// keep: each stretch's spread from the extremes of its bucket and the
// contiguous neighbours, the stretches' lengths from the longest step, the
// resolution step from the narrowest bucket range that holds distinct
// readings (none: 0). Not smaller than the raw readings' bound, except for the
// step of a rail whose readings never change within a bucket.
EnergyStats summarize_buckets(const std::vector<Bucket>& buckets, EnergyWindow window, int64_t gap_threshold_ns);

}  // namespace energy
