// Study workloads under the sampled default governors, and the grid
// minimum they are compared with (study.h).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

#include "emc.h"
#include "energysim/board_state.h"
#include "model.h"
#include "study.h"

namespace energy::sim {
namespace {

// The idle board under its default governors, limits over the whole table,
// with the phase's loads.
ModelControls dvfs_controls(const BoardSpec& spec, const Phase& phase, std::size_t cpu_count) {
  ModelControls c{idle_state(spec), cpu_power_permille(phase.busy_threads, phase.spinning_threads, cpu_count), {}};
  c.cpu_peak_permille = cpu_peak_permille(phase.busy_threads, phase.spinning_threads);
  for (auto& [policy, p] : c.board.policies) {
    p.min_khz = spec.cpu.available_khz.front();
    p.max_khz = spec.cpu.available_khz.back();
  }
  GpuState& gpu = c.board.gpus.at(spec.gpus.front().devfreq_name);
  gpu.min_hz = spec.gpus.front().available_hz.front();
  gpu.max_hz = spec.gpus.front().available_hz.back();
  gpu.load_permille = phase.gpu_permille;
  return c;
}

// Runs batches on the model and accumulates clocks' residency.
class DvfsRun {
 public:
  DvfsRun(const BoardSpec& spec, std::vector<Phase> phases)
      : spec_(spec),
        phases_(std::move(phases)),
        cal_(study_calibration_for(spec.id)),
        cpus_(std::max<std::size_t>(1, spec.cpu.all_cpus().size())),
        model_(spec, dvfs_controls(spec, phases_.front(), cpus_), kStartNs, ModelOptions{1, 0.0}) {}

  static constexpr std::int64_t kStartNs = 1'000'000'000;

  std::int64_t now() const { return t_; }
  const PowerModel& model() const { return model_; }

  // One whole batch; residency is counted when `count` is set.
  Status batch(bool count) {
    for (const Phase& phase : phases_) {
      Status s = model_.update(t_, dvfs_controls(spec_, phase, cpus_));
      if (!s) return s;
      Status ran = run_phase(phase, count);
      if (!ran) return ran;
    }
    return ok_status();
  }

  double cpu_top_ns = 0, gpu_top_ns = 0, cpu_khz_ns = 0, gpu_hz_ns = 0;

 private:
  StudyClocks clocks() const {
    const BoardState g = model_.governed();
    return StudyClocks{g.policies.begin()->second.cur_khz, g.gpus.at(spec_.gpus.front().devfreq_name).cur_hz,
                       g.emc.rate_hz, emc_slowdown(spec_.emc, g.emc.rate_hz)};
  }

  void count_span(const StudyClocks& c, double ns) {
    if (c.cpu_khz == spec_.cpu.available_khz.back()) cpu_top_ns += ns;
    if (c.gpu_hz == spec_.gpus.front().available_hz.back()) gpu_top_ns += ns;
    cpu_khz_ns += static_cast<double>(c.cpu_khz) * ns;
    gpu_hz_ns += static_cast<double>(c.gpu_hz) * ns;
  }

  // The phase's work done at the clocks held between grid instants.
  Status run_phase(const Phase& phase, bool count) {
    double remaining = 1.0;  // share of the phase's work left
    while (remaining > 0) {
      const StudyClocks c = clocks();
      Result<double> full_ns = phase_duration_ns(phase, c, cal_);
      if (!full_ns) return full_ns.take_error();
      if (!(*full_ns > 0))
        return make_error(ErrorCode::kInvalid, std::string("phase '") + phase.name + "' takes no time");
      const std::int64_t next_grid = model_.next_grid_ns();
      const double finish = static_cast<double>(t_) + remaining * *full_ns;
      if (finish <= static_cast<double>(next_grid)) {
        const std::int64_t end = std::max(t_, static_cast<std::int64_t>(std::llround(finish)));
        if (count) count_span(c, static_cast<double>(end - t_));
        t_ = end;
        remaining = 0;
      } else {
        if (count) count_span(c, static_cast<double>(next_grid - t_));
        remaining -= static_cast<double>(next_grid - t_) / *full_ns;
        t_ = next_grid;
        model_.advance_to(t_);
      }
    }
    return ok_status();
  }

  const BoardSpec& spec_;
  std::vector<Phase> phases_;
  StudyCalibration cal_;
  std::size_t cpus_;
  PowerModel model_;
  std::int64_t t_ = kStartNs;
};

}  // namespace

Result<DvfsResult> evaluate_dvfs(const BoardSpec& spec, const WorkloadMix& mix, std::int64_t batch,
                                 const DvfsOptions& options) {
  if (batch < 1) return make_error(ErrorCode::kInvalid, "batch " + std::to_string(batch) + " is not >= 1");
  if (spec.gpus.empty() || spec.cpu.policies.empty() || spec.cpu.available_khz.empty() ||
      spec.gpus.front().available_hz.empty())
    return make_error(ErrorCode::kInvalid, spec.id + " has no CPU policy or no GPU to run a study on");
  if (options.warmup_ns < 0 || options.measure_ns <= 0)
    return make_error(ErrorCode::kInvalid, "the DVFS run needs a warm-up >= 0 and a measured time > 0");
  std::vector<Phase> phases = batch_phases(mix, batch, study_calibration_for(spec.id));
  if (phases.empty()) return make_error(ErrorCode::kInvalid, "the workload mix has no work");
  DvfsRun run(spec, std::move(phases));
  while (run.now() < DvfsRun::kStartNs + options.warmup_ns) {
    Status s = run.batch(false);
    if (!s) return s.take_error();
  }
  const std::int64_t t0 = run.now();
  DvfsResult out;
  while (run.now() < t0 + options.measure_ns) {
    Status s = run.batch(true);
    if (!s) return s.take_error();
    out.items += batch;
  }
  const std::int64_t t1 = run.now();
  const PowerModel& model = run.model();
  const double n = static_cast<double>(out.items);
  const double span_ns = static_cast<double>(t1 - t0);
  StudyResult& r = out.study;
  r.rail_mj_per_item.assign(model.rail_count(), 0.0);
  for (std::size_t rail = 0; rail < model.rail_count(); ++rail)
    r.rail_mj_per_item[rail] = model.energy_uj(rail, t0, t1) / 1000.0 / n;
  for (int rail : model.topology().total_rails)
    r.total_mj_per_item += r.rail_mj_per_item[static_cast<std::size_t>(rail)];
  r.time_per_item_ms = span_ns / kNsPerMs / n;
  r.mean_total_mw = r.total_mj_per_item * n / (span_ns / kNsPerS);
  out.cpu_top_share = run.cpu_top_ns / span_ns;
  out.gpu_top_share = run.gpu_top_ns / span_ns;
  out.mean_cpu_mhz = run.cpu_khz_ns / span_ns / 1e3;
  out.mean_gpu_mhz = run.gpu_hz_ns / span_ns / 1e6;
  return out;
}

Result<GridMinimum> grid_minimum(const BoardSpec& spec, const WorkloadMix& mix, std::int64_t batch) {
  if (spec.gpus.empty() || spec.cpu.policies.empty())
    return make_error(ErrorCode::kInvalid, spec.id + " has no CPU policy or no GPU to run a study on");
  std::optional<GridMinimum> best;
  for (std::uint32_t khz : spec.cpu.available_khz) {
    for (std::uint64_t hz : spec.gpus.front().available_hz) {
      Result<StudyResult> r = evaluate_study(spec, mix, batch, fixed_clocks({khz, hz}));
      if (!r) return r.take_error();
      if (!best || r->total_mj_per_item < best->study.total_mj_per_item) best = GridMinimum{{khz, hz}, *r};
    }
  }
  if (!best) return make_error(ErrorCode::kInvalid, spec.id + " has an empty CPU or GPU frequency table");
  return *best;
}

}  // namespace energy::sim
