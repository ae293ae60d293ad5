#include "energy/rail_total.h"

#include <algorithm>

namespace energy {
namespace {

// Labels of input rails that already include every other rail of the board.
const std::vector<std::string> kInputRails = {"VIN", "POM_5V_IN", "VDD_IN"};
// Rails fed from another metered rail: adding them would double count.
const std::vector<std::string> kFedRails = {"VDDQ_VDD2_1V8AO"};

}  // namespace

TotalRule select_total_rails(const std::vector<std::string>& labels) {
  for (const auto& input : kInputRails) {
    for (size_t i = 0; i < labels.size(); ++i) {
      if (labels[i] == input) return TotalRule{{i}, input + " is the board input and includes every other rail"};
    }
  }
  TotalRule rule;
  std::string left_out;
  for (size_t i = 0; i < labels.size(); ++i) {
    bool fed = std::find(kFedRails.begin(), kFedRails.end(), labels[i]) != kFedRails.end();
    if (fed) left_out += (left_out.empty() ? "" : ", ") + labels[i];
    if (!fed) rule.rail_indices.push_back(i);
  }
  rule.explanation = "no input rail; total is the sum of the module rails";
  if (!left_out.empty()) rule.explanation += " except " + left_out + " (fed from another metered rail)";
  return rule;
}

}  // namespace energy
