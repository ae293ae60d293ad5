#include "exposition.h"

#include <cmath>
#include <cstdio>

namespace energy::exporter {

namespace {

// HELP text escapes backslash and newline only.
std::string escape_help(const std::string& h) {
  std::string out;
  for (char c : h) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string label_text(const Labels& labels) {
  if (labels.empty()) return "";
  std::string out = "{";
  for (size_t i = 0; i < labels.size(); ++i) {
    if (i > 0) out += ",";
    out += labels[i].first + "=\"" + escape_label_value(labels[i].second) + "\"";
  }
  return out + "}";
}

}  // namespace

std::string escape_label_value(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string format_value(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

void Exposition::family(const std::string& name, MetricType type, const std::string& help,
                        const std::vector<MetricSample>& samples) {
  text_ += "# HELP " + name + " " + escape_help(help) + "\n";
  text_ += "# TYPE " + name + (type == MetricType::kCounter ? " counter\n" : " gauge\n");
  for (const auto& s : samples) text_ += name + label_text(s.labels) + " " + format_value(s.value) + "\n";
}

void Exposition::single(const std::string& name, MetricType type, const std::string& help, double value) {
  family(name, type, help, {MetricSample{{}, value}});
}

}  // namespace energy::exporter
