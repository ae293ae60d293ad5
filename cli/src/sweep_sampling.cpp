#include "sweep_sampling.h"

#include <cstdio>

namespace energy::cli {
namespace {

using nlohmann::json;

// A number member, or -1 when it is missing or not a positive number.
double positive(const json& j, const char* key) {
  if (!j.is_object()) return -1;
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return -1;
  double v = it->get<double>();
  return v > 0 ? v : -1;
}

}  // namespace

std::optional<std::string> sampling_gap_warning(const json& status) {
  if (!status.is_object()) return std::nullopt;
  auto sampler = status.find("sampler");
  auto monitors = status.find("monitors");
  if (sampler == status.end() || monitors == status.end() || !monitors->is_array()) return std::nullopt;
  double period = positive(*sampler, "period_ms");
  if (period <= 0) return std::nullopt;
  double shortest = -1;
  for (const auto& m : *monitors) {
    double w = positive(m, "update_interval_ms");
    if (w > 0 && (shortest < 0 || w < shortest)) shortest = w;
  }
  if (shortest < 0 || shortest >= period) return std::nullopt;
  char text[512];
  std::snprintf(text, sizeof text,
                "the power monitors average over %.0f ms but energyd samples every %.0f ms, so %.0f %% of each "
                "period is not observed; a workload whose phases repeat in step with the sampling can be measured "
                "a few percent off at some points. For sweeps on this board, sample at most every %.0f ms "
                "(energyd --sample-period-ms, or sample_period_ms in its config; docs/SWEEPS.md)",
                shortest, period, 100.0 * (period - shortest) / period, shortest);
  return std::string(text);
}

}  // namespace energy::cli
