// `energyctl sweep --search` on a live board: libenergy's search_minimum
// (energy/sweep_search.h), once per combination of --param values, with
// each measurement it asks for made as one run of the sweep
// (sweep_run_step.h), or taken from the sweep's stored runs when resuming
// (the search then retraces its steps without running anything twice);
// then the DVFS references, and each search's summary on stderr. Its
// progress total is an estimate (estimated_search_runs).
//
// Thread-safety: for single-threaded programs (signal mask, run_child.h).
#pragma once

#include <cstddef>
#include <vector>

#include "sweep_run_step.h"

namespace energy::cli {

// The runs a search is expected to make: a golden-section line search per
// axis (about log_phi(n) + 1 points, at most n), a second cycle over the
// axes that confirms the result (up to 2 points per axis), and the check of
// the result's neighbours (3^d - 1 points, fewer on axes shorter than 3);
// each point at `repeats` runs, capped by the whole grid and by `max_runs`
// (0: none). An estimate: extra repeats to separate close points and
// fallbacks add runs, a search that settles early saves some.
size_t estimated_search_runs(const std::vector<size_t>& axis_sizes, int repeats, size_t max_runs);

// Runs the search and the DVFS reference; kExitOk when done, else the exit
// code it stopped with (the sweep then is interrupted).
int run_search(const Context& ctx, Sweep& s, const SignalBlock& block, SweepLoop& loop, Progress& progress);

}  // namespace energy::cli
