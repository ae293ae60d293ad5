// energyctl export RUN [--csv | --json | --format csv|json] [--rail R]:
// one run's summary (its report, runs.show) and its raw readings (the
// `export` verb with `run`: the readings of the run's boot between its start
// and stop), paged from the daemon and printed as they come.
//
// CSV: the report as text on lines starting with "# ", then the readings
// as `energyctl export` prints them. JSON: {"report": {...}, "rows": [...]},
// with "rows_note" when retention has downsampled part of the run (the rows
// are then only the raw readings left; CSV: a "# note:" line).
#include <functional>
#include <iostream>
#include <sstream>

#include "command.h"
#include "export_format.h"

namespace energy::cli {
namespace {

struct ExportRunArgs {
  std::string run;
  std::string rail;
  bool csv = true;
};

Status apply_format(const std::string& value, ExportRunArgs& a) {
  if (value != "csv" && value != "json")
    return make_error(ErrorCode::kInvalid, "--format must be csv or json, got '" + value + "'");
  a.csv = value == "csv";
  return ok_status();
}

Status apply(const std::string& flag, const std::string& value, ExportRunArgs& a) {
  if (flag == "--json" || flag == "--csv") {
    a.csv = flag == "--csv";
    return ok_status();
  }
  if (flag != "--rail" && flag != "--format") {
    return make_error(ErrorCode::kInvalid, "unknown option '" + flag +
                                               "' for export RUN (expected --csv, --json, "
                                               "--format or --rail)");
  }
  if (flag == "--format") return apply_format(value, a);
  if (value.empty()) return make_error(ErrorCode::kInvalid, "--rail needs a rail label, got ''");
  a.rail = value;
  return ok_status();
}

Result<ExportRunArgs> parse_export_run_args(const Context& ctx, const Args& args) {
  if (args.words.size() != 1)
    return make_error(ErrorCode::kInvalid, "export takes one RUN, got '" + args.words[1] + "' after it");
  ExportRunArgs a{args.words.front(), "", !ctx.json};
  auto applied =
      for_each_option(args, [&](const std::string& flag, const std::string& value) { return apply(flag, value, a); });
  if (!applied) return applied.take_error();
  return a;
}

std::string commented(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line)) out += line.empty() ? "#\n" : "# " + line + "\n";
  return out;
}

// Pages of the run's readings, each row handed to `emit`.
int stream_rows(Client& client, int64_t run_id, const std::string& rail,
                const std::function<void(const nlohmann::json&)>& emit) {
  nlohmann::json args = {{"run", run_id}};
  if (!rail.empty()) args["rail"] = rail;
  for (;;) {
    auto page = client.call("export", args);
    if (!page) return report_failure(page.error());
    for (const auto& r : member(*page, "rows")) emit(r);
    if (!page->value("truncated", false)) return kExitOk;
    args["since_ns"] = (*page)["next_since_ns"];
  }
}

}  // namespace

int cmd_export_run(const Context& ctx, const Args& args) {
  auto a = parse_export_run_args(ctx, args);
  if (!a) return usage_error(ctx, a.error().message);
  auto client = connect_daemon(ctx);
  if (!client) return report_failure(client.error());
  auto report = client->call("runs.show", {{"run", a->run}});
  if (!report) return report_failure(report.error());
  int64_t id = member(*report, "run").value("id", int64_t{0});
  const std::string note = downsampled_rows_note(*report);
  if (a->csv) {
    std::cout << commented(render_report(*report)) << (note.empty() ? "" : "# note: " + note + "\n") << csv_header();
    return stream_rows(*client, id, a->rail, [](const nlohmann::json& r) { std::cout << csv_row(r); });
  }
  std::cout << "{\"report\": " << report->dump() << ",\n";
  if (!note.empty()) std::cout << "\"rows_note\": " << nlohmann::json(note).dump() << ",\n";
  std::cout << "\"rows\": [";
  bool first = true;
  int code = stream_rows(*client, id, a->rail, [&first](const nlohmann::json& r) {
    std::cout << (first ? "\n" : ",\n") << r.dump();
    first = false;
  });
  std::cout << "\n]}\n";
  return code;
}

}  // namespace energy::cli
