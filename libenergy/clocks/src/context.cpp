#include "energy/context.h"

namespace energy {

const char* context_kind_name(ContextKind kind) {
  switch (kind) {
    case ContextKind::kClock: return "clock";
    case ContextKind::kGovernor: return "governor";
    case ContextKind::kThermal: return "thermal";
  }
  return "unknown";
}

std::optional<ContextKind> parse_context_kind(std::string_view name) {
  for (auto k : {ContextKind::kClock, ContextKind::kGovernor, ContextKind::kThermal}) {
    if (name == context_kind_name(k)) return k;
  }
  return std::nullopt;
}

bool context_known(ContextKind kind, const ContextValue& v) {
  return kind == ContextKind::kGovernor ? v.text.has_value() : v.number.has_value();
}

}  // namespace energy
