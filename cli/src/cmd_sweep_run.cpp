// energyctl sweep [OPTIONS] -- CMD ... and sweep --resume ID: running a
// sweep is written on another branch (wave4/sweeprun), which replaces this
// file. Until then this build says so and exits with a usage error.
#include "command.h"

namespace energy::cli {

int cmd_sweep_run(const Context& ctx, const Args&) {
  return usage_error(ctx,
                     "running a sweep (energyctl sweep [OPTIONS] -- CMD, or --resume ID) is not available in this "
                     "build; `sweep show ID` and `sweep export ID` are");
}

}  // namespace energy::cli
