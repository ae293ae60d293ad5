// energyctl sweep plot ID [--out DIR] [--format png|svg|pdf]: the plots of
// sweep_plot.h rendered by gnuplot (gnuplot_render.h) into DIR (default the
// current directory), one file name printed per line. Without gnuplot it
// says what to install and exits kExitNoGnuplot; a gnuplot failure prints
// gnuplot's stderr and exits kExitFailed.
#include <filesystem>
#include <iostream>

#include "command.h"
#include "command_table.h"
#include "number_arg.h"
#include "sweep_plot.h"

namespace energy::cli {
namespace {

struct PlotArgs {
  int64_t id = 0;
  PlotOptions options;
};

Status apply_plot_option(const std::string& flag, const std::string& value, PlotOptions& o) {
  if (flag == "--out") {
    if (value.empty()) return make_error(ErrorCode::kInvalid, "--out needs a directory");
    o.dir = value;
    return ok_status();
  }
  if (flag != "--format") return make_error(ErrorCode::kInvalid, "sweep plot takes --out and --format, not " + flag);
  if (value != "png" && value != "svg" && value != "pdf")
    return make_error(ErrorCode::kInvalid, "--format must be png, svg or pdf, got '" + value + "'");
  o.format = value == "png" ? PlotFormat::kPng : value == "svg" ? PlotFormat::kSvg : PlotFormat::kPdf;
  return ok_status();
}

Status check_dir(PlotOptions& o) {
  std::error_code ec;
  auto dir = std::filesystem::absolute(o.dir.empty() ? "." : o.dir, ec);
  if (ec || !std::filesystem::is_directory(dir, ec))
    return make_error(ErrorCode::kInvalid, "--out '" + o.dir + "' is not a directory");
  o.dir = dir.lexically_normal().string();
  while (o.dir.size() > 1 && o.dir.back() == '/') o.dir.pop_back();
  return ok_status();
}

Result<PlotArgs> parse_plot_args(const Args& args) {
  if (args.words.size() < 2) return make_error(ErrorCode::kInvalid, "sweep plot needs a sweep ID");
  PlotArgs a;
  auto id = parse_whole_option("sweep plot ID", args.words[1], 1, INT64_MAX);
  if (!id) return id.take_error();
  a.id = *id;
  std::vector<std::string> rest(args.words.begin() + 2, args.words.end());
  auto parsed = parse_args({{"--out", "DIR", ""}, {"--format", "png|svg|pdf", ""}}, rest, false, "for sweep plot");
  if (!parsed) return parsed.take_error();
  if (!parsed->words.empty())
    return make_error(ErrorCode::kInvalid, "sweep plot takes one ID, got '" + parsed->words[0] + "' after it");
  parsed->options.insert(parsed->options.begin(), args.options.begin(), args.options.end());
  for (const auto& [flag, value] : parsed->options) {
    if (auto st = apply_plot_option(flag, value, a.options); !st) return st.take_error();
  }
  if (auto st = check_dir(a.options); !st) return st.take_error();
  return a;
}

int render_all(const std::string& gnuplot, const SweepPlots& plots) {
  for (const auto& note : plots.skipped) std::cerr << "energyctl: not drawn: " << note << "\n";
  for (const auto& plot : plots.plots) {
    if (auto st = render_plot(gnuplot, plot); !st) return report_failure_lines(st.error());
    std::cout << plot.output << "\n";
  }
  return plots.plots.empty() ? kExitFailed : kExitOk;
}

}  // namespace

int cmd_sweep_plot(const Context& ctx, const Args& args) {
  auto a = parse_plot_args(args);
  if (!a) return usage_error(ctx, a.error().message);
  auto gnuplot = find_gnuplot();
  if (!gnuplot) {
    print_error(gnuplot.error().message);
    return kExitNoGnuplot;
  }
  auto reply = call_daemon(ctx, "sweep.show", {{"sweep", a->id}});
  if (reply.exit_code != kExitOk) return reply.exit_code;
  auto results = sweep_results_from(reply.result);
  if (!results) return report_failure(results.error());
  return render_all(*gnuplot, sweep_plots(*results, a->options));
}

}  // namespace energy::cli
