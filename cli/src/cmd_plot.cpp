// energyctl plot RUN [--out FILE]: the run's power per rail over time with
// its clock events marked (run_plot.h), drawn by gnuplot into FILE (default
// run-<ID>-power.png in the current directory; the format follows FILE's
// ending). Reads the report (runs.show) and the readings (export with run,
// paged) as `energyctl export RUN` does. Exits kExitNoGnuplot without
// gnuplot, kExitFailed with gnuplot's stderr when it fails.
#include <filesystem>
#include <iostream>

#include "command.h"
#include "run_plot.h"

namespace energy::cli {
namespace {

using nlohmann::json;

struct RunPlotArgs {
  std::string run;
  std::string out;  // empty: run-<ID>-power.png
};

Result<RunPlotArgs> parse_run_plot(const Args& args) {
  if (args.words.empty()) return make_error(ErrorCode::kInvalid, "plot needs a RUN (id or name)");
  if (args.words.size() > 1)
    return make_error(ErrorCode::kInvalid, "plot takes one RUN, got '" + args.words[1] + "' after it");
  RunPlotArgs a{args.words.front(), ""};
  auto applied = for_each_option(args, [&](const std::string&, const std::string& value) -> Status {
    if (auto f = format_of_file(value); !f) return f.take_error();
    a.out = value;
    return ok_status();
  });
  if (!applied) return applied.take_error();
  return a;
}

Result<std::vector<json>> run_rows(Client& client, int64_t run_id) {
  std::vector<json> rows;
  json args = {{"run", run_id}};
  for (;;) {
    auto page = client.call("export", args);
    if (!page) return page.take_error();
    for (const auto& r : member(*page, "rows")) rows.push_back(r);
    if (!page->value("truncated", false)) return rows;
    args["since_ns"] = (*page)["next_since_ns"];
  }
}

Result<std::string> output_path(const std::string& out, int64_t run_id) {
  std::error_code ec;
  auto path = std::filesystem::absolute(out.empty() ? "run-" + std::to_string(run_id) + "-power.png" : out, ec);
  if (ec) return make_error(ErrorCode::kInvalid, "--out '" + out + "': " + ec.message());
  if (!std::filesystem::is_directory(path.parent_path(), ec))
    return make_error(ErrorCode::kInvalid, "--out '" + out + "': no directory " + path.parent_path().string());
  return path.lexically_normal().string();
}

int draw(const std::string& gnuplot, const json& report, const std::vector<json>& rows, const std::string& path) {
  PlotOptions o;
  auto format = format_of_file(path);
  if (!format) return report_failure(format.error());
  o.format = *format;
  auto plot = run_power_plot(report, rows, o, path);
  if (!plot) return report_failure(plot.error());
  if (auto st = render_plot(gnuplot, *plot); !st) return report_failure_lines(st.error());
  std::cout << path << "\n";
  return kExitOk;
}

}  // namespace

int cmd_plot(const Context& ctx, const Args& args) {
  auto a = parse_run_plot(args);
  if (!a) return usage_error(ctx, a.error().message);
  auto gnuplot = find_gnuplot();
  if (!gnuplot) {
    print_error(gnuplot.error().message);
    return kExitNoGnuplot;
  }
  auto client = connect_daemon(ctx);
  if (!client) return report_failure(client.error());
  auto report = client->call("runs.show", {{"run", a->run}});
  if (!report) return report_failure(report.error());
  int64_t id = member(*report, "run").value("id", int64_t{0});
  auto path = output_path(a->out, id);
  if (!path) return usage_error(ctx, path.error().message);
  auto rows = run_rows(*client, id);
  if (!rows) return report_failure(rows.error());
  return draw(*gnuplot, *report, *rows, *path);
}

}  // namespace energy::cli
