// The plot of one run (`energyctl plot RUN`): each rail's power against the
// time since the run's start, from the run's export rows (the `export` verb
// with `run`, as `energyctl export RUN` gets them), with the clock events of
// the run's report (`clock_events`: pins, restores, external writers) drawn
// as dashed vertical lines labelled with their kind and domain. A failed
// read (a row with `errno`) breaks its rail's line: a gap, never a zero.
//
// Units: seconds since the report's run.start_ns (CLOCK_BOOTTIME), watts.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "energy/result.h"
#include "gnuplot_render.h"
#include "sweep_plot.h"

namespace energy::cli {

// The format an output file's name asks for (.png, .svg, .pdf).
// Errors: kInvalid naming the file for any other ending.
Result<PlotFormat> format_of_file(const std::string& path);

// `options.dir` is unused; the image goes to `path` (absolute). Errors: a
// report without run.start_ns, or no row with a reading.
Result<Plot> run_power_plot(const nlohmann::json& report, const std::vector<nlohmann::json>& rows,
                            const PlotOptions& options, const std::string& path);

}  // namespace energy::cli
