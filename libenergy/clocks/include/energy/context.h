// Board context: the change log of polled clocks, governors and temperatures
// that run reports turn into clock residency and temperature ranges
// (residency.h; docs/CLOCKS.md "Residency").
//
// A source is one polled quantity of the board:
//   kind clock:    a clock domain's current frequency, Hz in `number`
//                  (domain names as the `clocks` verb uses: cpu0, cpu4, gpu,
//                  gpu-gpc-0, emc);
//   kind governor: that domain's governor, its name in `text`;
//   kind thermal:  a thermal zone's temperature, milli-degC in `number`
//                  (zones by their `type`, e.g. "cpu-thermal").
// A row says "from t_ns on, the source reads this", until the source's next
// row in the same boot. A row without a known value says the value is
// unknown from then on: the read failed or hung, polling is off, the daemon
// stopped, or (thermal, `text` = "gated") the zone's block is powered off
// (Orin's -256 C). Time is CLOCK_BOOTTIME of the row's boot, as for samples.
//
// Thread-safety: plain values and reentrant functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace energy {

enum class ContextKind { kClock, kGovernor, kThermal };
const char* context_kind_name(ContextKind kind);  // "clock", "governor", "thermal"
std::optional<ContextKind> parse_context_kind(std::string_view name);

// The text of a thermal row whose zone reads -256 C (gated, not unreadable).
constexpr const char* kThermalGatedText = "gated";

struct ContextValue {
  std::optional<int64_t> number;    // clock: Hz; thermal: milli-degC
  std::optional<std::string> text;  // governor: its name; thermal: kThermalGatedText when gated

  static ContextValue unknown() { return {}; }
  static ContextValue of_number(int64_t n) { return {n, std::nullopt}; }
  static ContextValue of_text(std::string t) { return {std::nullopt, std::move(t)}; }
  bool operator==(const ContextValue& o) const { return number == o.number && text == o.text; }
  bool operator!=(const ContextValue& o) const { return !(*this == o); }
};

// Whether a value of `kind` is known: a governor by its text, the others by
// their number (a gated zone's text does not make its temperature known).
bool context_known(ContextKind kind, const ContextValue& v);

struct ContextRow {
  int64_t t_ns = 0;
  ContextValue v;
};

// One source's rows over a window, oldest first, at most one per instant.
// The first row may be before the window: the state the window starts in.
struct ContextSeries {
  ContextKind kind = ContextKind::kClock;
  std::string name;
  std::vector<ContextRow> rows;
};

// Receives a window's rows one source at a time (StoreContext::scan): a
// source, then its rows oldest first, then the next source.
class ContextRowSink {
 public:
  virtual ~ContextRowSink() = default;
  virtual void source(ContextKind kind, const std::string& name) = 0;
  virtual void row(const ContextRow& row) = 0;
};

// A row as the poller hands it to storage: the source by kind and name.
struct ContextChange {
  ContextKind kind = ContextKind::kClock;
  std::string name;
  int64_t t_ns = 0;
  ContextValue v;
};

}  // namespace energy
