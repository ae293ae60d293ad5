#include "energy/run_summary.h"

#include "energy/averaging_correction.h"
#include "energy/rail_total.h"

namespace energy {

Result<std::vector<StoredRail>> total_stored_rails(Store& store) {
  auto rails = store.rails();
  if (!rails) return rails.take_error();
  std::vector<std::string> labels;
  for (const auto& r : *rails) labels.push_back(r.label);
  std::vector<StoredRail> out;
  for (size_t i : select_total_rails(labels).rail_indices) out.push_back((*rails)[i]);
  return out;
}

Result<RunSummary> summarize_run(Store& store, const RunRecord& run, int64_t end_ns,
                                 const std::vector<StoredRail>& total_rails) {
  RunSummary s;
  EnergyWindow w{run.start_ns, std::max(end_ns, run.start_ns)};
  s.duration_s = static_cast<double>(w.end_ns - w.begin_ns) / 1e9;
  if (total_rails.empty()) return s;
  double uj = 0;
  for (const StoredRail& rail : total_rails) {
    auto e = store.readings().energy(run.boot, rail.id, w);
    if (!e) return e.take_error();
    if (!e->has_value()) return s;
    const EnergyAnswer& a = **e;
    FilterCorrection c = filter_correction(rail, run.boot, w, [&](int64_t t) -> std::optional<double> {
      if (t == w.begin_ns) return a.begin_power_uw;
      if (t == w.end_ns) return a.end_power_uw;
      auto p = store.readings().power_at(run.boot, rail.id, t);
      return p ? *p : std::nullopt;
    });
    uj += a.energy_uj + c.energy_uj;
  }
  s.energy_j = uj / 1e6;
  if (s.duration_s > 0) s.avg_power_w = *s.energy_j / s.duration_s;
  return s;
}

nlohmann::json run_summary_json(const RunSummary& s) {
  auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
  return {{"duration_s", s.duration_s}, {"energy_j", opt(s.energy_j)}, {"avg_power_w", opt(s.avg_power_w)}};
}

}  // namespace energy
