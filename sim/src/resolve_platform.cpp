// Thermal zones, identification and fan.
#include <cstdlib>

#include "assumptions.h"
#include "resolve.h"

namespace energy::sim {
namespace {

// Zone names follow the release (CPU-therm on L4T 35, cpu-thermal on 36) more
// than the board, so the same SoC at the same generation comes before the
// board's other generations (A19).
std::vector<const GenerationNode*> thermal_sources(const ResolveContext& ctx) {
  std::vector<const GenerationNode*> out = {ctx.chain().front()};
  const std::vector<const GenerationNode*> same_soc = ctx.same_soc_generations();
  for (const GenerationNode* g : same_soc) {
    if (g->l4t == ctx.l4t()) out.push_back(g);
  }
  out.insert(out.end(), ctx.chain().begin() + 1, ctx.chain().end());
  for (const GenerationNode* g : same_soc) {
    if (g->l4t != ctx.l4t()) out.push_back(g);
  }
  return out;
}

// A zone type's idle temperature from the other sources (same type), else A19.
std::int32_t idle_elsewhere(ResolveContext& ctx, const std::vector<const GenerationNode*>& sources,
                            const std::string& type) {
  YamlReader& r = ctx.reader();
  for (const GenerationNode* source : sources) {
    for (const YAML::Node& zone : r.items(ResolveContext::section_of(*source, "thermal_zones"), "zones")) {
      if (r.text(zone, "type") != type) continue;
      if (auto mc = r.integer<std::int32_t>(zone, "idle_mC")) {
        ctx.note("idle temperature of " + type + " taken from " + source->board_id + " " + source->key + " (A19)");
        return *mc;
      }
    }
  }
  ctx.note("idle temperature of " + type + " assumed (A19)");
  return assumed::kIdleMc;
}

// trips_C: ascending numbers in degC (strings are rejected by name).
std::vector<double> parse_trips(ResolveContext& ctx, const YAML::Node& zone, const std::string& type) {
  YamlReader& r = ctx.reader();
  std::vector<double> out;
  for (const YAML::Node& item : r.items(zone, "trips_C")) {
    const std::optional<std::string> text = r.value_text(item, "trips_C");
    char* end = nullptr;
    const double value = text ? std::strtod(text->c_str(), &end) : 0.0;
    if (!text || end == text->c_str() || *end != '\0' || (!out.empty() && value < out.back())) {
      r.fail(ErrorCode::kParse,
             "zone " + type + ": trips_C: '" + text.value_or("?") + "' is not a number in degC, ascending");
      return {};
    }
    out.push_back(value);
  }
  return out;
}

ThermalZoneSpec parse_zone(ResolveContext& ctx, const YAML::Node& node,
                           const std::vector<const GenerationNode*>& sources) {
  YamlReader& r = ctx.reader();
  ThermalZoneSpec zone;
  zone.index = r.integer<int>(node, "index");
  zone.type = r.text(node, "type").value_or("");
  if (zone.type.empty()) r.fail(ErrorCode::kParse, "a zone has no 'type'");
  const std::optional<std::int32_t> idle = r.integer<std::int32_t>(node, "idle_mC");
  zone.idle_mc = idle ? *idle : idle_elsewhere(ctx, sources, zone.type);
  zone.trips_c = parse_trips(ctx, node, zone.type);
  return zone;
}

std::string model(ResolveContext& ctx, const YAML::Node& identification) {
  const std::vector<std::string> models = ctx.reader().texts(identification, "model");
  if (!models.empty()) return models.front();
  ctx.note("device-tree model assumed (A20)");
  if (auto assumed_model = assumed::model_for_board(ctx.board().id)) return *assumed_model;
  return ctx.reader().text(ctx.board().node, "name").value_or(ctx.board().id);
}

std::vector<std::string> compatible(ResolveContext& ctx, const YAML::Node& identification) {
  YamlReader& r = ctx.reader();
  std::vector<std::string> out = r.texts(identification, "compatible");
  if (!out.empty()) return out;
  ctx.note("device-tree compatible assumed: module part number + SoC (A20)");
  const std::vector<std::string> parts = r.texts(ctx.board().node, "module_part_numbers");
  if (!parts.empty()) out.push_back("nvidia," + parts.front());
  out.push_back(r.text(identification, "compatible_soc").value_or("nvidia," + ctx.board().soc));
  return out;
}

// The reference's line when it belongs to this generation, else synthesised.
std::string release(ResolveContext& ctx, const YAML::Node& identification) {
  YamlReader& r = ctx.reader();
  const std::optional<std::string> given = r.text(identification, "nv_tegra_release");
  const std::string prefix = "# R" + std::to_string(ctx.l4t()) + " ";
  if (given && given->rfind(prefix, 0) == 0) return assumed::fill_release_placeholders(*given);
  ctx.note("/etc/nv_tegra_release synthesised (A20)");
  const std::optional<std::string> board_field = r.text(identification, "nv_tegra_release_board");
  return assumed::fill_release_placeholders(assumed::nv_tegra_release(ctx.l4t(), ctx.board().soc, board_field));
}

}  // namespace

std::vector<ThermalZoneSpec> resolve_thermal_zones(ResolveContext& ctx) {
  auto scope = ctx.reader().scope("thermal_zones");
  std::vector<ThermalZoneSpec> out;
  const std::vector<const GenerationNode*> sources = thermal_sources(ctx);
  for (const GenerationNode* source : sources) {
    const YAML::Node thermal = ResolveContext::section_of(*source, "thermal_zones");
    const std::vector<YAML::Node> zones = ctx.reader().items(thermal, "zones");
    if (zones.empty()) continue;
    if (source->board_id != ctx.board().id || source->l4t != ctx.l4t()) {
      ctx.note("thermal zones taken from " + source->board_id + " " + source->key + " (A19)");
    }
    for (const YAML::Node& zone : zones) out.push_back(parse_zone(ctx, zone, sources));
    break;
  }
  return out;
}

IdentitySpec resolve_identity(ResolveContext& ctx) {
  auto scope = ctx.reader().scope("identification");
  const YAML::Node identification = YamlReader::get(ctx.board().node, "identification");
  return IdentitySpec{model(ctx, identification), compatible(ctx, identification), release(ctx, identification)};
}

FanLayout resolve_fan(ResolveContext& ctx) {
  const std::optional<std::string> layout = ctx.reader().text(YamlReader::get(ctx.own(), "fan"), "layout");
  if (layout == "fan_pwm_l4t32") return FanLayout::kPwmFanL4t32;
  if (layout == "fan_hwmon") return FanLayout::kHwmon;
  if (layout) ctx.reader().fail(ErrorCode::kParse, "unknown fan layout '" + *layout + "'");
  ctx.note("fan layout chosen by generation (A21)");
  return ctx.l4t() <= 32 ? FanLayout::kPwmFanL4t32 : FanLayout::kHwmon;
}

}  // namespace energy::sim
