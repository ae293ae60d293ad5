// Rendering plots with gnuplot (an optional dependency: Debian package
// gnuplot-nox). A plot is a gnuplot script plus the data files it reads by
// bare name; render_plot writes them into a fresh temporary directory, runs
// `gnuplot script.gp` there as a child process (never through a shell; PATH
// searched; stdin /dev/null, stdout and stderr captured) and removes the
// directory afterwards. Output paths inside the script must be absolute
// (the script starts by changing into the temporary directory).
//
// gnuplot_string quotes text for a gnuplot single-quoted string: a quote
// doubles, control characters become spaces; the terminals are set
// `noenhanced`, so no other character is special.
//
// Thread-safety: render_plot is for single-threaded programs (it waits for
// its child); the rest are pure functions.
#pragma once

#include <string>
#include <vector>

#include "energy/result.h"

namespace energy::cli {

// What to install when gnuplot is missing, for messages and docs.
constexpr const char* kGnuplotPackage = "gnuplot-nox";

struct PlotData {
  std::string name;  // a bare file name, e.g. "points.dat"
  std::string text;
};

struct Plot {
  std::string output;  // absolute path of the image written
  std::string script;  // gnuplot commands; reads the data by bare name
  std::vector<PlotData> data;
};

std::string gnuplot_string(const std::string& text);

// The gnuplot on PATH, or kNotFound with a message saying what to install.
Result<std::string> find_gnuplot();

// Errors: kNotFound without gnuplot; kIo when the temporary files cannot be
// written or gnuplot cannot start; kUnsupported when gnuplot fails (the
// message carries its exit status and its stderr).
Status render_plot(const std::string& gnuplot, const Plot& plot);

}  // namespace energy::cli
