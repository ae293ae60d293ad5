#include "cli_summary.h"

#include <charconv>
#include <optional>

namespace energy::sim {
namespace {

std::string joined(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

// The number a file holds for this state, or why it has none.
struct Reading {
  std::optional<std::int64_t> value;
  std::string failure;
};

Reading read_number(const Tree& tree, const std::string& path, const BoardState& state) {
  Result<std::string> text = tree.read(path, state);
  if (!text) return Reading{std::nullopt, "read fails: " + errno_name(text.error().sys_errno)};
  std::int64_t value = 0;
  const char* begin = text->data();
  const auto [end, ec] = std::from_chars(begin, begin + text->size(), value);
  if (ec != std::errc() || end == begin) return Reading{std::nullopt, "not a number"};
  return Reading{value, ""};
}

std::string power_text(const RailFiles& f, const Reading& mv, const Reading& ma, const Reading& power) {
  switch (f.layout) {
    case MonitorLayout::kIna3221xIio:
      return power.value ? std::to_string(*power.value) + " mW (in_power file)" : power.failure;
    case MonitorLayout::kIna238Hwmon:
      return power.value ? std::to_string(*power.value / 1000) + " mW (power1_input / 1000)" : power.failure;
    case MonitorLayout::kIna3221Hwmon: break;
  }
  if (!mv.value || !ma.value) return "-";
  return std::to_string(*mv.value * *ma.value / 1000) + " mW (mV x mA / 1000, no power file)";
}

void print_file(std::ostream& out, const char* what, const std::string& root, const std::string& path,
                const char* unit) {
  if (!path.empty()) out << "    " << what << root << path << unit << "\n";
}

void print_rail(std::ostream& out, const SummaryInput& in, const RailFiles& f) {
  const std::string name = f.label.empty() ? "(no label)" : f.label;
  const Reading mv = read_number(in.tree, f.voltage_file, in.state);
  const Reading ma = read_number(in.tree, f.current_file, in.state);
  const Reading power = f.power_file.empty() ? Reading{} : read_number(in.tree, f.power_file, in.state);
  out << "  " << name << "  [" << f.rail_id << "]  ";
  if (f.disabled) {
    out << "disabled in the device tree: value reads fail with ENODATA (files written empty)\n";
  } else {
    out << (mv.value ? std::to_string(*mv.value) + " mV" : mv.failure) << "  "
        << (ma.value ? std::to_string(*ma.value) + " mA" : ma.failure) << "  " << power_text(f, mv, ma, power) << "\n";
  }
  print_file(out, "label    ", in.root, f.label_file, "");
  print_file(out, "voltage  ", in.root, f.voltage_file, "  (mV)");
  print_file(out, "current  ", in.root, f.current_file, "  (mA)");
  print_file(out, "power    ", in.root, f.power_file, f.layout == MonitorLayout::kIna238Hwmon ? "  (uW)" : "  (mW)");
}

}  // namespace

void print_summary(std::ostream& out, const SummaryInput& in) {
  out << "board       " << in.spec.id << "  (" << in.spec.name << ")\n"
      << "generation  L4T " << in.spec.l4t << "\n"
      << "root        " << in.root << "\n"
      << "total       " << joined(in.spec.total_rails, " + ") << "\n"
      << "rails\n";
  for (const RailFiles& f : rail_files(in.spec, in.plan)) print_rail(out, in, f);
  for (const std::string& note : in.spec.notes) out << "assumed     " << note << "\n";
  if (!in.report.failing_files.empty()) {
    out << "note        " << in.report.failing_files.size() << " file(s) that fail to read on the board are empty here;"
        << " listed in " << in.root << "/" << kMarkerFileName << "\n";
  }
}

}  // namespace energy::sim
