// Power-model calibration: how a board's rails map onto power components
// (by the tokens of their labels) and the per-board coefficients that make
// the model reproduce the reference's idle figures exactly and its loaded
// figures approximately (assumption A26). The derivation of every number is
// in sim/README.md ("Calibration"); the values are simulator choices, not
// board facts.
//
// Units: mW for powers, mOhm for the input droop.
// Thread-safety: pure functions over constant tables.
#pragma once

#include <string_view>
#include <vector>

namespace energy::sim {

enum class ComponentKind { kCpu, kGpu, kCv, kSoc, kDdr };

enum class RailRole {
  kComponents,  // measures module components named in its label (CPU, GPU, CV, SOC, DDR/VDDRQ/VDDQ/VDD2/MSS)
  kInput,       // the board's or module's input: VDD_IN, POM_5V_IN, VIN
  kSystem5v,    // a 5 V system rail: SYS5V, VIN_SYS_* (feeds the rails outside a summed total)
  kConstant,    // anything else (WIFI, carrier IO, MUX, NC): stays at its idle value
};

struct LabelClass {
  RailRole role = RailRole::kConstant;
  std::vector<ComponentKind> components;  // kComponents only, in label order
};

// "VDD_CPU_GPU_CV" -> components CPU, GPU, CV; "POM_5V_IN" -> input; "SYS5V" -> system 5 V.
LabelClass classify_label(std::string_view label);

// Weight of a component when a rail's idle power is split among the
// components it measures (CPU 1, GPU 1, CV 0.25, SOC 2, DDR 1).
double idle_weight(ComponentKind kind);

struct BoardCalibration {
  double cpu_dyn_max_mw = 0;    // every CPU online at the top of the table, load 1
  double gpu_dyn_max_mw = 0;    // the first GPU at the top of its table, load 1
  double soc_dyn_max_mw = 0;    // SOC at activity 1 (mean of CPU and GPU activity)
  double ddr_dyn_max_mw = 0;    // memory at activity 1 (max of CPU and GPU activity)
  double sys5v_dyn_max_mw = 0;  // a 5 V system rail's own part at activity 1
  double efficiency = 1.0;      // input rail = base + sum(module components) / efficiency
  double input_droop_mohm = 0;  // input bus voltage falls by this x (I - I_idle)
  const char* source = "";      // the reference figures the values were fitted to
};

// A second and further GPU (Thor's gpu-nvd-0) gets this share of gpu_dyn_max_mw.
inline constexpr double kSecondaryGpuShare = 0.25;
// A rail fed from a 5 V system rail (AGX Orin VDDQ_VDD2_1V8AO) adds its
// power change / this efficiency to that rail.
inline constexpr double kFeedEfficiency = 0.9;
// V(f_min) / V(f_max) of every DVFS curve (0.6 V .. 1.0 V).
inline constexpr double kVoltageMinRatio = 0.6;
// A GPU's voltage floor: below this share of its table's span the voltage
// stays at the line's value there (0.84 x V_max), so a lower clock saves
// only the frequency's share of dynamic power while the run takes longer
// (assumed and fitted, sim/ASSUMPTIONS.md A52; S14, S15, S17).
inline constexpr double kGpuVoltageFloorPosition = 0.6;

// The coefficients of a catalog board; a generic set scaled by CPU count otherwise.
BoardCalibration calibration_for(std::string_view board_id, std::size_t cpu_count);

// How fast a board runs a study workload (study.h) relative to the Jetson
// Nano the mixes are written for: work per GPU cycle, work per CPU cycle,
// memory speed and the speed of the per-batch launch and copies. Fitted to the
// published latency spans (sim/ASSUMPTIONS.md, "Calibration of study
// workloads"); all 1 for a board without published figures.
struct StudyCalibration {
  double gpu_throughput = 1.0;
  double cpu_throughput = 1.0;
  double memory_speed = 1.0;
  double batch_speed = 1.0;
};
StudyCalibration study_calibration_for(std::string_view board_id);

}  // namespace energy::sim
