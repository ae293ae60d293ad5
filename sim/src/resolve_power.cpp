// Power monitors: taken only from the requested generation (the rail map is
// what changes between driver generations); per-channel values the
// generation omits (shunt, idle mV/mA) come from the same label in another
// generation of the board, then from assumptions A3/A4.
#include <algorithm>
#include <set>

#include "assumptions.h"
#include "energysim/chip_model.h"
#include "errno_names.h"
#include "resolve.h"

namespace energy::sim {
namespace {

constexpr MonitorLayout kLayouts[] = {MonitorLayout::kIna3221xIio, MonitorLayout::kIna3221Hwmon,
                                      MonitorLayout::kIna238Hwmon};

std::optional<MonitorLayout> parse_layout(std::string_view name) {
  for (MonitorLayout layout : kLayouts) {
    if (name == layout_name(layout)) return layout;
  }
  return std::nullopt;
}

int index_base(MonitorLayout layout) { return layout == MonitorLayout::kIna3221xIio ? 0 : 1; }
int channel_count(MonitorLayout layout) { return layout == MonitorLayout::kIna238Hwmon ? 1 : 3; }

// Channels labelled `label` in the board's OTHER generations, nearest first.
std::vector<YAML::Node> same_label_channels(ResolveContext& ctx, const std::string& label) {
  std::vector<YAML::Node> out;
  if (label.empty()) return out;
  YamlReader& r = ctx.reader();
  for (const GenerationNode* generation : ctx.chain()) {
    if (generation->l4t == ctx.l4t()) continue;
    for (const YAML::Node& monitor : r.items(generation->node, "power_monitors")) {
      for (const YAML::Node& channel : r.items(monitor, "channels")) {
        if (r.text(channel, "label") == label) out.push_back(channel);
      }
    }
  }
  return out;
}

std::optional<std::int64_t> shunt_of(YamlReader& r, const YAML::Node& channel) {
  if (auto uohm = r.integer<std::int64_t>(channel, "shunt_uOhm")) return *uohm;
  if (auto mohm = r.integer<std::int64_t>(channel, "shunt_mOhm")) return *mohm * 1000;
  return std::nullopt;
}

std::int64_t resolve_shunt(ResolveContext& ctx, const YAML::Node& channel, const ChannelSpec& c) {
  if (auto own = shunt_of(ctx.reader(), channel)) return *own;
  for (const YAML::Node& other : same_label_channels(ctx, c.label)) {
    if (auto value = shunt_of(ctx.reader(), other)) {
      ctx.note("shunt of " + c.label + " taken from another generation");
      return *value;
    }
  }
  // A disabled channel without a shunt reads the driver default: not an assumption.
  if (!c.disabled) ctx.note("shunt of " + (c.label.empty() ? "unlabelled channel" : c.label) + " assumed (A3)");
  return assumed::kShuntUohm;
}

YAML::Node idle_values(ResolveContext& ctx, const YAML::Node& channel, const std::string& label) {
  const YAML::Node own = YamlReader::get(channel, "idle");
  if (YamlReader::present(own)) return own;
  for (const YAML::Node& other : same_label_channels(ctx, label)) {
    const YAML::Node idle = YamlReader::get(other, "idle");
    if (!YamlReader::present(idle)) continue;
    ctx.note("idle values of " + label + " taken from another generation");
    return idle;
  }
  return YAML::Node(YAML::NodeType::Undefined);
}

// mV from the data, else A4; mA from the data, else from mW (or uW), else 0.
void apply_idle(ResolveContext& ctx, const YAML::Node& idle, ChannelSpec& c) {
  YamlReader& r = ctx.reader();
  const std::optional<std::int32_t> mv = r.integer<std::int32_t>(idle, "mV");
  const std::optional<std::int32_t> ma = r.integer<std::int32_t>(idle, "mA");
  std::optional<std::int64_t> uw = r.integer<std::int64_t>(idle, "power_uW");
  if (auto mw = r.integer<std::int64_t>(idle, "mW")) uw = *mw * 1000;
  c.idle_mv = mv.value_or(assumed::bus_mv_for_label(c.label));
  if (!mv) ctx.note("idle bus voltage of " + c.label + " assumed " + std::to_string(c.idle_mv) + " mV (A4)");
  if (ma) {
    c.idle_ma = *ma;
  } else if (uw && c.idle_mv != 0) {
    c.idle_ma = static_cast<std::int32_t>(div_round_closest(*uw, c.idle_mv));
  } else {
    ctx.note("idle current of " + c.label + " assumed 0 mA (A4)");
  }
}

int resolve_index(ResolveContext& ctx, const YAML::Node& channel, MonitorLayout layout, int position) {
  if (auto index = ctx.reader().integer<int>(channel, "index")) return *index;
  ctx.note("channel index of position " + std::to_string(position) + " assumed from list order (A2)");
  return index_base(layout) + position;
}

ChannelSpec resolve_channel(ResolveContext& ctx, const YAML::Node& node, MonitorLayout layout, int position) {
  YamlReader& r = ctx.reader();
  ChannelSpec c;
  c.label = r.text(node, "label").value_or("");
  c.disabled = r.flag(node, "disabled");
  c.summation_disable = r.flag(node, "summation_disable");
  c.index = resolve_index(ctx, node, layout, position);
  c.shunt_uohm = resolve_shunt(ctx, node, c);
  if (!c.disabled) apply_idle(ctx, idle_values(ctx, node, c.label), c);
  return c;
}

std::vector<ChannelSpec> listed_channels(ResolveContext& ctx, const YAML::Node& monitor, MonitorLayout layout) {
  std::vector<ChannelSpec> out;
  const std::vector<YAML::Node> items = ctx.reader().items(monitor, "channels");
  for (std::size_t i = 0; i < items.size(); ++i) {
    auto scope = ctx.reader().scope("channels[" + std::to_string(i) + "]");
    out.push_back(resolve_channel(ctx, items[i], layout, static_cast<int>(i)));
  }
  return out;
}

// The INA238 has one rail and no label file; jtop (and the data file) call it VIN.
std::vector<ChannelSpec> ina238_channels(ResolveContext& ctx, const YAML::Node& monitor) {
  ChannelSpec c;
  c.index = 1;
  c.label = ctx.reader().text(monitor, "jtop_label").value_or("VIN");
  c.shunt_uohm = resolve_shunt(ctx, monitor, c);
  apply_idle(ctx, YamlReader::get(monitor, "idle"), c);
  return {c};
}

// The chip has a fixed number of inputs and the data file lists each of them.
void validate_channels(ResolveContext& ctx, const PowerMonitorSpec& m) {
  const int base = index_base(m.layout);
  const int count = channel_count(m.layout);
  if (m.channels.size() != static_cast<std::size_t>(count)) {
    ctx.reader().fail(ErrorCode::kParse, "'channels' must list all " + std::to_string(count) + " inputs of the chip");
  }
  std::set<int> seen;
  for (const ChannelSpec& c : m.channels) {
    const bool in_range = c.index >= base && c.index < base + count;
    if (!in_range || !seen.insert(c.index).second) {
      ctx.reader().fail(ErrorCode::kParse, "channel index " + std::to_string(c.index) + " is out of range or repeated");
    }
  }
}

std::string strip_prefix(std::string text, std::string_view prefix) {
  return text.compare(0, prefix.size(), prefix) == 0 ? text.substr(prefix.size()) : text;
}

// The controller's unit address ("c240000"): from this monitor, else from any
// monitor on the same bus in any generation of the board, else A1.
std::string controller(ResolveContext& ctx, const YAML::Node& monitor, int bus) {
  YamlReader& r = ctx.reader();
  if (auto own = r.text(monitor, "i2c_controller")) return strip_prefix(*own, "i2c@");
  for (const GenerationNode* generation : ctx.chain()) {
    for (const YAML::Node& other : r.items(generation->node, "power_monitors")) {
      auto name = r.text(other, "i2c_controller");
      if (name && r.integer<int>(other, "bus") == bus) return strip_prefix(*name, "i2c@");
    }
  }
  ctx.note("i2c controller of bus " + std::to_string(bus) + " assumed " + assumed::kI2cController + " (A1)");
  return assumed::kI2cController;
}

void resolve_address(ResolveContext& ctx, const YAML::Node& node, PowerMonitorSpec& m) {
  YamlReader& r = ctx.reader();
  const std::optional<int> bus = r.integer<int>(node, "bus");
  const std::optional<std::string> addr4 = r.text(node, "addr4");
  const bool ina238 = m.layout == MonitorLayout::kIna238Hwmon;
  m.bus = bus.value_or(assumed::kBus);
  m.addr4 = addr4.value_or(ina238 ? assumed::kIna238Addr4 : assumed::kIna3221Addr4);
  if (!bus || !addr4) ctx.note(std::string(driver_name(m.layout)) + " address assumed " + m.device_name() + " (A1)");
  if (m.addr4.size() != 4) r.fail(ErrorCode::kParse, "'addr4' must have 4 hex digits: " + m.addr4);
}

// i2c_power_files values are contents, or "<ERRNO> on read".
std::vector<ClientFileSpec> client_files(ResolveContext& ctx, const YAML::Node& monitor) {
  std::vector<ClientFileSpec> out;
  YamlReader& r = ctx.reader();
  for (const auto& [path, value] : r.entries(monitor, "i2c_power_files")) {
    ClientFileSpec file{path, r.value_text(value, path.c_str()).value_or(""), 0};
    const std::string word = file.content.substr(0, file.content.find(' '));
    if (file.content.find(" on read") != std::string::npos) file.read_errno = errno_from_name(word).value_or(0);
    if (file.read_errno != 0) file.content.clear();
    out.push_back(std::move(file));
  }
  return out;
}

PowerMonitorSpec resolve_monitor(ResolveContext& ctx, const YAML::Node& node) {
  YamlReader& r = ctx.reader();
  PowerMonitorSpec m;
  const std::string layout = r.text(node, "layout").value_or("");
  const std::optional<MonitorLayout> parsed = parse_layout(layout);
  if (!parsed)
    r.fail(ErrorCode::kParse, "'layout' is not ina3221x_iio, ina3221_hwmon or ina238_hwmon: '" + layout + "'");
  m.layout = parsed.value_or(MonitorLayout::kIna3221Hwmon);
  resolve_address(ctx, node, m);
  m.observed_number = r.integer<int>(node, "observed_N");
  const bool ina238 = m.layout == MonitorLayout::kIna238Hwmon;
  m.channels = ina238 ? ina238_channels(ctx, node) : listed_channels(ctx, node, m.layout);
  validate_channels(ctx, m);
  const std::string ctrl = controller(ctx, node, m.bus);
  m.adapter_name = ctrl + ".i2c";
  m.device_dir =
      r.text(node, "device_path_alt").value_or(assumed::i2c_client_dir(ctx.l4t(), ctrl, m.bus, m.device_name()));
  m.client_files = client_files(ctx, node);
  return m;
}

std::vector<std::string> enabled_labels(const std::vector<PowerMonitorSpec>& monitors) {
  std::vector<std::string> out;
  for (const PowerMonitorSpec& m : monitors) {
    for (const ChannelSpec& c : m.channels) {
      if (!c.disabled && !c.label.empty() && c.label != "NC") out.push_back(c.label);
    }
  }
  return out;
}

// total_rail names the input rail; null means "sum these" (total_rails_sum or
// energymon_total of that generation), from the nearest generation with the key.
std::vector<std::string> stated_total(ResolveContext& ctx) {
  YamlReader& r = ctx.reader();
  for (const GenerationNode* generation : ctx.chain()) {
    if (!YamlReader::has_key(generation->node, "total_rail")) continue;
    if (generation->l4t != ctx.l4t()) ctx.note("total_rail taken from " + generation->key);
    std::vector<std::string> out = r.texts(generation->node, "total_rail");
    if (out.empty()) out = r.texts(generation->node, "total_rails_sum");
    if (out.empty()) out = r.texts(generation->node, "energymon_total");
    return out;
  }
  return {};
}

}  // namespace

std::vector<PowerMonitorSpec> resolve_monitors(ResolveContext& ctx) {
  std::vector<PowerMonitorSpec> out;
  const std::vector<YAML::Node> items = ctx.reader().items(ctx.own(), "power_monitors");
  for (std::size_t i = 0; i < items.size(); ++i) {
    auto scope = ctx.reader().scope("power_monitors[" + std::to_string(i) + "]");
    out.push_back(resolve_monitor(ctx, items[i]));
  }
  return out;
}

// Stated in the data, else every connected rail (A25); each must be a rail.
std::vector<std::string> resolve_total_rails(ResolveContext& ctx, const std::vector<PowerMonitorSpec>& monitors) {
  const std::vector<std::string> labels = enabled_labels(monitors);
  const std::vector<std::string> stated = stated_total(ctx);
  if (stated.empty()) ctx.note("total = sum of every connected rail (A25)");
  for (const std::string& label : stated) {
    if (std::find(labels.begin(), labels.end(), label) != labels.end()) continue;
    ctx.reader().fail(ErrorCode::kParse, "total rail '" + label + "' is not a rail of this board");
  }
  return stated.empty() ? labels : stated;
}

}  // namespace energy::sim
