// GPU: the devfreq name and paths change per generation (gp10b / gv11b /
// ga10b -> gpu; /sys/devices -> /sys/devices/platform/bus@0), so they come
// from the generation itself or are derived from its naming (A15). The
// frequency table and governors belong to the GPU and may come from another
// generation of the board (A16-A18 where none states them).
#include <algorithm>

#include "assumptions.h"
#include "path_util.h"
#include "resolve.h"

namespace energy::sim {
namespace {

std::vector<std::string> devfreq_names(ResolveContext& ctx, const YAML::Node& gpu) {
  YamlReader& r = ctx.reader();
  std::vector<std::string> names = r.texts(gpu, "devfreq_names");
  if (!names.empty()) return names;
  if (auto name = r.text(gpu, "devfreq_name")) return {*name};
  if (auto link = r.text(gpu, "class_link")) return {base_name(*link)};
  if (auto name = ctx.nearest_text("gpu", {"devfreq_name"})) return {*name};
  return {};
}

// jetson_clocks' rule, read backwards: the devfreq device "17000000.ga10b"
// is DT node ga10b@17000000, whose `name` property is "ga10b".
void resolve_of_node(ResolveContext& ctx, const YAML::Node& gpu, GpuSpec& g) {
  const std::size_t dot = g.devfreq_name.find('.');
  if (YamlReader::has_key(gpu, "of_node_name")) {
    g.of_node_name = ctx.reader().text(gpu, "of_node_name").value_or("");
  } else if (dot != std::string::npos) {
    g.of_node_name = g.devfreq_name.substr(dot + 1);
    ctx.note("gpu of_node name derived from " + g.devfreq_name + " (A15)");
  }
  if (g.of_node_name.empty() || dot == std::string::npos) return;
  const std::string bus = ctx.l4t() >= 36 ? "bus@0/" : "";
  g.of_node_dir = "/sys/firmware/devicetree/base/" + bus + g.of_node_name + "@" + g.devfreq_name.substr(0, dot);
}

void resolve_paths(ResolveContext& ctx, const YAML::Node& gpu, GpuSpec& g) {
  YamlReader& r = ctx.reader();
  g.devfreq_dir = r.text(gpu, "devfreq_dir").value_or("");
  if (g.devfreq_dir.empty()) {
    g.devfreq_dir = assumed::gpu_devfreq_dir(ctx.l4t(), g.devfreq_name);
    ctx.note("gpu devfreq dir derived: " + g.devfreq_dir + " (A15)");
  }
  const bool is_virtual = g.devfreq_dir.rfind("/sys/devices/virtual/", 0) == 0;
  g.parent_dir = is_virtual ? "" : parent_path(parent_path(g.devfreq_dir));
  const std::string class_link = "/sys/class/devfreq/" + g.devfreq_name;
  for (const std::string& alias : r.texts(gpu, "aliases")) {
    if (alias != class_link) g.aliases.push_back(alias);
  }
}

// Where `load` lives: the data's device_dir or load_file; none when the data
// names another load source (Thor: NVML); else derived per generation (A15).
void resolve_device_dir(ResolveContext& ctx, const YAML::Node& gpu, GpuSpec& g) {
  YamlReader& r = ctx.reader();
  if (auto dir = r.text(gpu, "device_dir")) {
    g.device_dir = *dir;
  } else if (auto load = r.text(gpu, "load_file")) {
    g.device_dir = parent_path(*load);
  } else if (!YamlReader::has_key(gpu, "load_source")) {
    g.device_dir = assumed::gpu_load_dir(ctx.l4t(), g.devfreq_dir);
    ctx.note("gpu load file derived: " + g.device_dir + "/load (A15)");
  }
}

std::vector<std::uint64_t> resolve_gpu_table(ResolveContext& ctx) {
  auto table =
      ctx.nearest_integers<std::uint64_t>("gpu", {"available_frequencies_Hz", "available_frequencies_Hz_later"});
  if (!table.empty()) return table;
  if (auto top = ctx.nearest_integer<std::uint64_t>("gpu", {"available_frequencies_Hz_top_15W"})) {
    ctx.note("gpu frequency table: 102 MHz grid up to " + std::to_string(*top) + " Hz (A16)");
    return assumed::gpu_grid_up_to(*top);
  }
  table = assumed::gpu_table_for_soc(ctx.board().soc);
  if (!table.empty()) ctx.note("gpu frequency table assumed (A17)");
  return table;
}

void resolve_governors(ResolveContext& ctx, GpuSpec& g) {
  g.governors = ctx.nearest_texts("gpu", {"available_governors"});
  if (g.governors.empty()) g.governors = assumed::gpu_governors();
  g.default_governor = ctx.nearest_text("gpu", {"default_governor"}).value_or(assumed::kGpuGovernor);
  if (std::find(g.governors.begin(), g.governors.end(), g.default_governor) == g.governors.end()) {
    ctx.reader().fail(ErrorCode::kParse, "default governor '" + g.default_governor + "' is not available");
  }
}

GpuSpec resolve_gpu(ResolveContext& ctx, const YAML::Node& gpu, const std::string& name) {
  GpuSpec g;
  g.devfreq_name = name;
  resolve_paths(ctx, gpu, g);
  resolve_of_node(ctx, gpu, g);
  resolve_device_dir(ctx, gpu, g);
  g.available_hz = resolve_gpu_table(ctx);
  std::sort(g.available_hz.begin(), g.available_hz.end());
  if (g.available_hz.empty()) ctx.reader().fail(ErrorCode::kNotFound, "no gpu frequency table for " + name);
  resolve_governors(ctx, g);
  const std::uint64_t table_max = g.available_hz.empty() ? 0 : g.available_hz.back();
  g.default_max_hz = ctx.nearest_integer<std::uint64_t>("gpu", {"default_max_Hz_in_capture"}).value_or(table_max);
  g.idle_gated = YamlReader::has_key(gpu, "gated_behaviour");
  g.podgov_tunables = YamlReader::has_key(gpu, "podgov_tunables");
  return g;
}

}  // namespace

std::vector<GpuSpec> resolve_gpus(ResolveContext& ctx) {
  auto scope = ctx.reader().scope("gpu");
  const YAML::Node gpu = YamlReader::get(ctx.own(), "gpu");
  std::vector<GpuSpec> out;
  for (const std::string& name : devfreq_names(ctx, gpu)) out.push_back(resolve_gpu(ctx, gpu, name));
  if (out.empty()) ctx.reader().fail(ErrorCode::kNotFound, "no gpu devfreq name in any generation");
  return out;
}

}  // namespace energy::sim
