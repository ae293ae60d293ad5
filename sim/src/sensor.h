// Sensors: what a simulated power monitor reports at an instant, from the
// power model's exact integrals - the chip's conversion windows, averaging
// and quantisation.
//
// A chip converts its channels in sequence, each channel as a block of
// `samples` bus conversions then `samples` shunt conversions; a register
// holds the mean over its most recent COMPLETED window. So a reading is:
//   bus mV  = mean of V over the channel's last completed bus window,
//   current = mean of I over its last completed shunt window,
// then quantised as the driver reports it:
//   INA3221 hwmon: bus on the 8 mV step; shunt (I x R) on the 40 uV step,
//                  current = shunt_uV x 1000 / shunt_uOhm rounded (chip_model.h);
//                  windows from `samples` and the conversion time (probe:
//                  1 x 1.1 ms + 1.1 ms per channel, update_interval 7 ms for 3);
//   INA3221x (L4T 32 IIO): mean mV and mA rounded to integers (A9), windows
//                  from the device tree's configuration: Nano 64 x (140 + 140) us
//                  (53.76 ms per refresh of 3 channels), TX2 / AGX Xavier /
//                  Xavier NX 512 x (140 + 140) us (430.08 ms), else the staging
//                  driver's 64 x (1.1 + 1.1) ms (422.4 ms): faster reads repeat;
//   INA238:        mean mV and mA rounded (A10), 1052 us bus, shunt and
//                  temperature conversions (3.156 ms cycle).
// Each chip's conversion grid has a seeded phase. A change of `samples` or
// of the conversion time restarts the chip: until the new grid completes a
// window, the last window of the old one is reported.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "energysim/board_spec.h"
#include "energysim/board_state.h"
#include "model.h"

namespace energy::sim {

struct ConversionTiming {
  int channels = 3;                        // converted in sequence
  int samples = 1;                         // conversions averaged per window
  std::int64_t bus_ns = 1100000;           // one bus conversion
  std::int64_t shunt_ns = 1100000;         // one shunt conversion
  std::int64_t tail_ns = 0;                // after the last channel (INA238: temperature)
  std::int64_t origin_ns = 0;              // a cycle starts here (and every cycle_ns() before and after)
  std::int64_t valid_from_ns = INT64_MIN;  // a restarted chip has no windows before this

  std::int64_t block_ns() const { return samples * (bus_ns + shunt_ns); }
  std::int64_t cycle_ns() const { return channels * block_ns() + tail_ns; }
};

struct Window {
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
};

enum class Conversion { kBus, kShunt };

// The last window of `slot` (0-based position among the converted channels)
// that completed at or before t_ns; nullopt if none did since valid_from_ns.
std::optional<Window> last_window(const ConversionTiming& timing, int slot, Conversion conversion, std::int64_t t_ns);

// The timing a monitor starts with (`config` for INA3221 hwmon, the device
// tree's for L4T 32, INA238's own), its grid shifted by phase_fraction (0..1).
ConversionTiming initial_timing(const BoardSpec& spec, const PowerMonitorSpec& monitor, const MonitorConfig& config,
                                std::int64_t start_ns, double phase_fraction);
// The timing after the hwmon `samples` / `update_interval` changed at t_ns.
ConversionTiming restarted_timing(const PowerMonitorSpec& monitor, const MonitorConfig& config, std::int64_t t_ns);

// A channel's reading (bus mV, current mA as the driver reports them) at
// t_ns. `timings` is the chip's history, oldest first.
RailState read_channel(const PowerModel& model, std::size_t rail, const PowerMonitorSpec& monitor,
                       const ChannelSpec& channel, int slot, const std::vector<ConversionTiming>& timings,
                       std::int64_t t_ns);

}  // namespace energy::sim
