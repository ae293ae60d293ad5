#include "group_compare.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <vector>

#include "command.h"
#include "run_stats.h"
#include "table.h"
#include "terminal_text.h"

namespace energy::cli {
namespace {

using nlohmann::json;

struct GroupMetric {
  const char* key;
  const char* title;
  int decimals;
};
constexpr GroupMetric kMetrics[] = {{"energy_j", "ENERGY J", 4},
                                    {"energy_per_item_j", "J/ITEM", 6},
                                    {"duration_s", "DURATION s", 3},
                                    {"avg_power_w", "AVG W", 3}};

using Values = std::map<std::string, std::vector<double>>;  // metric key -> one value per run

struct Group {
  std::string value;
  std::vector<int64_t> runs;
  Values values;
};

// The run's figures; false when it has no energy (not comparable).
bool add_run(const json& run, Group& g) {
  const auto& s = member(run, "summary");
  auto energy = number_of(member(s, "energy_j"));
  if (!energy) return false;
  g.runs.push_back(run.value("id", int64_t{0}));
  g.values["energy_j"].push_back(*energy);
  auto items = number_of(member(run, "items"));
  if (items && *items > 0) g.values["energy_per_item_j"].push_back(*energy / *items);
  for (const char* key : {"duration_s", "avg_power_w"}) {
    if (auto v = number_of(member(s, key))) g.values[key].push_back(*v);
  }
  return true;
}

std::optional<double> as_number(const std::string& text) {
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

void order_groups(std::vector<Group>& groups) {
  bool numeric =
      std::all_of(groups.begin(), groups.end(), [](const Group& g) { return as_number(g.value).has_value(); });
  std::sort(groups.begin(), groups.end(), [numeric](const Group& a, const Group& b) {
    return numeric ? *as_number(a.value) < *as_number(b.value) : a.value < b.value;
  });
}

json summary_json(const Summary& s) {
  return {{"n", s.n},
          {"mean", s.mean},
          {"stddev", json_or_null(s.stddev)},
          {"ci95_low", s.ci95_half ? json(s.ci95_low()) : json()},
          {"ci95_high", s.ci95_half ? json(s.ci95_high()) : json()}};
}

json difference_json(const Summary& ref, const Summary& other) {
  Difference d = welch_difference(ref, other);
  json pct = ref.mean != 0.0 ? json(d.diff / std::fabs(ref.mean) * 100.0) : json();
  return {{"diff", d.diff},
          {"diff_pct", pct},
          {"ci95_low", d.ci95_half ? json(d.diff - *d.ci95_half) : json()},
          {"ci95_high", d.ci95_half ? json(d.diff + *d.ci95_half) : json()},
          {"df", json_or_null(d.df)}};
}

std::map<std::string, Summary> summaries(const Group& g) {
  std::map<std::string, Summary> out;
  for (const auto& [key, values] : g.values) {
    if (auto s = summarize(values)) out[key] = *s;
  }
  return out;
}

json group_json(const Group& g, const std::map<std::string, Summary>& ref) {
  json metrics = json::object(), diffs = json::object();
  for (const auto& [key, s] : summaries(g)) {
    metrics[key] = summary_json(s);
    auto r = ref.find(key);
    if (r != ref.end()) diffs[key] = difference_json(r->second, s);
  }
  json out = {{"value", g.value}, {"n", g.runs.size()}, {"runs", g.runs}, {"metrics", metrics}};
  if (!ref.empty()) out["vs_reference"] = diffs;
  return out;
}

std::vector<Group> grouped(const json& runs, const std::string& tag, json& skipped) {
  std::map<std::string, Group> by_value;
  for (const auto& run : runs) {
    const auto& value = member(member(run, "tags"), tag.c_str());
    bool used = value.is_string() && add_run(run, by_value[value.get<std::string>()]);
    if (!used) skipped.push_back(run.value("id", int64_t{0}));
  }
  std::vector<Group> out;
  for (auto& [value, g] : by_value) {
    if (g.runs.empty()) continue;
    g.value = value;
    out.push_back(std::move(g));
  }
  order_groups(out);
  return out;
}

}  // namespace

json group_compare_json(const json& runs, const std::string& tag) {
  json skipped = json::array(), groups = json::array();
  auto list = grouped(runs, tag, skipped);
  std::map<std::string, Summary> ref;
  for (size_t i = 0; i < list.size(); ++i) {
    groups.push_back(group_json(list[i], ref));
    if (i == 0) ref = summaries(list[0]);
  }
  return {{"by", tag}, {"groups", groups}, {"skipped_runs", skipped}};
}

namespace {

// "12.3456 ±0.1234" (mean and the 95% half-width), or the mean alone.
std::string mean_cell(const json& m, int decimals) {
  if (!m.is_object()) return "-";
  std::string text = fixed(m["mean"].get<double>(), decimals);
  if (m["ci95_high"].is_number())
    text += " ±" + fixed(m["ci95_high"].get<double>() - m["mean"].get<double>(), decimals);
  return text;
}

// "+1.2345 [+0.5, +2.0] +3.1%" (difference, its 95% interval, percent).
std::string diff_cell(const json& d, int decimals) {
  if (!d.is_object()) return "-";
  auto signed_text = [decimals](double v) { return (v >= 0 ? "+" : "") + fixed(v, decimals); };
  std::string text = signed_text(d["diff"].get<double>());
  if (d["ci95_low"].is_number()) {
    text += " [" + signed_text(d["ci95_low"].get<double>()) + ", " + signed_text(d["ci95_high"].get<double>()) + "]";
  }
  if (d["diff_pct"].is_number())
    text +=
        " " + (d["diff_pct"].get<double>() >= 0 ? std::string("+") : "") + fixed(d["diff_pct"].get<double>(), 1) + "%";
  return text;
}

std::vector<Table::Column> columns(const std::string& first) {
  std::vector<Table::Column> cols = {{first}, {"N", Align::kRight}};
  for (const auto& m : kMetrics) cols.push_back({m.title, Align::kRight});
  return cols;
}

}  // namespace

std::string render_group_compare(const json& c) {
  const auto& groups = member(c, "groups");
  if (groups.empty()) return "no stopped run has the tag " + terminal_safe(c.value("by", "")) + "\n";
  std::string tag = terminal_safe(c.value("by", ""));
  Table means(columns(tag)), diffs(columns("vs " + tag + "=" + terminal_safe(groups[0].value("value", ""))));
  for (const auto& g : groups) {
    std::vector<std::string> m = {terminal_safe(g.value("value", "")), std::to_string(g.value("n", 0))};
    std::vector<std::string> d = m;
    for (const auto& metric : kMetrics) {
      m.push_back(mean_cell(member(member(g, "metrics"), metric.key), metric.decimals));
      d.push_back(diff_cell(member(member(g, "vs_reference"), metric.key), metric.decimals));
    }
    means.add_row(m);
    if (g.contains("vs_reference")) diffs.add_row(d);
  }
  std::string out = means.render() + "(mean ±95% CI, Student t)\n";
  if (groups.size() > 1) out += "\n" + diffs.render() + "(difference from the first group [95% CI, Welch], %)\n";
  if (!member(c, "skipped_runs").empty())
    out +=
        "note: " + std::to_string(c["skipped_runs"].size()) + " run(s) without the tag or an energy figure left out\n";
  return out;
}

}  // namespace energy::cli
