// Calibration uncertainty: how far a power monitor's own scale can be from
// the true one, the part of a figure's accuracy that its precision
// (integrate.h's error bound) leaves out. The same for every run on one
// board, so it cancels when runs on one board are compared and counts when
// a figure is compared with another instrument or another board.
//
// A rail's calibration part over a run, in uJ:
//   (gain error + shunt tolerance) x |energy| + offset current x mean bus voltage x time,
// each term at its stated maximum and added linearly (worst case). Figures
// and where each comes from are in uncertainty.cpp and docs/PROTOCOL.md
// ("Error bound").
//
// Units: uJ, mV, ns. Thread-safety: pure, reentrant.
#pragma once

#include <string>
#include <vector>

#include "energy/integrate.h"

namespace energy {

struct MonitorCalibration {
  double gain_error = 0;       // fraction of the reading, maximum
  double shunt_offset_uv = 0;  // shunt-voltage offset, maximum
  double shunt_uohm = 0;       // the shunt it is read across (assumed: energyd does not store it)
  double shunt_tolerance = 0;  // fraction of the shunt's value
  double offset_current_ma() const { return shunt_uohm > 0 ? shunt_offset_uv * 1000.0 / shunt_uohm : 0.0; }
};

// By the kernel driver's name (StoredRail::driver): "ina238", else the INA3221's.
MonitorCalibration calibration_for_driver(const std::string& driver);

// The bus voltage a rail's offset current is taken at: the mean of the valid
// readings' known voltages in the window, else kAssumedBusMv.
constexpr double kAssumedBusMv = 5000.0;
double mean_bus_mv(const std::vector<PowerPoint>& points, EnergyWindow window);

double calibration_bound_uj(const MonitorCalibration& c, double energy_uj, double bus_mv, double integrated_ns);

}  // namespace energy
