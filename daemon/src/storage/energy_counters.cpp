#include "energy_counters.h"

#include <cstdio>
#include <random>

#include <nlohmann/json.hpp>

#include "energy/chunker.h"
#include "energy/codec.h"
#include "energy/durable_file.h"

namespace energy::daemon {

namespace {

constexpr const char* kCountersFormat = "energyd-counters";
constexpr int kCountersVersion = 1;

Error field_error(const std::string& path, const std::string& what) {
  return make_error(ErrorCode::kParse, "energy counters " + path + ": " + what);
}

}  // namespace

std::string new_counters_id() {
  std::random_device rd;
  uint64_t v = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

EnergyCounters::EnergyCounters(std::vector<CounterRail> rails, int64_t now_wall_ns)
    : rails_(std::move(rails)),
      id_(new_counters_id()),
      created_wall_ns_(now_wall_ns),
      cursors_(rails_.size()),
      energy_uj_(rails_.size(), 0.0) {}

void EnergyCounters::restore(const StoredCounters& stored) {
  std::lock_guard<std::mutex> lock(mu_);
  id_ = stored.counters_id;
  created_wall_ns_ = stored.created_wall_ns;
  for (size_t i = 0; i < rails_.size(); ++i) {
    for (const auto& [label, uj] : stored.energy_uj) {
      if (label == rails_[i].label) energy_uj_[i] += uj;
    }
  }
}

void EnergyCounters::count(const SweepView& s) {
  std::lock_guard<std::mutex> lock(mu_);
  int64_t t = to_stored_ns(s.t_ns);
  for (size_t i = 0; i < rails_.size() && i < s.rails; ++i)
    add_value(rails_[i], t, s.values[i], cursors_[i], energy_uj_[i]);
}

void EnergyCounters::count_recovered(const std::vector<Sample>& sweeps, const std::vector<RailCursor>& resume) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Cursor> from(rails_.size());
  for (size_t i = 0; i < from.size() && i < resume.size(); ++i)
    from[i] = Cursor{resume[i].has_last, resume[i].last_t_ns, resume[i].last_power_uw};
  for (const auto& s : sweeps) {
    int64_t t = to_stored_ns(s.t_ns);
    for (size_t i = 0; i < rails_.size() && i < s.values.size(); ++i)
      add_value(rails_[i], t, s.values[i], from[i], energy_uj_[i]);
  }
}

void EnergyCounters::add_value(const CounterRail& rail, int64_t t_ns, const RailValue& v, Cursor& c,
                               double& energy_uj) {
  if (v.err != 0) return;  // bridged by the next valid reading
  codec::Reading r{v.voltage_mv, v.current_ma, v.power_uw, v.err};
  int64_t p = codec::stored_power_uw(r, rail.power_unit_uw);
  if (c.has_last && t_ns > c.last_t_ns) energy_uj += trapezoid_uj(c.last_t_ns, c.last_power_uw, t_ns, p);
  c = Cursor{true, t_ns, p};
}

CountersSnapshot EnergyCounters::snapshot() const { return snapshot_with({}); }

CountersSnapshot EnergyCounters::snapshot_with(const std::vector<SweepView>& pending) const {
  CountersSnapshot s;
  for (const auto& r : rails_) s.labels.push_back(r.label);
  std::lock_guard<std::mutex> lock(mu_);
  s.counters_id = id_;
  s.created_wall_ns = created_wall_ns_;
  s.energy_uj = energy_uj_;
  std::vector<Cursor> cursors = cursors_;
  for (const auto& sweep : pending) {
    int64_t t = to_stored_ns(sweep.t_ns);
    for (size_t i = 0; i < rails_.size() && i < sweep.rails; ++i)
      add_value(rails_[i], t, sweep.values[i], cursors[i], s.energy_uj[i]);
  }
  return s;
}

StoredCounters to_stored(const CountersSnapshot& s) {
  StoredCounters out{s.counters_id, s.created_wall_ns, {}};
  for (size_t i = 0; i < s.labels.size(); ++i) out.energy_uj.emplace_back(s.labels[i], s.energy_uj[i]);
  return out;
}

Result<std::optional<StoredCounters>> read_counters_file(const std::string& path) {
  auto text = read_state_file(path);
  if (!text) return text.take_error();
  if (!text->has_value()) return std::optional<StoredCounters>();
  auto j =
      parse_journal(**text, kCountersFormat, kCountersVersion, "energy counters " + path, "an energy counters file");
  if (!j) return j.take_error();
  const auto& id = (*j)["counters_id"];
  const auto& created = (*j)["created_wall_ns"];
  const auto& rails = (*j)["energy_uj"];
  if (!id.is_string()) return field_error(path, "counters_id must be 16 hex digits");
  if (!created.is_number_integer()) return field_error(path, "created_wall_ns must be an integer >= 0");
  if (!rails.is_object()) return field_error(path, "energy_uj must be an object of rail label -> microjoules");
  StoredCounters out{id.get<std::string>(), created.get<int64_t>(), {}};
  for (const auto& [label, uj] : rails.items()) {
    if (!uj.is_number())
      return field_error(path, "energy_uj \"" + label + "\" must be a number >= 0, got " + uj.dump());
    out.energy_uj.emplace_back(label, uj.get<double>());
  }
  auto st = validate_counters(out, "energy counters " + path);
  if (!st) return st.take_error();
  return std::optional<StoredCounters>(std::move(out));
}

nlohmann::json counters_verb_json(const CountersSnapshot& s) {
  nlohmann::json rails = nlohmann::json::array();
  for (size_t i = 0; i < s.labels.size(); ++i)
    rails.push_back({{"label", s.labels[i]}, {"energy_j", s.energy_uj[i] / 1e6}});
  TotalRule rule = select_total_rails(s.labels);
  nlohmann::json names = nlohmann::json::array();
  double sum_uj = 0;
  for (size_t i : rule.rail_indices) {
    names.push_back(s.labels[i]);
    sum_uj += s.energy_uj[i];
  }
  return {{"counters_id", s.counters_id},
          {"created_wall_ns", s.created_wall_ns},
          {"rails", rails},
          {"total", {{"rails", names}, {"energy_j", sum_uj / 1e6}}}};
}

}  // namespace energy::daemon
