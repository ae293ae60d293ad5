// Exposition: writes metric families in the Prometheus text format 0.0.4
// (https://prometheus.io/docs/instrumenting/exposition_formats/): a HELP and
// a TYPE line per family, then its samples, label values escaped.
//
// Owns nothing but the text being built. A family is written once, with all
// its samples, so the output never repeats a family (promtool checks this).
// Values are doubles printed with enough digits to round-trip; NaN and
// infinities as the format spells them.
//
// Thread-safety: one thread at a time per instance.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace energy::exporter {

using Labels = std::vector<std::pair<std::string, std::string>>;

enum class MetricType { kCounter, kGauge };

struct MetricSample {
  Labels labels;
  double value = 0;
};

class Exposition {
 public:
  // `name` must match [a-zA-Z_:][a-zA-Z0-9_:]*; counters end in _total.
  void family(const std::string& name, MetricType type, const std::string& help,
              const std::vector<MetricSample>& samples);
  // A family with one unlabelled sample.
  void single(const std::string& name, MetricType type, const std::string& help, double value);
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

// A label value with backslash, double quote and newline escaped.
std::string escape_label_value(const std::string& v);
// A sample value: shortest text that reads back as the same double.
std::string format_value(double v);

}  // namespace energy::exporter
