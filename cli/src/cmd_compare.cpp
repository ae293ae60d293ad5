// energyctl compare RUN RUN... [--json]: the runs' reports (runs.show) side
// by side, with each figure's difference to the first run (compare.h).
#include <iostream>

#include "command.h"
#include "compare.h"

namespace energy::cli {

int cmd_compare(const Context& ctx, const Args& args) {
  const auto& runs = args.words;
  if (runs.size() < 2)
    return usage_error(ctx, "compare needs at least two run ids or names: energyctl compare RUN RUN...");
  auto client = connect_daemon(ctx);
  if (!client) return report_failure(client.error());
  std::vector<nlohmann::json> reports;
  for (const auto& run : runs) {
    auto rep = client->call("runs.show", {{"run", run}});
    if (!rep) return report_failure(rep.error());
    reports.push_back(std::move(rep).value());
  }
  auto comparison = compare_json(reports);
  if (ctx.json)
    print_json(comparison);
  else
    std::cout << render_compare(comparison);
  return kExitOk;
}

}  // namespace energy::cli
