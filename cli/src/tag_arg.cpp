#include "tag_arg.h"

namespace energy::cli {

Status add_tag_arg(const std::string& kv, nlohmann::json& tags) {
  size_t eq = kv.find('=');
  if (eq == 0 || eq == std::string::npos) return make_error(ErrorCode::kInvalid, "tag '" + kv + "' is not KEY=VALUE");
  tags[kv.substr(0, eq)] = kv.substr(eq + 1);
  return ok_status();
}

}  // namespace energy::cli
