#include "energy/run_summary.h"

#include "energy/rails.h"

namespace energy {

Result<std::vector<int64_t>> total_rail_ids(Store& store) {
  auto rails = store.rails();
  if (!rails) return rails.take_error();
  std::vector<std::string> labels;
  for (const auto& r : *rails) labels.push_back(r.label);
  std::vector<int64_t> ids;
  for (size_t i : select_total_rails(labels).rail_indices) ids.push_back((*rails)[i].id);
  return ids;
}

Result<RunSummary> summarize_run(Store& store, const RunRecord& run, int64_t end_ns,
                                 const std::vector<int64_t>& total_rails) {
  RunSummary s;
  EnergyWindow w{run.start_ns, std::max(end_ns, run.start_ns)};
  s.duration_s = static_cast<double>(w.end_ns - w.begin_ns) / 1e9;
  if (total_rails.empty()) return s;
  double uj = 0;
  for (int64_t rail : total_rails) {
    auto e = store.energy(run.boot, rail, w);
    if (!e) return e.take_error();
    if (!e->has_value()) return s;
    uj += (*e)->energy_uj;
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
