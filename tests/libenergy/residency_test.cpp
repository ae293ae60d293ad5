// Clock residency and temperature ranges from synthetic change logs whose
// answers are known by construction (residency.h).
#include "energy/residency.h"

#include <gtest/gtest.h>

#include "../time_units.h"

namespace energy {
namespace {

ContextRow hz(int64_t t_ns, int64_t v) { return {t_ns, ContextValue::of_number(v)}; }
ContextRow text(int64_t t_ns, const std::string& v) { return {t_ns, ContextValue::of_text(v)}; }
ContextRow unknown(int64_t t_ns) { return {t_ns, ContextValue::unknown()}; }

ContextSeries clock(const std::string& name, std::vector<ContextRow> rows) {
  return {ContextKind::kClock, name, std::move(rows)};
}
ContextSeries governor(const std::string& name, std::vector<ContextRow> rows) {
  return {ContextKind::kGovernor, name, std::move(rows)};
}
ContextSeries thermal(const std::string& name, std::vector<ContextRow> rows) {
  return {ContextKind::kThermal, name, std::move(rows)};
}

const DomainResidency& only_domain(const RunContext& ctx) {
  EXPECT_EQ(ctx.clocks.size(), 1u);
  return ctx.clocks.front();
}

TEST(Residency, TwoFrequenciesSplitTheWindowByTimeHighestFirst) {
  auto ctx = summarize_context({clock("gpu", {hz(0, 612'000'000), hz(6 * kSec, 1'300'500'000)})}, {0, 10 * kSec});
  const auto& d = only_domain(ctx);
  EXPECT_EQ(d.domain, "gpu");
  EXPECT_EQ(d.kind, "gpu");
  ASSERT_EQ(d.residency.size(), 2u);
  EXPECT_EQ(d.residency[0].hz, 1'300'500'000);
  EXPECT_EQ(d.residency[0].ns, 4 * kSec);
  EXPECT_DOUBLE_EQ(d.residency[0].share, 0.4);
  EXPECT_EQ(d.residency[1].hz, 612'000'000);
  EXPECT_DOUBLE_EQ(d.residency[1].share, 0.6);
  EXPECT_EQ(d.min_hz, 612'000'000);
  EXPECT_EQ(d.max_hz, 1'300'500'000);
  EXPECT_EQ(d.changes, 1);
  EXPECT_EQ(d.unknown_ns, 0);
}

TEST(Residency, TheRowBeforeTheWindowGivesTheStateItStartsIn) {
  auto ctx =
      summarize_context({clock("cpu0", {hz(-5 * kSec, 1'500'000'000), hz(8 * kSec, 729'000'000)})}, {0, 10 * kSec});
  const auto& d = only_domain(ctx);
  ASSERT_EQ(d.residency.size(), 2u);
  EXPECT_EQ(d.residency[0].ns, 8 * kSec);
  EXPECT_EQ(d.residency[1].ns, 2 * kSec);
  EXPECT_EQ(d.unknown_ns, 0);
  EXPECT_EQ(d.kind, "cpu");
}

TEST(Residency, TimeBeforeTheFirstRowIsUnknownNotTheFirstValue) {
  auto ctx = summarize_context({clock("gpu", {hz(3 * kSec, 306'000'000)})}, {0, 10 * kSec});
  const auto& d = only_domain(ctx);
  ASSERT_EQ(d.residency.size(), 1u);
  EXPECT_EQ(d.residency[0].ns, 7 * kSec);
  EXPECT_DOUBLE_EQ(d.residency[0].share, 0.7);
  EXPECT_EQ(d.unknown_ns, 3 * kSec);
  EXPECT_EQ(d.changes, 0);
}

TEST(Residency, AnUnknownStretchIsCountedAndIsNoChange) {
  // The daemon was down from 4 s to 6 s: the value before and after is the same.
  auto ctx = summarize_context({clock("gpu", {hz(0, 918'000'000), unknown(4 * kSec), hz(6 * kSec, 918'000'000)})},
                               {0, 10 * kSec});
  const auto& d = only_domain(ctx);
  ASSERT_EQ(d.residency.size(), 1u);
  EXPECT_EQ(d.residency[0].ns, 8 * kSec);
  EXPECT_EQ(d.unknown_ns, 2 * kSec);
  EXPECT_EQ(d.changes, 0);
}

TEST(Residency, SharesAndUnknownAddUpToTheWindow) {
  auto ctx = summarize_context({clock("emc", {hz(1 * kSec, 204'000'000), hz(2500 * kMs, 665'600'000), unknown(7 * kSec),
                                              hz(9 * kSec, 204'000'000)})},
                               {0, 10 * kSec});
  const auto& d = only_domain(ctx);
  double sum = static_cast<double>(d.unknown_ns) / static_cast<double>(10 * kSec);
  int64_t ns = d.unknown_ns;
  for (const auto& f : d.residency) {
    sum += f.share;
    ns += f.ns;
  }
  EXPECT_EQ(ns, 10 * kSec);
  EXPECT_NEAR(sum, 1.0, 1e-12);
  EXPECT_EQ(d.unknown_ns, 3 * kSec);  // 0..1 s before the first row, 7..9 s unknown
  EXPECT_EQ(d.changes, 2);            // 204 -> 665.6, then (across the unknown) 665.6 -> 204
  EXPECT_EQ(d.kind, "emc");
}

TEST(Residency, RowsAtOrAfterTheWindowEndDoNotCount) {
  auto ctx = summarize_context({clock("gpu", {hz(0, 306'000'000), hz(10 * kSec, 624'750'000), hz(11 * kSec, 1)})},
                               {0, 10 * kSec});
  const auto& d = only_domain(ctx);
  ASSERT_EQ(d.residency.size(), 1u);
  EXPECT_EQ(d.residency[0].hz, 306'000'000);
  EXPECT_EQ(d.max_hz, 306'000'000);
  EXPECT_EQ(d.changes, 0);
}

TEST(Residency, AFrequencyHeldForNoTimeIsNotListed) {
  // Two rows at the window's start instant: only the second holds any time.
  auto ctx = summarize_context({clock("gpu", {hz(-kSec, 114'750'000), hz(0, 306'000'000)})}, {0, kSec});
  const auto& d = only_domain(ctx);
  ASSERT_EQ(d.residency.size(), 1u);
  EXPECT_EQ(d.residency[0].hz, 306'000'000);
  EXPECT_EQ(d.min_hz, 306'000'000);
}

TEST(Residency, GovernorsHaveSharesLongestFirst) {
  auto ctx = summarize_context(
      {clock("cpu0", {hz(0, 1'000'000'000)}), governor("cpu0", {text(0, "schedutil"), text(3 * kSec, "performance")})},
      {0, 10 * kSec});
  const auto& d = only_domain(ctx);
  ASSERT_EQ(d.governors.size(), 2u);
  EXPECT_EQ(d.governors[0].governor, "performance");
  EXPECT_EQ(d.governors[0].ns, 7 * kSec);
  EXPECT_DOUBLE_EQ(d.governors[1].share, 0.3);
  EXPECT_EQ(d.governor_unknown_ns, 0);
}

TEST(Residency, ADomainWithOnlyAGovernorSeriesIsListedWithItsFrequencyUnknown) {
  auto ctx = summarize_context({governor("gpu", {text(0, "nvhost_podgov")})}, {0, 2 * kSec});
  const auto& d = only_domain(ctx);
  EXPECT_TRUE(d.residency.empty());
  EXPECT_EQ(d.unknown_ns, 2 * kSec);
  EXPECT_FALSE(d.min_hz.has_value());
  ASSERT_EQ(d.governors.size(), 1u);
}

TEST(Residency, ADomainNeverPolledIsAllUnknown) {
  // Polling off: one unknown row per source at the daemon's start.
  auto ctx = summarize_context({clock("gpu", {unknown(-kSec)}), governor("gpu", {unknown(-kSec)})}, {0, 5 * kSec});
  const auto& d = only_domain(ctx);
  EXPECT_TRUE(d.residency.empty());
  EXPECT_TRUE(d.governors.empty());
  EXPECT_EQ(d.unknown_ns, 5 * kSec);
  EXPECT_EQ(d.governor_unknown_ns, 5 * kSec);
  auto j = clocks_to_json(ctx);
  EXPECT_DOUBLE_EQ(j[0]["known_share"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(j[0]["unknown_s"].get<double>(), 5.0);
  EXPECT_TRUE(j[0]["min_hz"].is_null());
}

TEST(Residency, ThermalRangeCoversTheKnownStretchesOnly) {
  auto ctx = summarize_context({thermal("cpu-thermal", {{-kSec, ContextValue::of_number(41'000)},
                                                        {2 * kSec, ContextValue::of_number(43'500)},
                                                        {5 * kSec, ContextValue::of_number(42'000)},
                                                        unknown(8 * kSec),
                                                        {9 * kSec, ContextValue::of_number(90'000)}})},
                               {0, 9 * kSec});  // 90 C arrives at the end instant: not in the window
  ASSERT_EQ(ctx.thermal.size(), 1u);
  const auto& z = ctx.thermal[0];
  EXPECT_EQ(z.zone, "cpu-thermal");
  EXPECT_EQ(z.min_mc, 41'000);
  EXPECT_EQ(z.max_mc, 43'500);
  EXPECT_EQ(z.known_ns, 8 * kSec);
  EXPECT_EQ(z.gated_ns, 0);
  auto j = thermal_to_json(ctx);
  EXPECT_DOUBLE_EQ(j[0]["min_c"].get<double>(), 41.0);
  EXPECT_DOUBLE_EQ(j[0]["max_c"].get<double>(), 43.5);
  EXPECT_NEAR(j[0]["known_share"].get<double>(), 8.0 / 9.0, 1e-12);
}

TEST(Residency, AGatedZoneHasNoRangeAndItsTimeCountsAsGated) {
  auto gated = ContextValue::of_text(kThermalGatedText);
  auto ctx = summarize_context({thermal("GPU-therm", {{0, gated}, {6 * kSec, ContextValue::of_number(38'000)}})},
                               {0, 10 * kSec});
  const auto& z = ctx.thermal[0];
  EXPECT_EQ(z.gated_ns, 6 * kSec);
  EXPECT_EQ(z.known_ns, 4 * kSec);
  EXPECT_EQ(z.min_mc, 38'000);
  auto all_gated = summarize_context({thermal("CV0-therm", {{0, gated}})}, {0, 10 * kSec});
  EXPECT_FALSE(all_gated.thermal[0].min_mc.has_value());
  auto j = thermal_to_json(all_gated);
  EXPECT_TRUE(j[0]["min_c"].is_null());
  EXPECT_TRUE(j[0]["max_c"].is_null());
  EXPECT_DOUBLE_EQ(j[0]["known_share"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(j[0]["gated_share"].get<double>(), 1.0);
}

TEST(Residency, AnEmptyWindowHasNoSharesAndNoDivisionByZero) {
  auto ctx = summarize_context({clock("gpu", {hz(0, 306'000'000)})}, {5 * kSec, 5 * kSec});
  const auto& d = only_domain(ctx);
  EXPECT_TRUE(d.residency.empty());
  auto j = clocks_to_json(ctx);
  EXPECT_DOUBLE_EQ(j[0]["known_share"].get<double>(), 0.0);
}

TEST(Residency, DomainsAndZonesAreListedByNameWithTheirJsonFields) {
  auto ctx = summarize_context({clock("gpu", {hz(0, 1)}), thermal("tj-thermal", {{0, ContextValue::of_number(1)}}),
                                clock("cpu0", {hz(0, 2)}), clock("cpu4", {hz(0, 3)})},
                               {0, kSec});
  ASSERT_EQ(ctx.clocks.size(), 3u);
  EXPECT_EQ(ctx.clocks[0].domain, "cpu0");
  EXPECT_EQ(ctx.clocks[2].domain, "gpu");
  auto j = clocks_to_json(ctx)[2];
  for (const char* key : {"domain", "kind", "residency", "governors", "min_hz", "max_hz", "changes", "unknown_s",
                          "known_share", "governor_unknown_s"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["residency"][0]["hz"], 1);
  EXPECT_DOUBLE_EQ(j["residency"][0]["seconds"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j["residency"][0]["share"].get<double>(), 1.0);
}

TEST(Residency, DomainKindsFollowTheClocksVerbNames) {
  EXPECT_EQ(clock_domain_kind("cpu0"), "cpu");
  EXPECT_EQ(clock_domain_kind("gpu"), "gpu");
  EXPECT_EQ(clock_domain_kind("gpu-gpc-0"), "gpu");
  EXPECT_EQ(clock_domain_kind("emc"), "emc");
  EXPECT_EQ(clock_domain_kind("vic"), "other");
}

}  // namespace
}  // namespace energy
