#include "sensor.h"

#include <algorithm>
#include <cmath>

#include "energysim/chip_model.h"

namespace energy::sim {
namespace {

constexpr std::int64_t kNsPerUs = 1000;
constexpr std::int64_t kIna238ConversionNs = 1052 * kNsPerUs;
constexpr std::int64_t kDtConversionNs = 140 * kNsPerUs;  // Nano / TX2 / Xavier DT configs (0x7607, 0x7c07)
// A fresh evaluation folds the last 20 N conversions after seeding with the
// one before them: the seed's error keeps weight (1 - 1/N)^(20 N) < e^-20 ~ 2.1e-9.
constexpr std::int64_t kTruncationFactor = 20;
// Restarts faster than the running mean settles keep older timings; past
// this many the oldest kept one is taken as settled.
constexpr std::size_t kMaxTimings = 64;

// Floor / ceiling division for a possibly negative numerator.
std::int64_t floor_div(std::int64_t n, std::int64_t d) { return n >= 0 ? n / d : -((-n + d - 1) / d); }
std::int64_t ceil_div(std::int64_t n, std::int64_t d) { return -floor_div(-n, d); }

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
    t.order = ConversionOrder::kBusThenShunt;
    return t;
  }
  t.channels = std::max(1, enabled_channels(m));
  t.samples = config.samples;
  t.bus_ns = t.shunt_ns = std::int64_t{config.conversion_us} * kNsPerUs;
  return t;
}

std::int64_t length_ns(const ConversionTiming& t, Conversion c) {
  return c == Conversion::kBus ? t.bus_ns : t.shunt_ns;
}

// Where conversion `c` of `slot` starts inside a cycle.
std::int64_t offset_ns(const ConversionTiming& t, int slot, Conversion c) {
  const Conversion first = t.order == ConversionOrder::kShuntThenBus ? Conversion::kShunt : Conversion::kBus;
  return slot * t.slot_ns() + (c == first ? 0 : length_ns(t, first));
}

// The index of the first conversion at or after valid_from_ns; nullopt for a
// timing without a start.
std::optional<std::int64_t> first_conversion(const ConversionTiming& t, int slot, Conversion c) {
  if (t.valid_from_ns == kNoStartNs) return std::nullopt;
  return ceil_div(t.valid_from_ns - t.origin_ns - offset_ns(t, slot, c), t.cycle_ns());
}

// How many conversions a fresh evaluation folds after its seed: 0 without averaging.
std::int64_t truncation(const ConversionTiming& t) { return t.samples > 1 ? kTruncationFactor * t.samples : 0; }

bool memo_follows(const RegisterMemo& memo, const ConversionTiming& t) {
  return memo.valid && memo.timing_from_ns == t.valid_from_ns && memo.timing_origin_ns == t.origin_ns;
}

// One register of one channel, evaluated over the chip's timings: the
// newest timing with a completed conversion, seeded from its predecessor
// (a config write keeps the registers) or settled.
class Register {
 public:
  Register(const PowerModel& model, std::size_t rail, int slot, Conversion conversion,
           const std::vector<ConversionTiming>& timings, RegisterMemo& memo)
      : model_(model), rail_(rail), slot_(slot), conversion_(conversion), timings_(timings), memo_(memo) {}

  // y at t_ns from the first `count` timings; nullopt if none has a
  // conversion completed by then.
  std::optional<double> value(std::size_t count, std::int64_t t_ns) {
    std::int64_t limit = t_ns;
    for (std::size_t j = count; j-- > 0;) {
      if (std::optional<std::int64_t> k = last_conversion(timings_[j], slot_, conversion_, limit)) {
        return after(j, *k);
      }
      limit = std::min(limit, timings_[j].valid_from_ns);  // an older conversion must end before the restart
    }
    return std::nullopt;
  }

 private:
  // y after conversion k of timing j.
  double after(std::size_t j, std::int64_t k) {
    const ConversionTiming& t = timings_[j];
    const std::int64_t from = k - truncation(t);
    double y = 0;
    std::int64_t next = 0;
    if (memo_follows(memo_, t) && memo_.index <= k && memo_.index >= from) {
      y = memo_.value;
      next = memo_.index + 1;
    } else if (const std::optional<std::int64_t> first = first_conversion(t, slot_, conversion_);
               first && *first > from) {
      y = seed(j, *first);
      next = *first;
    } else {
      y = sample(t, from);
      next = from + 1;
    }
    y = fold(t, y, next, k);
    remember(t, k, y);
    return y;
  }

  // The register when timing j started: its predecessor's value then, or
  // (no predecessor kept) settled on the first conversion.
  double seed(std::size_t j, std::int64_t first) {
    if (j > 0) {
      if (std::optional<double> y = value(j, timings_[j].valid_from_ns)) return *y;
    }
    return sample(timings_[j], first);
  }

  double fold(const ConversionTiming& t, double y, std::int64_t from, std::int64_t to) const {
    const double n = t.samples;
    for (std::int64_t i = from; i <= to; ++i) y += (sample(t, i) - y) / n;
    return y;
  }

  double sample(const ConversionTiming& t, std::int64_t k) const {
    return conversion_mean(model_, rail_, t, slot_, conversion_, k);
  }

  // Keeps the memo's later state when an earlier conversion of its timing was read.
  void remember(const ConversionTiming& t, std::int64_t k, double y) {
    if (memo_follows(memo_, t) && memo_.index > k) return;
    memo_ = RegisterMemo{true, t.valid_from_ns, t.origin_ns, k, y};
  }

  const PowerModel& model_;
  const std::size_t rail_;
  const int slot_;
  const Conversion conversion_;
  const std::vector<ConversionTiming>& timings_;
  RegisterMemo& memo_;
};

// Both registers of a channel at t_ns, unquantised.
struct Means {
  double bus_mv = 0;
  double current_ma = 0;
};

std::int32_t rounded(double value) { return static_cast<std::int32_t>(std::llround(value)); }

RailState quantised(const PowerMonitorSpec& monitor, const ChannelSpec& channel, const Means& m) {
  if (monitor.layout != MonitorLayout::kIna3221Hwmon) return RailState{rounded(m.bus_mv), rounded(m.current_ma)};
  const std::int64_t bus_uv = std::llround(m.bus_mv * 1000.0);
  const std::int64_t current_na = std::llround(m.current_ma * 1e6);
  const std::int32_t shunt_uv = ina3221_shunt_uv_from_na(current_na, channel.shunt_uohm);
  return RailState{ina3221_bus_mv_from_uv(bus_uv), ina3221_current_ma(shunt_uv, channel.shunt_uohm)};
}

// `t` has folded more than 20 N conversions of every register by end_ns (one
// cycle of margin for the slot offsets): no evaluation of it at end_ns or
// later seeds from its predecessor.
bool settled_by(const ConversionTiming& t, std::int64_t end_ns) {
  if (t.valid_from_ns == kNoStartNs) return true;
  return end_ns - t.valid_from_ns >= (truncation(t) + 2) * t.cycle_ns();
}

}  // namespace

Window conversion_window(const ConversionTiming& timing, int slot, Conversion conversion, std::int64_t k) {
  const std::int64_t start = timing.origin_ns + k * timing.cycle_ns() + offset_ns(timing, slot, conversion);
  return Window{start, start + length_ns(timing, conversion)};
}

std::optional<std::int64_t> last_conversion(const ConversionTiming& timing, int slot, Conversion conversion,
                                            std::int64_t t_ns) {
  const std::int64_t end_offset = offset_ns(timing, slot, conversion) + length_ns(timing, conversion);
  const std::int64_t k = floor_div(t_ns - timing.origin_ns - end_offset, timing.cycle_ns());
  if (conversion_window(timing, slot, conversion, k).start_ns < timing.valid_from_ns) return std::nullopt;
  return k;
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

void drop_unreachable_timings(std::vector<ConversionTiming>& timings) {
  if (timings.size() < 3) return;  // the newest always needs its predecessor
  for (std::size_t j = timings.size() - 1; j-- > 1;) {
    if (settled_by(timings[j], timings[j + 1].valid_from_ns)) {
      timings.erase(timings.begin(), timings.begin() + static_cast<std::ptrdiff_t>(j));
      break;
    }
  }
  if (timings.size() > kMaxTimings) {
    timings.erase(timings.begin(), timings.end() - static_cast<std::ptrdiff_t>(kMaxTimings));
  }
}

double conversion_mean(const PowerModel& model, std::size_t rail, const ConversionTiming& timing, int slot,
                       Conversion conversion, std::int64_t k) {
  const Window w = conversion_window(timing, slot, conversion, k);
  const double ms = static_cast<double>(w.end_ns - w.start_ns) / 1e6;
  return conversion == Conversion::kBus ? model.bus_mv_ms(rail, w.start_ns, w.end_ns) / ms
                                        : model.charge_uc(rail, w.start_ns, w.end_ns) / ms;
}

double register_mean(const PowerModel& model, std::size_t rail, int slot, Conversion conversion,
                     const std::vector<ConversionTiming>& timings, std::int64_t t_ns, RegisterMemo& memo) {
  Register reg(model, rail, slot, conversion, timings, memo);
  if (std::optional<double> y = reg.value(timings.size(), t_ns)) return *y;
  return conversion == Conversion::kBus ? model.level(rail, t_ns).bus_mv : model.current_ma(rail, t_ns);
}

RailState read_channel(const PowerModel& model, std::size_t rail, const PowerMonitorSpec& monitor,
                       const ChannelSpec& channel, int slot, const std::vector<ConversionTiming>& timings,
                       std::int64_t t_ns) {
  ChannelMemo fresh;
  return read_channel(model, rail, monitor, channel, slot, timings, t_ns, fresh);
}

RailState read_channel(const PowerModel& model, std::size_t rail, const PowerMonitorSpec& monitor,
                       const ChannelSpec& channel, int slot, const std::vector<ConversionTiming>& timings,
                       std::int64_t t_ns, ChannelMemo& memo) {
  const Means means{register_mean(model, rail, slot, Conversion::kBus, timings, t_ns, memo.bus),
                    register_mean(model, rail, slot, Conversion::kShunt, timings, t_ns, memo.shunt)};
  return quantised(monitor, channel, means);
}

}  // namespace energy::sim
