#include "run_list.h"

#include "command.h"
#include "report_sections.h"
#include "table.h"
#include "terminal_text.h"
#include "time_arg.h"

namespace energy::cli {
namespace {

std::string name_text(const nlohmann::json& run) {
  const auto& kind = member(member(run, "tags"), "energyd.kind");
  std::string name = run.value("name", "");
  if (kind.is_string() && kind.get<std::string>() == "baseline") name += " [baseline]";
  return name;
}

// Energy per item of the run's summary, or "-" (no items, no energy).
std::string per_item(const nlohmann::json& run) {
  const auto& items = member(run, "items");
  const auto& energy = member(member(run, "summary"), "energy_j");
  if (!items.is_number() || !energy.is_number() || items.get<double>() <= 0) return "-";
  return fixed(energy.get<double>() / items.get<double>(), 6);
}

// The stored verdict: PASS, WARN, or FAIL with the checks that failed; "-"
// while open or not judged.
std::string quality_cell(const nlohmann::json& run) {
  const auto& q = member(run, "quality");
  if (!q.is_object()) return "-";
  std::string out = verdict_word(q.value("verdict", ""));
  std::string failed;
  for (const auto& f : member(q, "failed")) {
    if (f.is_string()) failed += (failed.empty() ? "" : ",") + f.get<std::string>();
  }
  if (!failed.empty()) out += " " + failed;
  return terminal_safe(out);
}

}  // namespace

Result<RunPage> fetch_runs(const Context& ctx, const nlohmann::json& filter, int64_t limit) {
  auto client = connect_daemon(ctx);
  if (!client) return client.take_error();
  RunPage out;
  nlohmann::json args = filter;
  while (static_cast<int64_t>(out.runs.size()) < limit) {
    args["limit"] = limit - static_cast<int64_t>(out.runs.size());
    auto page = client->call("runs.list", args);
    if (!page) return page.take_error();
    for (auto& r : (*page)["runs"]) out.runs.push_back(std::move(r));
    out.more = page->contains("next_before_id");
    if (!out.more) break;
    args["before_id"] = (*page)["next_before_id"];
  }
  return out;
}

std::string compact_tags(const nlohmann::json& tags) {
  std::string out;
  if (!tags.is_object()) return "-";
  for (const auto& [key, value] : tags.items()) {
    if (key.rfind("energyd.", 0) == 0) continue;
    out += (out.empty() ? "" : ",") + key + "=" + (value.is_string() ? value.get<std::string>() : value.dump());
  }
  if (out.empty()) return "-";
  out = terminal_safe(out);
  if (out.size() <= kMaxTagsChars) return out;
  size_t cut = kMaxTagsChars - 3;
  while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 sequence
  return out.substr(0, cut) + "...";
}

std::string render_run_list(const nlohmann::json& runs) {
  if (!runs.is_array() || runs.empty()) return "no runs match\n";
  Table t({{"ID", Align::kRight},
           {"NAME"},
           {"STATE"},
           {"START"},
           {"DURATION", Align::kRight},
           {"ENERGY J", Align::kRight},
           {"AVG W", Align::kRight},
           {"J/ITEM", Align::kRight},
           {"QUALITY"},
           {"TAGS"}});
  for (const auto& r : runs) {
    const auto& s = member(r, "summary");
    const auto& duration = member(s, "duration_s");
    t.add_row({std::to_string(r.value("id", int64_t{0})), name_text(r), r.value("state", ""),
               format_local_ns(r.value("start_wall_ns", int64_t{0})),
               duration.is_number() ? duration_text(duration.get<double>()) : "-",
               number_text(member(s, "energy_j"), 4), number_text(member(s, "avg_power_w"), 3), per_item(r),
               quality_cell(r), compact_tags(member(r, "tags"))});
  }
  return t.render();
}

}  // namespace energy::cli
