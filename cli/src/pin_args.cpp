#include "pin_args.h"

#include "table.h"

namespace energy::cli {
namespace {

using nlohmann::json;

Status set_domain(json& args, const std::string& name, const std::string& spec) {
  if (name.empty() || spec.empty())
    return make_error(ErrorCode::kInvalid, "--domain needs NAME=FREQ, e.g. cpu4=1.2GHz");
  if (args["domains"].contains(name)) return make_error(ErrorCode::kInvalid, "domain '" + name + "' given twice");
  args["domains"][name] = spec;
  return ok_status();
}

Status set_domain_option(json& args, const std::string& value) {
  size_t eq = value.find('=');
  if (eq == std::string::npos) return make_error(ErrorCode::kInvalid, "--domain needs NAME=FREQ, e.g. cpu4=1.2GHz");
  return set_domain(args, value.substr(0, eq), value.substr(eq + 1));
}

}  // namespace

json empty_pin_args() { return {{"domains", json::object()}}; }

bool is_pin_option(const std::string& flag) {
  return flag == "--cpu" || flag == "--gpu" || flag == "--emc" || flag == "--domain" || flag == "--governor";
}

bool is_pin_flag(const std::string& flag) { return flag == "--allow-offline-cpus"; }

Status apply_pin_option(const std::string& flag, const std::string& value, json& args) {
  if (flag == "--cpu" || flag == "--gpu" || flag == "--emc") return set_domain(args, flag.substr(2), value);
  if (flag == "--domain") return set_domain_option(args, value);
  if (flag == "--governor") {
    if (value.empty()) return make_error(ErrorCode::kInvalid, "--governor needs a governor name, e.g. performance");
    args["governor"] = value;
    return ok_status();
  }
  if (flag == "--allow-offline-cpus") {
    args["allow_offline_cpus"] = true;
    return ok_status();
  }
  return make_error(ErrorCode::kInvalid, "'" + flag + "' is not a clock option");
}

std::string exact_mhz(int64_t hz) {
  constexpr int64_t kHzPerMhz = 1'000'000;
  std::string sign = hz < 0 ? "-" : "";
  uint64_t magnitude = hz < 0 ? 0 - static_cast<uint64_t>(hz) : static_cast<uint64_t>(hz);
  std::string text = sign + std::to_string(magnitude / kHzPerMhz);
  std::string digits = std::to_string(magnitude % kHzPerMhz);
  digits = std::string(6 - digits.size(), '0') + digits;
  while (!digits.empty() && digits.back() == '0') digits.pop_back();
  return digits.empty() ? text : text + "." + digits;
}

std::string mhz_text(const json& hz) {
  if (!hz.is_number_integer()) return "-";
  return exact_mhz(hz.get<int64_t>());
}

std::string range_text(const json& lo, const json& hi) {
  return lo == hi ? mhz_text(lo) : mhz_text(lo) + ".." + mhz_text(hi);
}

bool pins_anything(const json& args) { return args.contains("domains") && !args["domains"].empty(); }

}  // namespace energy::cli
