// Parameter axes of a sweep (`--param NAME=v1,v2,...`): the values that are
// substituted into the command as {NAME} and exported to it as
// ENERGY_SWEEP_NAME=value.
//
// Rules: NAME is a letter or '_' followed by letters, digits or '_' (at most
// 64 characters), so that it is a valid environment variable name and cannot
// be confused with other braces in a command; values are non-empty, distinct
// and free of NUL characters. Only {NAME} of a declared parameter is
// replaced; any other brace text ("{print $1}", "${HOME}") is left alone.
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "energy/result.h"

namespace energy {

struct ParamAxis {
  std::string name;
  std::vector<std::string> values;  // in the order given
};

// "NAME=v1,v2,...".
Result<ParamAxis> parse_param_axis(const std::string& text);

// A parameter's value at one sweep point.
struct ParamValue {
  std::string name;
  std::string value;
};

// `command` with every {NAME} of `values` replaced by its value.
std::vector<std::string> substitute_params(const std::vector<std::string>& command,
                                           const std::vector<ParamValue>& values);

// "ENERGY_SWEEP_NAME=value" for each parameter, in order.
std::vector<std::string> param_environment(const std::vector<ParamValue>& values);

// True for a valid parameter name (see the rules above).
bool valid_param_name(const std::string& name);

}  // namespace energy
