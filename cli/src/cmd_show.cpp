// energyctl show RUN [--json]: the report of one run (runs.show), by id or
// name (the newest run of that name), rendered as `mark stop` renders it.
// An open run is reported up to its newest stored reading.
#include <iostream>

#include "command.h"

namespace energy::cli {

int cmd_show(const Context& ctx, const Args& args) {
  if (args.words.size() != 1) return usage_error(ctx, "show needs exactly one run id or name: energyctl show RUN");
  auto out = call_daemon(ctx, "runs.show", {{"run", args.words.front()}});
  if (out.exit_code != kExitOk) return out.exit_code;
  if (ctx.json)
    print_json(out.result);
  else
    std::cout << render_report(out.result);
  return kExitOk;
}

}  // namespace energy::cli
