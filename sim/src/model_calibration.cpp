#include "model_calibration.h"

#include <string>

namespace energy::sim {
namespace {

struct TokenComponent {
  const char* token;
  ComponentKind kind;
};

// DDR spellings: VDD_SYS_DDR (TX2), VDDRQ (AGX Xavier), VDDQ_VDD2 (AGX Orin),
// MSS = memory subsystem (Thor VDD_CPU_SOC_MSS).
constexpr TokenComponent kTokens[] = {
    {"CPU", ComponentKind::kCpu},  {"GPU", ComponentKind::kGpu},  {"CV", ComponentKind::kCv},
    {"SOC", ComponentKind::kSoc},  {"DDR", ComponentKind::kDdr},  {"VDDRQ", ComponentKind::kDdr},
    {"VDDQ", ComponentKind::kDdr}, {"VDD2", ComponentKind::kDdr}, {"MSS", ComponentKind::kDdr},
};

std::vector<std::string> tokens_of(std::string_view label) {
  std::vector<std::string> out(1);
  for (char c : label) {
    if (c == '_') {
      out.emplace_back();
    } else {
      out.back().push_back(c);
    }
  }
  return out;
}

bool has_token(const std::vector<std::string>& tokens, std::string_view token) {
  for (const std::string& t : tokens) {
    if (t == token) return true;
  }
  return false;
}

void add_component(std::vector<ComponentKind>& out, ComponentKind kind) {
  for (ComponentKind k : out) {
    if (k == kind) return;
  }
  out.push_back(kind);
}

struct NamedCalibration {
  const char* board_id;
  BoardCalibration calibration;
};

// Fitted by hand to the reference's loaded figures; see sim/README.md.
constexpr NamedCalibration kCalibrations[] = {
    {"jetson-nano-4gb",
     {3400, 3800, 800, 1500, 0, 1.0, 0,
      "tegrastats load line: CPU 13% at 1479 MHz -> CPU 600 mW; GPU: the published 4.7 W GPU-frequency span "
      "under inference (sim/ASSUMPTIONS.md)"}},
    {"jetson-tx2",
     {2360, 6760, 1130, 2610, 0, 1.0, 0,
      "tegrastats load line: CPU 90% at 2035 MHz, GPU 99% at 1300 MHz -> IN 13680, CPU 2280, GPU 6840, SOC 1368, "
      "DDR 2736 mW"}},
    {"jetson-agx-xavier",
     {8000, 12000, 2000, 2500, 1500, 1.0, 0, "no load figures: plausible values for 8 Carmel + Volta"}},
    {"jetson-xavier-nx",
     {4500, 11000, 1200, 1200, 0, 1.0, 0, "CPU: plausible for 6 Carmel; GPU: the published 7.5 W GPU-frequency span"}},
    {"jetson-agx-orin",
     {16600, 15500, 3000, 2000, 8000, 1.0, 0,
      "JP7.2 light-load line: CPU 16% at 2201 MHz, GPU 12% at 1300 MHz -> VDD_GPU_SOC 4940, VDD_CPU_CV 3420, "
      "VIN_SYS_5V0 5500 mW"}},
    {"jetson-orin-nx",
     {12000, 5000, 3000, 4000, 0, 1.0, 33,
      "soak: everything at full load -> VDD_IN 29030 mW at 4800 mV (the 200 mV sag gives the droop); GPU share: "
      "the published 5.1 W GPU-frequency span"}},
    {"jetson-orin-nano",
     {3500, 3760, 1190, 1470, 0, 1.0, 0,
      "JP7 load line read as GPU 100% at 624.75 MHz, CPU idle -> VDD_IN 9761, VDD_CPU_GPU_CV 4238, VDD_SOC 1825 mW"}},
    {"jetson-agx-thor",
     {15000, 16500, 3000, 3000, 3000, 0.9, 0,
      "light load: CPU 15% at the top -> VDD_CPU_SOC_MSS 6500 mW; jtop GPU model: 5525 -> 22050 mW"}},
};

struct NamedStudyCalibration {
  const char* board_id;
  StudyCalibration calibration;
};

// Fitted to the published latency spans; see sim/ASSUMPTIONS.md.
constexpr NamedStudyCalibration kStudyCalibrations[] = {
    {"jetson-nano-4gb", {1.0, 1.0, 1.0, 1.0}},
    {"jetson-xavier-nx", {17.5, 6.0, 40.0, 20.0}},
    {"jetson-orin-nx", {16.3, 3.0, 10.0, 16.0}},
};

}  // namespace

LabelClass classify_label(std::string_view label) {
  const std::vector<std::string> tokens = tokens_of(label);
  if (label == "SYS5V" || label.substr(0, 8) == "VIN_SYS_") return {RailRole::kSystem5v, {}};
  if (label == "VIN" || has_token(tokens, "IN")) return {RailRole::kInput, {}};
  LabelClass out{RailRole::kComponents, {}};
  for (const std::string& token : tokens) {
    for (const TokenComponent& tc : kTokens) {
      if (token == tc.token) add_component(out.components, tc.kind);
    }
  }
  if (out.components.empty()) out.role = RailRole::kConstant;
  return out;
}

double idle_weight(ComponentKind kind) {
  switch (kind) {
    case ComponentKind::kCpu:
    case ComponentKind::kGpu: return 1.0;
    case ComponentKind::kCv: return 0.25;
    case ComponentKind::kSoc: return 2.0;
    case ComponentKind::kDdr: return 1.0;
  }
  return 1.0;
}

BoardCalibration calibration_for(std::string_view board_id, std::size_t cpu_count) {
  for (const NamedCalibration& named : kCalibrations) {
    if (board_id == named.board_id) return named.calibration;
  }
  const double cpus = static_cast<double>(cpu_count);
  return BoardCalibration{1000 * cpus, 5000, 1000, 1000, 1000, 1.0, 0, "generic: 1 W per CPU, 5 W GPU"};
}

StudyCalibration study_calibration_for(std::string_view board_id) {
  for (const NamedStudyCalibration& named : kStudyCalibrations) {
    if (board_id == named.board_id) return named.calibration;
  }
  return StudyCalibration{};
}

}  // namespace energy::sim
