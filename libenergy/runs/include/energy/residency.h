// Clock residency and temperature ranges of a window, from the board
// context's change rows (context.h): a pure function, no I/O.
//
// Each source's value holds from its row's instant to the source's next row.
// Time in the window before a source's first row, and time after a row
// without a known value, is unknown: it is counted as such and never given
// to a frequency, a governor or a temperature. Shares are of the whole
// window, so for a domain the residency shares plus unknown_ns / window add
// up to 1.
//
// Units: Hz, milli-degC and ns as integers; shares 0..1.
//
// Thread-safety: reentrant.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "energy/context.h"
#include "energy/integrate.h"

namespace energy {

struct FrequencyShare {
  int64_t hz = 0;
  int64_t ns = 0;
  double share = 0;  // of the window
};

struct GovernorShare {
  std::string governor;
  int64_t ns = 0;
  double share = 0;
};

struct DomainResidency {
  std::string domain;                     // cpu0, gpu, emc, ...
  std::string kind;                       // cpu, gpu, emc (from the name), other
  std::vector<FrequencyShare> residency;  // highest frequency first; only frequencies held for some time
  std::vector<GovernorShare> governors;   // longest first
  std::optional<int64_t> min_hz;          // lowest and highest frequency held in the window
  std::optional<int64_t> max_hz;
  int64_t changes = 0;              // frequency changes inside the window (between known values)
  int64_t unknown_ns = 0;           // frequency unknown
  int64_t governor_unknown_ns = 0;  // governor unknown
};

struct ThermalRange {
  std::string zone;
  std::optional<int64_t> min_mc;  // over the known stretches; none when never known
  std::optional<int64_t> max_mc;
  int64_t known_ns = 0;
  int64_t gated_ns = 0;  // of the unknown time, the zone read gated (-256 C)
};

struct RunContext {
  int64_t window_ns = 0;
  std::vector<DomainResidency> clocks;  // by domain name
  std::vector<ThermalRange> thermal;    // by zone name
};

// The same summary built from rows streamed one source at a time (a
// ContextRowSink for StoreContext::scan): memory grows with the distinct
// values of a run, not with its rows.
class ContextSummary final : public ContextRowSink {
 public:
  explicit ContextSummary(EnergyWindow window);
  ~ContextSummary() override;
  void source(ContextKind kind, const std::string& name) override;
  void row(const ContextRow& row) override;  // oldest first within a source
  RunContext finish();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// `series`: any mix of sources (clock, governor, thermal), rows oldest first.
// A domain is listed when it has a clock or a governor series.
RunContext summarize_context(const std::vector<ContextSeries>& series, EnergyWindow window);

// "cpu" for cpuN, "gpu" for gpu and gpu-*, "emc", else "other".
std::string clock_domain_kind(const std::string& domain);

// The report's `clocks` and `thermal` arrays (docs/PROTOCOL.md, mark.stop).
nlohmann::json clocks_to_json(const RunContext& ctx);
nlohmann::json thermal_to_json(const RunContext& ctx);

}  // namespace energy
