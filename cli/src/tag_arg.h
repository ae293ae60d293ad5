// A --tag KEY=VALUE option, as run, mark, runs and compare take it.
//
// Thread-safety: pure function.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "energy/result.h"

namespace energy::cli {

// Sets tags[KEY] = VALUE from `kv`; kInvalid naming it when there is no '='
// or the key is empty. A later --tag with the same key replaces the value.
Status add_tag_arg(const std::string& kv, nlohmann::json& tags);

}  // namespace energy::cli
