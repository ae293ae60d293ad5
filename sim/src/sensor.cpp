#include "sensor.h"

#include <cmath>

#include "energysim/chip_model.h"

namespace energy::sim {
namespace {

constexpr std::int64_t kNsPerUs = 1000;
constexpr std::int64_t kIna238ConversionNs = 1052 * kNsPerUs;
constexpr std::int64_t kDtConversionNs = 140 * kNsPerUs;  // Nano / TX2 / Xavier DT configs (0x7607, 0x7c07)

// Floor division for a possibly negative numerator.
std::int64_t floor_div(std::int64_t n, std::int64_t d) { return n >= 0 ? n / d : -((-n + d - 1) / d); }

int enabled_channels(const PowerMonitorSpec& m) {
  int n = 0;
  for (const ChannelSpec& c : m.channels) n += c.disabled ? 0 : 1;
  return n;
}

// L4T 32: the device tree's averaging (assumption A27).
ConversionTiming iio_timing(const BoardSpec& spec) {
  ConversionTiming t;
  if (spec.id == "jetson-nano-4gb") {
    t.samples = 64;
  } else if (spec.soc == "tegra186" || spec.soc == "tegra194") {
    t.samples = 512;
  } else {
    t.samples = 64;
    return t;  // staging driver default 0x7727: 1.1 ms conversions
  }
  t.bus_ns = kDtConversionNs;
  t.shunt_ns = kDtConversionNs;
  return t;
}

ConversionTiming hwmon_timing(const PowerMonitorSpec& m, const MonitorConfig& config) {
  ConversionTiming t;
  if (m.layout == MonitorLayout::kIna238Hwmon) {  // A28
    t.channels = 1;
    t.bus_ns = t.shunt_ns = t.tail_ns = kIna238ConversionNs;
    return t;
  }
  t.channels = std::max(1, enabled_channels(m));
  t.samples = config.samples;
  t.bus_ns = t.shunt_ns = std::int64_t{config.conversion_us} * kNsPerUs;
  return t;
}

struct Means {
  double bus_mv = 0;
  double current_ma = 0;
};

// The window from the newest timing that has one; an older timing's windows
// must have ended before the restart that replaced it.
Window chosen_window(const std::vector<ConversionTiming>& timings, int slot, Conversion conversion, std::int64_t t_ns) {
  std::int64_t limit = t_ns;
  for (auto it = timings.rbegin(); it != timings.rend(); ++it) {
    if (std::optional<Window> w = last_window(*it, slot, conversion, limit)) return *w;
    limit = std::min(limit, it->valid_from_ns);
  }
  return Window{t_ns, t_ns};
}

Means means(const PowerModel& model, std::size_t rail, int slot, const std::vector<ConversionTiming>& timings,
            std::int64_t t_ns) {
  const Window bus = chosen_window(timings, slot, Conversion::kBus, t_ns);
  const Window shunt = chosen_window(timings, slot, Conversion::kShunt, t_ns);
  const double bus_ms = static_cast<double>(bus.end_ns - bus.start_ns) / 1e6;
  const double shunt_ms = static_cast<double>(shunt.end_ns - shunt.start_ns) / 1e6;
  Means m;
  m.bus_mv = bus_ms > 0 ? model.bus_mv_ms(rail, bus.start_ns, bus.end_ns) / bus_ms : model.level(rail, t_ns).bus_mv;
  m.current_ma =
      shunt_ms > 0 ? model.charge_uc(rail, shunt.start_ns, shunt.end_ns) / shunt_ms : model.current_ma(rail, t_ns);
  return m;
}

std::int32_t rounded(double value) { return static_cast<std::int32_t>(std::llround(value)); }

RailState quantised(const PowerMonitorSpec& monitor, const ChannelSpec& channel, const Means& m) {
  if (monitor.layout != MonitorLayout::kIna3221Hwmon) return RailState{rounded(m.bus_mv), rounded(m.current_ma)};
  const std::int64_t bus_uv = std::llround(m.bus_mv * 1000.0);
  const std::int64_t current_na = std::llround(m.current_ma * 1e6);
  const std::int32_t shunt_uv = ina3221_shunt_uv_from_na(current_na, channel.shunt_uohm);
  return RailState{ina3221_bus_mv_from_uv(bus_uv), ina3221_current_ma(shunt_uv, channel.shunt_uohm)};
}

}  // namespace

std::optional<Window> last_window(const ConversionTiming& timing, int slot, Conversion conversion, std::int64_t t_ns) {
  const std::int64_t offset =
      slot * timing.block_ns() + (conversion == Conversion::kShunt ? timing.samples * timing.bus_ns : 0);
  const std::int64_t length = timing.samples * (conversion == Conversion::kBus ? timing.bus_ns : timing.shunt_ns);
  const std::int64_t cycle = timing.cycle_ns();
  const std::int64_t k = floor_div(t_ns - timing.origin_ns - offset - length, cycle);
  const Window w{timing.origin_ns + k * cycle + offset, timing.origin_ns + k * cycle + offset + length};
  if (w.start_ns < timing.valid_from_ns) return std::nullopt;
  return w;
}

ConversionTiming initial_timing(const BoardSpec& spec, const PowerMonitorSpec& monitor, const MonitorConfig& config,
                                std::int64_t start_ns, double phase_fraction) {
  ConversionTiming t = monitor.layout == MonitorLayout::kIna3221xIio ? iio_timing(spec) : hwmon_timing(monitor, config);
  t.origin_ns = start_ns - static_cast<std::int64_t>(phase_fraction * static_cast<double>(t.cycle_ns()));
  return t;
}

ConversionTiming restarted_timing(const PowerMonitorSpec& monitor, const MonitorConfig& config, std::int64_t t_ns) {
  ConversionTiming t = hwmon_timing(monitor, config);
  t.origin_ns = t_ns;
  t.valid_from_ns = t_ns;
  return t;
}

RailState read_channel(const PowerModel& model, std::size_t rail, const PowerMonitorSpec& monitor,
                       const ChannelSpec& channel, int slot, const std::vector<ConversionTiming>& timings,
                       std::int64_t t_ns) {
  return quantised(monitor, channel, means(model, rail, slot, timings, t_ns));
}

}  // namespace energy::sim
