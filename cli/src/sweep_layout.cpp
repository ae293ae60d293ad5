#include "sweep_layout.h"

#include "energy/sweep_plan.h"
#include "pin_args.h"

namespace energy::cli {
namespace {

using nlohmann::json;

Error unreadable_spec(const std::string& what) {
  return make_error(ErrorCode::kInvalid, "the sweep's stored spec cannot be read: " + what);
}

Result<ClockAxis> clock_axis(const json& c) {
  if (!c.is_object() || !c.value("domain", json()).is_string() || !c.value("hz", json()).is_array())
    return unreadable_spec("a clock axis needs \"domain\" and \"hz\"");
  ClockAxis axis;
  axis.domain = c["domain"].get<std::string>();
  for (const auto& hz : c["hz"]) {
    if (!hz.is_number_integer() || hz.get<int64_t>() <= 0)
      return unreadable_spec("clock axis " + axis.domain + " holds a frequency that is not whole Hz above 0");
    axis.index.push_back(axis.hz.size());
    axis.hz.push_back(hz.get<int64_t>());
  }
  return axis;
}

Result<ParamAxis> param_axis(const json& p) {
  if (!p.is_object() || !p.value("name", json()).is_string() || !p.value("values", json()).is_array())
    return unreadable_spec("a parameter needs \"name\" and \"values\"");
  ParamAxis axis{p["name"].get<std::string>(), {}};
  for (const auto& v : p["values"]) {
    if (!v.is_string()) return unreadable_spec("parameter " + axis.name + " holds a value that is not text");
    axis.values.push_back(v.get<std::string>());
  }
  return axis;
}

Result<SweepAxes> axes_of(const json& axes) {
  if (!axes.is_object()) return unreadable_spec("no \"axes\" object");
  SweepAxes out;
  for (const auto& c : axes.value("clocks", json::array())) {
    auto axis = clock_axis(c);
    if (!axis) return axis.take_error();
    out.clocks.push_back(std::move(axis).value());
  }
  for (const auto& p : axes.value("params", json::array())) {
    auto axis = param_axis(p);
    if (!axis) return axis.take_error();
    out.params.push_back(std::move(axis).value());
  }
  return out;
}

LayoutPoint layout_point(const SweepAxes& axes, const SweepPoint& p) {
  LayoutPoint out;
  out.dvfs = p.dvfs;
  for (size_t i = 0; i < p.clock.size(); ++i) out.hz.push_back(axes.clocks[i].hz[p.clock[i]]);
  for (const auto& v : point_params(axes, p)) out.params.push_back(v.value);
  return out;
}

}  // namespace

Result<SweepLayout> sweep_layout(const json& spec) {
  if (!spec.is_object()) return unreadable_spec("it is not an object");
  auto axes = axes_of(spec.value("axes", json()));
  if (!axes) return axes.take_error();
  bool dvfs = spec.value("dvfs", json(false)).is_boolean() && spec["dvfs"].get<bool>();
  auto points = plan_points(*axes, dvfs ? DvfsReference::kPerParamValue : DvfsReference::kNone);
  if (!points) return unreadable_spec(points.error().message);
  SweepLayout out;
  for (const auto& c : axes->clocks) out.domains.push_back(c.domain);
  for (const auto& p : axes->params) out.params.push_back(p.name);
  for (const auto& p : *points) out.points.push_back(layout_point(*axes, p));
  const json& items = spec.value("items", json());
  if (items.is_object() && items.value("count", json()).is_number()) out.items_per_run = items["count"].get<double>();
  return out;
}

std::string point_label(const SweepLayout& layout, size_t point) {
  if (point >= layout.points.size()) return "point " + std::to_string(point);
  const LayoutPoint& p = layout.points[point];
  std::string out = p.dvfs ? "DVFS" : "";
  for (size_t i = 0; i < p.hz.size() && i < layout.domains.size(); ++i)
    out += (out.empty() ? "" : ", ") + layout.domains[i] + " " + exact_mhz(p.hz[i]) + " MHz";
  for (size_t i = 0; i < p.params.size() && i < layout.params.size(); ++i)
    out += (out.empty() ? "" : ", ") + layout.params[i] + "=" + p.params[i];
  return out;
}

}  // namespace energy::cli
