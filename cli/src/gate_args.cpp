#include "gate_args.h"

#include "number_arg.h"

namespace energy::cli {

std::vector<OptionSpec> gate_options(bool with_exclusive) {
  std::vector<OptionSpec> out = {
      {"--min-coverage", "PCT", "the run fails its quality gate under PCT % coverage by readings (default 98)"},
      {"--max-gap", "K", "... or with a stretch without readings longer than K sampling periods (default 2)"}};
  if (with_exclusive) {
    out.push_back({"--exclusive", "", "refuse to open while another run is open; an overlap fails the run"});
  }
  return out;
}

bool is_gate_option(const std::string& flag, bool with_exclusive) {
  return flag == "--min-coverage" || flag == "--max-gap" || (with_exclusive && flag == "--exclusive");
}

Status apply_gate_option(const std::string& flag, const std::string& value, nlohmann::json& start_args) {
  if (flag == "--exclusive") {
    start_args["exclusive"] = true;
    return ok_status();
  }
  auto n = parse_positive_option(flag, value);
  if (!n) return n.take_error();
  if (flag == "--min-coverage") {
    if (*n > 100) {
      return make_error(ErrorCode::kInvalid,
                        "--min-coverage takes a percentage above 0 and at most 100, got '" + value + "'");
    }
    start_args["min_coverage"] = *n / 100.0;
    return ok_status();
  }
  if (*n < 1 || *n > 1000) {
    return make_error(ErrorCode::kInvalid,
                      "--max-gap takes a number of sampling periods from 1 to 1000, got '" + value + "'");
  }
  start_args["max_gap_periods"] = *n;
  return ok_status();
}

}  // namespace energy::cli
