// `energyctl sweep --search` on a live board: libenergy's search_minimum
// (energy/sweep_search.h) with each measurement it asks for made as one run
// of the sweep (sweep_run_step.h), or taken from the sweep's stored runs
// when resuming (the search then retraces its steps without running
// anything twice); then the DVFS reference, and the search's summary on
// stderr.
//
// Thread-safety: for single-threaded programs (signal mask, run_child.h).
#pragma once

#include "sweep_run_step.h"

namespace energy::cli {

// Runs the search and the DVFS reference; kExitOk when done, else the exit
// code it stopped with (the sweep then is interrupted).
int run_search(const Context& ctx, Sweep& s, const SignalBlock& block, SweepLoop& loop, Progress& progress);

}  // namespace energy::cli
