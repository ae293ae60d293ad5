#include "energy/tiers.h"

#include <algorithm>
#include <cmath>

#include "energy/codec.h"

namespace energy {
namespace {

constexpr int64_t kNsPerUs = 1000;
constexpr int64_t kNsPerMs = 1'000'000;
constexpr int64_t kUwPerMw = 1000;

// A bucket being filled; power extremes in double until quantized.
struct Acc {
  double energy_uj = 0;
  double min_uw = 0, max_uw = 0;
  bool has_power = false;
  int64_t samples = 0, failed = 0, integrated_ns = 0, max_step_ns = 0;

  void note_power(double p) {
    min_uw = has_power ? std::min(min_uw, p) : p;
    max_uw = has_power ? std::max(max_uw, p) : p;
    has_power = true;
  }
};

double lerp(const PowerPoint& a, const PowerPoint& b, int64_t t) {
  if (b.t_ns == a.t_ns) return static_cast<double>(a.power_uw);
  double f = static_cast<double>(t - a.t_ns) / static_cast<double>(b.t_ns - a.t_ns);
  return static_cast<double>(a.power_uw) + f * static_cast<double>(b.power_uw - a.power_uw);
}

// Rounds outward to whole mW so that stored extremes still bound the power.
int64_t floor_mw(double uw) { return static_cast<int64_t>(std::floor(uw / kUwPerMw)) * kUwPerMw; }
int64_t ceil_mw(double uw) { return static_cast<int64_t>(std::ceil(uw / kUwPerMw)) * kUwPerMw; }

Bucket quantize(const Acc& a, int64_t start_ns, int64_t width_ns) {
  Bucket b;
  b.start_ns = start_ns;
  b.width_ns = width_ns;
  b.energy_uj = a.energy_uj;
  b.min_power_uw = a.has_power ? floor_mw(a.min_uw) : 0;
  b.max_power_uw = a.has_power ? ceil_mw(a.max_uw) : 0;
  b.samples = a.samples;
  b.failed_samples = a.failed;
  int64_t uncovered_us = (width_ns - a.integrated_ns + kNsPerUs / 2) / kNsPerUs;
  b.integrated_ns = width_ns - uncovered_us * kNsPerUs;
  b.max_step_ns = ceil_to(a.max_step_ns, kNsPerMs);
  return b;
}

struct Grid {
  int64_t begin_ns, end_ns, width_ns;
  size_t index(int64_t t) const { return static_cast<size_t>((t - begin_ns) / width_ns); }
  int64_t start(size_t k) const { return begin_ns + static_cast<int64_t>(k) * width_ns; }
};

// Spreads the trapezoid a -> b over the buckets it crosses.
void add_segment(std::vector<Acc>& acc, const Grid& g, const PowerPoint& a, const PowerPoint& b) {
  int64_t lo = std::max(a.t_ns, g.begin_ns);
  int64_t hi = std::min(b.t_ns, g.end_ns);
  if (hi <= lo) return;
  for (size_t k = g.index(lo); k <= g.index(hi - 1); ++k) {
    int64_t s = std::max(lo, g.start(k));
    int64_t e = std::min(hi, g.start(k) + g.width_ns);
    double ps = lerp(a, b, s), pe = lerp(a, b, e);
    Acc& x = acc[k];
    x.energy_uj += (ps + pe) / 2.0 * static_cast<double>(e - s) / 1e9;
    x.integrated_ns += e - s;
    x.max_step_ns = std::max(x.max_step_ns, b.t_ns - a.t_ns);
    x.note_power(ps);
    x.note_power(pe);
  }
}

void count_point(std::vector<Acc>& acc, const Grid& g, const PowerPoint& p) {
  if (p.t_ns < g.begin_ns || p.t_ns >= g.end_ns) return;
  Acc& x = acc[g.index(p.t_ns)];
  if (!p.valid) {
    ++x.failed;
    return;
  }
  ++x.samples;
  x.note_power(static_cast<double>(p.power_uw));
}

std::vector<Bucket> non_empty(const std::vector<Acc>& acc, const Grid& g) {
  std::vector<Bucket> out;
  for (size_t k = 0; k < acc.size(); ++k) {
    Bucket b = quantize(acc[k], g.start(k), g.width_ns);
    if (!b.empty()) out.push_back(b);
  }
  return out;
}

bool get_signed(const std::string& in, size_t& pos, int64_t& v) {
  uint64_t u = 0;
  if (!codec::get_varint(in, pos, u)) return false;
  v = codec::unzigzag(u);
  return true;
}

// The previous bucket's figures, which the next one is coded against.
struct CodecState {
  double first_cum_uj = 0;  // the row's running energy at its start
  int64_t pos_ns = 0;
  int64_t q = 0;         // running energy since the row's start, in quanta
  int64_t energy_q = 0;  // last bucket's energy in quanta
  int64_t min_mw = 0, max_mw = 0, samples = 0, step_ms = 0;
};

// Flags in the low bits of a bucket's head varint (above them: the number of
// empty buckets skipped). A steady bucket has none: its head is one byte.
constexpr uint64_t kSamplesChanged = 1, kHasFailed = 2, kHasUncovered = 4, kStepChanged = 8;
constexpr int kFlagBits = 4;

int64_t to_quanta(double uj) { return std::llround(uj / kTierEnergyQuantumUj); }

void encode_one(std::string& out, CodecState& s, const Bucket& b) {
  int64_t q = to_quanta(b.cum_end_uj - s.first_cum_uj);
  int64_t e = q - s.q;
  int64_t min_mw = b.min_power_uw / kUwPerMw, max_mw = b.max_power_uw / kUwPerMw, step_ms = b.max_step_ns / kNsPerMs;
  int64_t uncovered_us = (b.width_ns - b.integrated_ns) / kNsPerUs;
  uint64_t flags = (b.samples != s.samples ? kSamplesChanged : 0) | (b.failed_samples != 0 ? kHasFailed : 0) |
                   (uncovered_us != 0 ? kHasUncovered : 0) | (step_ms != s.step_ms ? kStepChanged : 0);
  codec::put_varint(out, static_cast<uint64_t>((b.start_ns - s.pos_ns) / b.width_ns) << kFlagBits | flags);
  codec::put_signed(out, e - s.energy_q);
  codec::put_signed(out, min_mw - s.min_mw);
  codec::put_signed(out, max_mw - s.max_mw);
  if ((flags & kSamplesChanged) != 0) codec::put_signed(out, b.samples - s.samples);
  if ((flags & kHasFailed) != 0) codec::put_varint(out, static_cast<uint64_t>(b.failed_samples));
  if ((flags & kHasUncovered) != 0) codec::put_varint(out, static_cast<uint64_t>(uncovered_us));
  if ((flags & kStepChanged) != 0) codec::put_signed(out, step_ms - s.step_ms);
  s = CodecState{s.first_cum_uj, b.end_ns(), q, e, min_mw, max_mw, b.samples, step_ms};
}

// Reads the fields a head's flags announce; absent ones keep their defaults.
bool decode_optional(const std::string& in, size_t& pos, uint64_t flags, CodecState& s, uint64_t& failed,
                     uint64_t& uncovered_us) {
  int64_t d = 0;
  if ((flags & kSamplesChanged) != 0 && !get_signed(in, pos, d)) return false;
  s.samples += (flags & kSamplesChanged) != 0 ? d : 0;
  if ((flags & kHasFailed) != 0 && !codec::get_varint(in, pos, failed)) return false;
  if ((flags & kHasUncovered) != 0 && !codec::get_varint(in, pos, uncovered_us)) return false;
  d = 0;
  if ((flags & kStepChanged) != 0 && !get_signed(in, pos, d)) return false;
  s.step_ms += d;
  return true;
}

bool decode_one(const std::string& in, size_t& pos, CodecState& s, int64_t width_ns, Bucket& b) {
  uint64_t head = 0, failed = 0, uncovered_us = 0;
  int64_t de = 0, dmin = 0, dmax = 0;
  if (!codec::get_varint(in, pos, head) || !get_signed(in, pos, de) || !get_signed(in, pos, dmin) ||
      !get_signed(in, pos, dmax) || !decode_optional(in, pos, head & 0xf, s, failed, uncovered_us)) {
    return false;
  }
  s.pos_ns += static_cast<int64_t>(head >> kFlagBits) * width_ns;
  s.energy_q += de;
  s.q += s.energy_q;
  s.min_mw += dmin;
  s.max_mw += dmax;
  b = Bucket{s.pos_ns,
             width_ns,
             0,
             0,
             s.min_mw * kUwPerMw,
             s.max_mw * kUwPerMw,
             s.samples,
             static_cast<int64_t>(failed),
             width_ns - static_cast<int64_t>(uncovered_us) * kNsPerUs,
             s.step_ms * kNsPerMs};
  s.pos_ns += width_ns;
  return true;
}

}  // namespace

const char* tier_name(Tier tier) {
  switch (tier) {
    case Tier::kRaw: return "raw";
    case Tier::kSecond: return "1s";
    case Tier::kMinute: return "1min";
  }
  return "unknown";
}

int64_t tier_width_ns(Tier tier) {
  switch (tier) {
    case Tier::kRaw: return 0;
    case Tier::kSecond: return 1'000'000'000;
    case Tier::kMinute: return 60'000'000'000;
  }
  return 0;
}

int64_t floor_to(int64_t t_ns, int64_t width_ns) {
  int64_t q = t_ns / width_ns;
  if (t_ns % width_ns != 0 && t_ns < 0) --q;
  return q * width_ns;
}

int64_t ceil_to(int64_t t_ns, int64_t width_ns) {
  int64_t f = floor_to(t_ns, width_ns);
  return f == t_ns ? f : f + width_ns;
}

std::vector<Bucket> bucketize(const std::vector<PowerPoint>& points, int64_t begin_ns, int64_t end_ns,
                              int64_t width_ns) {
  if (end_ns <= begin_ns || width_ns <= 0) return {};
  Grid g{begin_ns, end_ns, width_ns};
  std::vector<Acc> acc(g.index(end_ns - 1) + 1);
  const PowerPoint* prev = nullptr;
  for (const auto& p : points) {
    count_point(acc, g, p);
    if (!p.valid) continue;
    if (prev != nullptr) add_segment(acc, g, *prev, p);
    prev = &p;
  }
  return non_empty(acc, g);
}

std::vector<Bucket> aggregate(const std::vector<Bucket>& fine, int64_t begin_ns, int64_t end_ns, int64_t width_ns) {
  if (end_ns <= begin_ns || width_ns <= 0) return {};
  Grid g{begin_ns, end_ns, width_ns};
  std::vector<Acc> acc(g.index(end_ns - 1) + 1);
  for (const auto& b : fine) {
    if (b.start_ns < begin_ns || b.start_ns >= end_ns) continue;
    Acc& x = acc[g.index(b.start_ns)];
    x.energy_uj += b.energy_uj;
    if (b.integrated_ns > 0 || b.samples > 0) {
      x.note_power(static_cast<double>(b.min_power_uw));
      x.note_power(static_cast<double>(b.max_power_uw));
    }
    x.samples += b.samples;
    x.failed += b.failed_samples;
    x.integrated_ns += b.integrated_ns;
    x.max_step_ns = std::max(x.max_step_ns, b.max_step_ns);
  }
  return non_empty(acc, g);
}

void chain_running_energy(std::vector<Bucket>& buckets, double cum_start_uj) {
  double cum = cum_start_uj;
  for (auto& b : buckets) {
    cum += b.energy_uj;
    b.cum_end_uj = cum;
  }
}

std::string encode_buckets(const std::vector<Bucket>& buckets, int64_t row_start_ns, int64_t width_ns,
                           double first_cum_uj) {
  std::string out;
  out.reserve(buckets.size() * 10);
  CodecState s;
  s.first_cum_uj = first_cum_uj;
  s.pos_ns = row_start_ns;
  for (const auto& b : buckets) {
    Bucket copy = b;
    copy.width_ns = width_ns;
    encode_one(out, s, copy);
  }
  return out;
}

Result<std::vector<Bucket>> decode_buckets(const std::string& blob, int64_t row_start_ns, int64_t width_ns,
                                           double first_cum_uj) {
  std::vector<Bucket> out;
  CodecState s;
  s.pos_ns = row_start_ns;
  double prev_cum = first_cum_uj;
  size_t pos = 0;
  while (pos < blob.size()) {
    Bucket b;
    if (!decode_one(blob, pos, s, width_ns, b)) {
      return make_error(ErrorCode::kStorage, "corrupt tier row: truncated bucket " + std::to_string(out.size()));
    }
    b.cum_end_uj = first_cum_uj + static_cast<double>(s.q) * kTierEnergyQuantumUj;
    b.energy_uj = b.cum_end_uj - prev_cum;
    prev_cum = b.cum_end_uj;
    out.push_back(b);
  }
  return out;
}

PartialEnergy partial_energy(const Bucket& b, int64_t t_ns) {
  int64_t d = std::clamp<int64_t>(t_ns - b.start_ns, 0, b.width_ns);
  if (b.width_ns <= 0) return {};
  double est = b.energy_uj * static_cast<double>(d) / static_cast<double>(b.width_ns);
  int64_t uncovered = b.width_ns - b.integrated_ns;
  double least_ns = static_cast<double>(std::max<int64_t>(0, d - uncovered));
  double most_ns = static_cast<double>(std::min(d, b.integrated_ns));
  double p_min = static_cast<double>(b.min_power_uw), p_max = static_cast<double>(b.max_power_uw);
  double lo = std::min(p_min * least_ns, p_min * most_ns) / 1e9;
  double hi = std::max(p_max * least_ns, p_max * most_ns) / 1e9;
  return PartialEnergy{est, std::max({est - lo, hi - est, 0.0}) + kTierRoundingUj};
}

namespace {

// The share of a bucket inside the window, in [0, 1].
double share(const Bucket& b, EnergyWindow w) {
  int64_t lo = std::max(b.start_ns, w.begin_ns), hi = std::min(b.end_ns(), w.end_ns);
  return hi <= lo ? 0.0 : static_cast<double>(hi - lo) / static_cast<double>(b.width_ns);
}

void add_bucket(EnergyStats& s, const Bucket& b, double f, int64_t threshold_ns) {
  auto part = [f](int64_t v) { return static_cast<int64_t>(std::llround(static_cast<double>(v) * f)); };
  s.energy_uj += b.energy_uj * f;
  s.integrated_ns += static_cast<double>(part(b.integrated_ns));
  if (b.max_step_ns <= threshold_ns) s.covered_ns += part(b.integrated_ns);
  if (b.max_step_ns > threshold_ns) s.gap_ns += part(b.integrated_ns);
  s.gap_ns += part(b.width_ns - b.integrated_ns);
  s.samples += part(b.samples);
  s.failed_samples += part(b.failed_samples);
  s.largest_gap_ns = std::max(s.largest_gap_ns, std::min(b.max_step_ns, s.window_ns));
  if (b.integrated_ns == 0 && b.samples == 0) return;
  s.peak_power_uw = s.has_data ? std::max(s.peak_power_uw, b.max_power_uw) : b.max_power_uw;
  s.min_power_uw = s.has_data ? std::min(s.min_power_uw, b.min_power_uw) : b.min_power_uw;
  s.has_data = true;
}

// Stored extremes are rounded outward to whole mW: a range this narrow may
// be a constant reading, not a step of the sensor.
constexpr int64_t kStoredRoundingUw = 2000;

// The extremes of a bucket and of its contiguous neighbours: every reading
// around a stretch of the bucket lies between them.
int64_t spread_around(const std::vector<Bucket>& buckets, size_t i) {
  int64_t lo = buckets[i].min_power_uw, hi = buckets[i].max_power_uw;
  auto widen = [&lo, &hi](const Bucket& n) {
    if (n.integrated_ns == 0) return;
    lo = std::min(lo, n.min_power_uw);
    hi = std::max(hi, n.max_power_uw);
  };
  if (i > 0 && buckets[i - 1].end_ns() == buckets[i].start_ns) widen(buckets[i - 1]);
  if (i + 1 < buckets.size() && buckets[i + 1].start_ns == buckets[i].end_ns()) widen(buckets[i + 1]);
  return hi - lo;
}

// The readings' own error bound (integrate.h) from what buckets keep: a
// bucket's stretches are at most max_step long and add up to its integrated
// time, so their sum of (h s / 2)^2 is at most (spread / 2)^2 x max_step x
// integrated time. The resolution step is the narrowest bucket range (a
// bucket whose readings differ spans at least one step).
void add_error_bound(EnergyStats& s, const std::vector<Bucket>& buckets, EnergyWindow w) {
  double sum_sq = 0;
  int64_t step = 0;
  for (size_t i = 0; i < buckets.size(); ++i) {
    const Bucket& b = buckets[i];
    double f = share(b, w);
    if (f <= 0 || b.integrated_ns == 0) continue;
    double half_spread_uw = static_cast<double>(spread_around(buckets, i)) / 2.0;
    double seconds_sq = static_cast<double>(b.max_step_ns) / 1e9 * static_cast<double>(b.integrated_ns) * f / 1e9;
    sum_sq += half_spread_uw * half_spread_uw * seconds_sq;
    int64_t range = b.max_power_uw - b.min_power_uw;
    if (range > kStoredRoundingUw && (step == 0 || range < step)) step = range;
  }
  s.fluctuation_bound_uj = kFluctuationSigmas * std::sqrt(sum_sq);
  s.resolution_bound_uj = static_cast<double>(step) / 2.0 * s.integrated_ns / 1e9;
}

}  // namespace

EnergyStats summarize_buckets(const std::vector<Bucket>& buckets, EnergyWindow w, int64_t gap_threshold_ns) {
  EnergyStats s;
  s.window_ns = std::max<int64_t>(0, w.end_ns - w.begin_ns);
  int64_t cursor = w.begin_ns;  // stretches without any bucket: nothing was measured there
  auto missing = [&s, &cursor](int64_t until) {
    int64_t len = std::max<int64_t>(0, until - cursor);
    s.gap_ns += len;
    s.largest_gap_ns = std::max(s.largest_gap_ns, len);
  };
  for (const auto& b : buckets) {
    double f = share(b, w);
    if (f <= 0) continue;
    missing(std::max(b.start_ns, w.begin_ns));
    add_bucket(s, b, f, gap_threshold_ns);
    cursor = std::min(b.end_ns(), w.end_ns);
  }
  missing(w.end_ns);
  add_error_bound(s, buckets, w);
  return s;
}

}  // namespace energy
