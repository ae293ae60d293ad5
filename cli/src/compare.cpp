#include "compare.h"

#include <cmath>
#include <set>

#include "command.h"
#include "report_sections.h"
#include "table.h"

namespace energy::cli {
namespace {

struct Metric {
  const char* key;    // in the JSON
  const char* title;  // in the table
  const char* unit;
  int decimals;
};
constexpr Metric kDuration{"duration_s", "DURATION s", "s", 3};
constexpr Metric kEnergy{"energy_j", "ENERGY J", "J", 4};
constexpr Metric kNet{"net_j", "NET J", "J", 4};
constexpr Metric kAvg{"avg_power_w", "AVG W", "W", 3};
constexpr Metric kPeak{"peak_power_w", "PEAK W", "W", 3};
constexpr Metric kPerItem{"energy_per_item_j", "J/ITEM", "J", 6};
constexpr Metric kNetPerItem{"net_per_item_j", "NET J/ITEM", "J", 6};

std::optional<double> metric_value(const nlohmann::json& rep, const Metric& m, const std::string& rail) {
  if (std::string(m.key) == kDuration.key) return number_of(member(rep, "duration_s"));
  if (rail.empty()) return number_of(member(member(rep, "total"), m.key));
  for (const auto& r : member(rep, "rails")) {
    if (r.value("label", "") == rail) return number_of(member(r, m.key));
  }
  return std::nullopt;
}

// A figure's precision: precision_j, else (an older energyd) error_bound_j.
std::optional<double> precision_of(const nlohmann::json& rep, const std::string& rail) {
  static const nlohmann::json kNone;
  const nlohmann::json* stats = &member(rep, "total");
  if (!rail.empty()) {
    stats = &kNone;
    for (const auto& r : member(rep, "rails")) {
      if (r.value("label", "") == rail) stats = &r;
    }
  }
  if (auto p = number_of(member(*stats, "precision_j"))) return p;
  return number_of(member(*stats, "error_bound_j"));
}

// precision_j, combined_precision_j and exceeds_precision of an energy row (compare.h).
void add_precision(nlohmann::json& row, const std::vector<nlohmann::json>& reports, const std::string& rail) {
  nlohmann::json precisions = nlohmann::json::array(), combined = nlohmann::json::array(),
                 exceeds = nlohmann::json::array();
  std::optional<double> first = metric_value(reports.front(), kEnergy, rail);
  std::optional<double> first_p = precision_of(reports.front(), rail);
  for (size_t i = 0; i < reports.size(); ++i) {
    auto v = metric_value(reports[i], kEnergy, rail);
    auto p = precision_of(reports[i], rail);
    precisions.push_back(json_or_null(p));
    bool known = i > 0 && first_p && p;
    combined.push_back(known ? nlohmann::json(std::hypot(*first_p, *p)) : nlohmann::json());
    auto e = i > 0 ? exceeds_precision(first, first_p, v, p) : std::nullopt;
    exceeds.push_back(e ? nlohmann::json(*e) : nlohmann::json());
  }
  row["precision_j"] = precisions;
  row["combined_precision_j"] = combined;
  row["exceeds_precision"] = exceeds;
}

nlohmann::json metric_row(const std::vector<nlohmann::json>& reports, const Metric& m, const std::string& rail) {
  nlohmann::json values = nlohmann::json::array(), diffs = nlohmann::json::array();
  std::optional<double> first = metric_value(reports.front(), m, rail);
  for (size_t i = 0; i < reports.size(); ++i) {
    auto v = metric_value(reports[i], m, rail);
    values.push_back(json_or_null(v));
    diffs.push_back(i == 0 ? nlohmann::json() : json_or_null(percent_difference(first, v)));
  }
  nlohmann::json row = {{"metric", m.key}, {"unit", m.unit}, {"values", values}, {"diff_pct", diffs}};
  if (!rail.empty()) row["rail"] = rail;
  if (std::string(m.key) == kEnergy.key) add_precision(row, reports, rail);
  return row;
}

// True when some report's total has `key` (net energy, per-item figures).
bool any_total_has(const std::vector<nlohmann::json>& reports, const char* key) {
  for (const auto& r : reports) {
    if (member(member(r, "total"), key).is_number()) return true;
  }
  return false;
}

// Rails in the order they first appear.
std::vector<std::string> rail_labels(const std::vector<nlohmann::json>& reports) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const auto& rep : reports) {
    for (const auto& r : member(rep, "rails")) {
      std::string label = r.value("label", "");
      if (seen.insert(label).second) out.push_back(label);
    }
  }
  return out;
}

const Metric& metric_named(const std::string& key) {
  for (const Metric* m : {&kDuration, &kEnergy, &kNet, &kAvg, &kPeak, &kPerItem, &kNetPerItem}) {
    if (key == m->key) return *m;
  }
  return kEnergy;
}

// '*': the difference exceeds the combined precision; '~': within it; nothing: not known.
std::string precision_mark(const nlohmann::json& exceeds) {
  if (!exceeds.is_boolean()) return "";
  return exceeds.get<bool>() ? "*" : "~";
}

std::string cell(const nlohmann::json& value, const nlohmann::json& diff, const nlohmann::json& exceeds, int decimals) {
  if (!value.is_number()) return "-";
  std::string text = fixed(value.get<double>(), decimals);
  if (diff.is_number()) {
    text += " (" + std::string(diff.get<double>() >= 0 ? "+" : "") + fixed(diff.get<double>(), 1) + "%" +
            precision_mark(exceeds) + ")";
  }
  return text;
}

}  // namespace

std::optional<double> percent_difference(std::optional<double> first, std::optional<double> value) {
  if (!first || !value || *first == 0.0) return std::nullopt;
  return (*value - *first) / std::fabs(*first) * 100.0;
}

std::optional<bool> exceeds_precision(std::optional<double> first, std::optional<double> first_precision,
                                      std::optional<double> value, std::optional<double> precision) {
  if (!first || !first_precision || !value || !precision) return std::nullopt;
  return std::fabs(*value - *first) > std::hypot(*first_precision, *precision);
}

nlohmann::json compare_json(const std::vector<nlohmann::json>& reports) {
  nlohmann::json runs = nlohmann::json::array(), metrics = nlohmann::json::array();
  if (reports.empty()) return {{"runs", runs}, {"metrics", metrics}};
  for (const auto& rep : reports) {
    const auto& run = member(rep, "run");
    const auto& q = member(rep, "quality");
    nlohmann::json verdict = q.is_object() && q.contains("verdict") ? q["verdict"] : nlohmann::json();
    runs.push_back({{"id", run.value("id", int64_t{0})},
                    {"name", run.value("name", "")},
                    {"state", run.value("state", "")},
                    {"quality", verdict}});
  }
  std::vector<Metric> totals = {kDuration, kEnergy};
  if (any_total_has(reports, kNet.key)) totals.push_back(kNet);
  totals.push_back(kAvg);
  totals.push_back(kPeak);
  for (const Metric* m : {&kPerItem, &kNetPerItem}) {
    if (any_total_has(reports, m->key)) totals.push_back(*m);
  }
  for (const auto& m : totals) metrics.push_back(metric_row(reports, m, ""));
  for (const auto& rail : rail_labels(reports)) metrics.push_back(metric_row(reports, kEnergy, rail));
  return {{"runs", runs}, {"metrics", metrics}};
}

std::string render_compare(const nlohmann::json& c) {
  std::vector<Table::Column> cols = {{"METRIC"}};
  for (const auto& r : member(c, "runs")) {
    cols.push_back({std::to_string(r.value("id", int64_t{0})) + " " + r.value("name", ""), Align::kRight});
  }
  Table t(cols);
  std::vector<std::string> quality = {"quality"};
  bool failed = false;
  for (const auto& r : member(c, "runs")) {
    const auto& v = member(r, "quality");
    quality.push_back(verdict_word(v.is_string() ? v.get<std::string>() : ""));
    failed |= v == "fail";
  }
  t.add_row(quality);
  for (const auto& m : member(c, "metrics")) {
    const Metric& metric = metric_named(m.value("metric", ""));
    std::vector<std::string> row = {m.contains("rail") ? m.value("rail", "") + " J" : metric.title};
    const auto& values = member(m, "values");
    const auto& diffs = member(m, "diff_pct");
    const auto& exceeds = member(m, "exceeds_precision");
    static const nlohmann::json kNoDiff;  // null: no difference to show
    for (size_t i = 0; i < values.size(); ++i) {
      const nlohmann::json& e = exceeds.is_array() && i < exceeds.size() ? exceeds[i] : kNoDiff;
      row.push_back(cell(values[i], i < diffs.size() ? diffs[i] : kNoDiff, e, metric.decimals));
    }
    t.add_row(row);
  }
  return t.render() +
         "(%: difference to the first run; *: more than the two runs' combined precision, ~: within it)\n" +
         (failed ? "a run that FAILed its quality gate does not measure what it names: energyctl show RUN says why\n"
                 : "");
}

}  // namespace energy::cli
