// Sensors: what a simulated power monitor reports at an instant, from the
// power model's exact integrals - the chip's conversions, its averaging and
// the driver's quantisation.
//
// INA3221 (hwmon and the L4T 32 IIO driver): as the datasheet's section
// "Averaging Function" describes, the chip cycles through its enabled
// channels one conversion at a time - per channel its shunt, then its bus
// voltage - and after every conversion moves that output register 1/N of the
// way to the new value (N = `samples`, the averaging count):
//   y_k = y_{k-1} + (x_k - y_{k-1}) / N,
// x_k the mean of the model's I (shunt) or V (bus) over conversion k's
// window (an exact integral). So a register is a running mean that changes
// every cycle (channels x (CT_shunt + CT_bus)); `update_interval` (N cycles)
// is its settling scale, not a refresh period. Timings:
//   hwmon (L4T 35+): `samples` and the conversion time (probe: N = 1,
//                    1.1 ms + 1.1 ms per enabled channel, a 6.6 ms cycle for 3);
//   IIO (L4T 32):    the device tree's: Nano N = 64, 140 + 140 us; TX2 / AGX
//                    Xavier / Xavier NX N = 512, 140 + 140 us (0.84 ms cycles,
//                    time constants ~54 ms and ~430 ms); else the staging
//                    driver's N = 64, 1.1 + 1.1 ms (6.6 ms cycles, ~422 ms).
// INA238 (Thor VIN): no averaging (N = 1): bus, shunt, then temperature,
// 1052 us each (3.156 ms cycle); a register holds its last conversion.
// A reading is then quantised as the driver reports it: INA3221 hwmon bus on
// the 8 mV step, shunt (I x R) on the 40 uV step, current = shunt_uV x 1000 /
// shunt_uOhm rounded (chip_model.h); INA3221x and INA238 mV and mA rounded
// (A9, A10).
//
// History: the initial timing is settled (its running mean starts from the
// first conversion it evaluates). A write of `samples` or the conversion time
// restarts the chip's grid; the registers keep their values and the new
// timing's running mean continues from them.
//
// Cost: a fresh evaluation folds at most 20 N + 1 conversions (the weight it
// ignores, (1 - 1/N)^(20 N) < 3e-9, is below every quantisation step); a
// RegisterMemo carried from read to read makes a later read cost only the
// conversions since the previous one.
//
// Thread-safety: pure functions; a memo belongs to one caller at a time.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "energysim/board_spec.h"
#include "energysim/board_state.h"
#include "model.h"

namespace energy::sim {

enum class Conversion { kBus, kShunt };
enum class ConversionOrder { kShuntThenBus, kBusThenShunt };  // inside a channel's slot

inline constexpr std::int64_t kNoStartNs = INT64_MIN;

struct ConversionTiming {
  int channels = 3;                                        // converted in sequence, one slot each
  int samples = 1;                                         // averaging count N of the running mean
  std::int64_t bus_ns = 1100000;                           // one bus conversion
  std::int64_t shunt_ns = 1100000;                         // one shunt conversion
  std::int64_t tail_ns = 0;                                // after the last channel (INA238: temperature)
  std::int64_t origin_ns = 0;                              // a cycle starts here (and every cycle_ns() around)
  std::int64_t valid_from_ns = kNoStartNs;                 // a restarted chip has no conversions before this
  ConversionOrder order = ConversionOrder::kShuntThenBus;  // the INA3221's; INA238 converts bus first

  std::int64_t slot_ns() const { return bus_ns + shunt_ns; }
  std::int64_t cycle_ns() const { return channels * slot_ns() + tail_ns; }
};

struct Window {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
};

// Conversion k of `slot` (0-based position among the converted channels):
// its window in cycle k (cycle 0 starts at origin_ns).
Window conversion_window(const ConversionTiming& timing, int slot, Conversion conversion, std::int64_t k);
// The index of the last conversion of `slot` completed at or before t_ns;
// nullopt if none started at or after valid_from_ns did.
std::optional<std::int64_t> last_conversion(const ConversionTiming& timing, int slot, Conversion conversion,
                                            std::int64_t t_ns);

// The timing a monitor starts with (`config` for INA3221 hwmon, the device
// tree's for L4T 32, INA238's own), its grid shifted by phase_fraction (0..1).
ConversionTiming initial_timing(const BoardSpec& spec, const PowerMonitorSpec& monitor, const MonitorConfig& config,
                                std::int64_t start_ns, double phase_fraction);
// The timing after the hwmon `samples` / `update_interval` changed at t_ns.
ConversionTiming restarted_timing(const PowerMonitorSpec& monitor, const MonitorConfig& config, std::int64_t t_ns);

// Drops the timings that no evaluation at or after the newest timing's start
// can reach: those before a timing that had folded more than 20 N
// conversions of every register when its successor started. Keeps at most
// 64; past that the oldest kept one is taken as settled.
void drop_unreachable_timings(std::vector<ConversionTiming>& timings);

// A register's running mean after one conversion, carried between reads.
struct RegisterMemo {
  bool valid = false;
  std::int64_t timing_from_ns = 0;    // the timing it belongs to: valid_from_ns,
  std::int64_t timing_origin_ns = 0;  // origin_ns
  std::int64_t index = 0;             // and the last conversion folded in
  double value = 0;                   // mV (bus) or mA (shunt), unquantised
};
struct ChannelMemo {
  RegisterMemo bus;
  RegisterMemo shunt;
};

// x_k: the mean of V (mV, kBus) or I (mA, kShunt) over conversion k.
double conversion_mean(const PowerModel& model, std::size_t rail, const ConversionTiming& timing, int slot,
                       Conversion conversion, std::int64_t k);
// y at t_ns, unquantised: the running mean over every conversion of the
// register completed at or before t_ns; the model's instantaneous value if
// none is. `timings` is the chip's history, oldest first. `memo` is used
// when it lies at or before t_ns on the same timing, and then updated.
double register_mean(const PowerModel& model, std::size_t rail, int slot, Conversion conversion,
                     const std::vector<ConversionTiming>& timings, std::int64_t t_ns, RegisterMemo& memo);

// A channel's reading (bus mV, current mA as the driver reports them) at
// t_ns: its two registers, quantised. The first form evaluates afresh.
RailState read_channel(const PowerModel& model, std::size_t rail, const PowerMonitorSpec& monitor,
                       const ChannelSpec& channel, int slot, const std::vector<ConversionTiming>& timings,
                       std::int64_t t_ns);
RailState read_channel(const PowerModel& model, std::size_t rail, const PowerMonitorSpec& monitor,
                       const ChannelSpec& channel, int slot, const std::vector<ConversionTiming>& timings,
                       std::int64_t t_ns, ChannelMemo& memo);

}  // namespace energy::sim
