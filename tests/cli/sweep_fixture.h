// The constructed sweep.show reply of tests/cli/sweep_view_test.cpp (its
// figures are worked out there), shared with tests/cli/sweep_plot_test.cpp:
// cpu {1, 2} GHz x gpu {300, 600} MHz plus DVFS, two measure runs per point,
// 10 items per run, an idle baseline first.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "sweep_data.h"

namespace energy::cli {

using nlohmann::json;

inline json run_entry(int64_t id, int64_t point, int64_t repeat, const std::string& role, double energy,
                      double duration, const json& items = 10) {
  json run = {{"id", id},
              {"name", "w"},
              {"state", "stopped"},
              {"start_wall_ns", 1000 + id},
              {"tags", {{"exit_status", "0"}}},
              {"summary", {{"energy_j", energy}, {"duration_s", duration}, {"avg_power_w", energy / duration}}}};
  if (!items.is_null()) run["items"] = items;
  return {{"run_id", id}, {"point", point}, {"repeat", repeat}, {"role", role}, {"cooldown_ms", nullptr}, {"run", run}};
}

inline json fixture(const std::string& state = "complete") {
  json spec = {
      {"format", 1},
      {"axes",
       {{"clocks",
         {{{"domain", "cpu"}, {"hz", {1000000000, 2000000000}}}, {{"domain", "gpu"}, {"hz", {300000000, 600000000}}}}},
        {"params", json::array()}}},
      {"dvfs", true}};
  json runs = json::array({run_entry(10, 0, 0, "baseline", 5, 5, nullptr)});
  const double energies[5][2] = {{20.5, 21.5}, {19.9, 20.1}, {24.9, 25.1}, {28, 28}, {24.9, 25.1}};
  const double durations[5] = {10, 8, 6, 4, 5};
  int64_t id = 11;
  for (int repeat = 0; repeat < 2; ++repeat) {
    for (int p = 0; p < 5; ++p)
      runs.push_back(run_entry(id++, p, repeat, "measure", energies[p][repeat], durations[p]));
  }
  return {{"sweep",
           {{"id", 7},
            {"name", "grid"},
            {"state", state},
            {"created_wall_ns", 0},
            {"updated_wall_ns", 0},
            {"spec", spec},
            {"runs", runs}}}};
}

// The results of a sweep.show reply; a test failure (and no results) when it is refused.
inline SweepResults results_of(const json& reply) {
  auto r = sweep_results_from(reply);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? std::move(r).value() : SweepResults{};
}

}  // namespace energy::cli
