#include "energy/sweep_param.h"

#include <algorithm>
#include <cctype>

#include "split_list.h"

namespace energy {
namespace {

constexpr size_t kMaxNameLength = 64;

bool name_char(char c, bool first) {
  const auto u = static_cast<unsigned char>(c);
  return std::isalpha(u) != 0 || c == '_' || (!first && std::isdigit(u) != 0);
}

Error param_error(const std::string& text, const std::string& what) {
  return make_error(ErrorCode::kInvalid, "--param '" + text + "': " + what);
}

Result<std::vector<std::string>> split_values(const std::string& text, const std::string& list) {
  const std::vector<std::string> values = split_commas(list);
  for (const std::string& v : values) {
    if (v.empty()) return param_error(text, "empty value in the list");
    if (v.find('\0') != std::string::npos) return param_error(text, "a value contains a NUL character");
    if (std::count(values.begin(), values.end(), v) > 1) return param_error(text, "value '" + v + "' given twice");
  }
  return values;
}

const ParamValue* find_param(const std::vector<ParamValue>& values, const std::string& name) {
  for (const ParamValue& p : values) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

// One pass, so a value that itself contains "{OTHER}" is not substituted again.
std::string substitute_one(const std::string& arg, const std::vector<ParamValue>& values) {
  std::string out;
  size_t at = 0;
  for (size_t open = arg.find('{'); open != std::string::npos; open = arg.find('{', at)) {
    size_t close = arg.find('}', open);
    const ParamValue* p =
        close == std::string::npos ? nullptr : find_param(values, arg.substr(open + 1, close - open - 1));
    out += arg.substr(at, open - at) + (p != nullptr ? p->value : "{");
    at = p != nullptr ? close + 1 : open + 1;
  }
  return out + arg.substr(at);
}

}  // namespace

bool valid_param_name(const std::string& name) {
  if (name.empty() || name.size() > kMaxNameLength) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    if (!name_char(name[i], i == 0)) return false;
  }
  return true;
}

Result<ParamAxis> parse_param_axis(const std::string& text) {
  size_t eq = text.find('=');
  if (eq == std::string::npos) return param_error(text, "needs NAME=v1,v2,... e.g. batch=1,8,32");
  std::string name = text.substr(0, eq);
  if (!valid_param_name(name)) {
    return param_error(text, "name '" + name + "' must be a letter or _ followed by letters, digits or _ (at most 64)");
  }
  auto values = split_values(text, text.substr(eq + 1));
  if (!values) return values.take_error();
  return ParamAxis{name, std::move(*values)};
}

std::vector<std::string> substitute_params(const std::vector<std::string>& command,
                                           const std::vector<ParamValue>& values) {
  std::vector<std::string> out;
  out.reserve(command.size());
  for (const std::string& arg : command) out.push_back(substitute_one(arg, values));
  return out;
}

std::vector<std::string> param_environment(const std::vector<ParamValue>& values) {
  std::vector<std::string> env;
  env.reserve(values.size());
  for (const ParamValue& p : values) env.push_back("ENERGY_SWEEP_" + p.name + "=" + p.value);
  return env;
}

}  // namespace energy
