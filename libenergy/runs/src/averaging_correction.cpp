#include "energy/averaging_correction.h"

#include <vector>

namespace energy {
namespace {

struct Span {
  int64_t from_ns;
  int64_t to_ns;
  int64_t k_ns;
};

std::vector<Span> spans(const StoredRail& r, int64_t boot, EnergyWindow w) {
  bool splits = r.filter_from_boot == boot && r.filter_from_ns > w.begin_ns && r.filter_from_ns < w.end_ns &&
                r.filter_before_ns != r.filter_ns;
  if (!splits) return {Span{w.begin_ns, w.end_ns, r.filter_at(boot, w.end_ns)}};
  return {Span{w.begin_ns, r.filter_from_ns, r.filter_before_ns}, Span{r.filter_from_ns, w.end_ns, r.filter_ns}};
}

}  // namespace

FilterCorrection filter_correction(const StoredRail& rail, int64_t boot, EnergyWindow window,
                                   const std::function<std::optional<double>(int64_t)>& power_at) {
  FilterCorrection c;
  for (const Span& s : spans(rail, boot, window)) {
    if (s.k_ns == 0 || s.to_ns <= s.from_ns) continue;
    auto p_from = power_at(s.from_ns);
    auto p_to = power_at(s.to_ns);
    if (!p_from || !p_to) {
      c.unknown_k_ns += static_cast<double>(s.k_ns);
      continue;
    }
    c.energy_uj += static_cast<double>(s.k_ns) / 1e9 * (*p_to - *p_from);
  }
  return c;
}

}  // namespace energy
