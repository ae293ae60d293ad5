#include "run_stats.h"

#include <algorithm>

#include "energy/sweep_stats.h"

namespace energy::cli {
namespace {

SampleSummary sample_of(const Summary& s) {
  SampleSummary out;
  out.n = s.n;
  out.mean = s.mean;
  out.stddev = s.stddev;
  out.ci95_half = s.ci95_half;
  return out;
}

}  // namespace

Difference welch_difference(const Summary& reference, const Summary& other) {
  energy::Difference d = energy::welch_difference(sample_of(other), sample_of(reference));
  Difference out;
  out.diff = d.mean;
  out.ci95_half = d.ci95_half;
  out.df = d.df;
  return out;
}

Result<Summary> summarize(const std::vector<double>& values) {
  auto sample = summarize_sample(values);
  if (!sample) return sample.take_error();
  Summary s;
  s.n = sample->n;
  s.mean = sample->mean;
  s.stddev = sample->stddev;
  s.ci95_half = sample->ci95_half;
  auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  s.min = *lo;
  s.max = *hi;
  return s;
}

}  // namespace energy::cli
