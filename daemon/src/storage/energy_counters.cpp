#include "energy_counters.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include <nlohmann/json.hpp>

#include "energy/chunker.h"
#include "energy/codec.h"
#include "energy/durable_file.h"
#include "energy/unique_fd.h"

namespace energy::daemon {

namespace {

constexpr const char* kFormat = "energyd-counters";
constexpr int kVersion = 1;

nlohmann::json counters_json(const CountersSnapshot& s) {
  nlohmann::json rails = nlohmann::json::object();
  for (size_t i = 0; i < s.labels.size(); ++i) rails[s.labels[i]] = s.energy_uj[i];
  return {{"format", kFormat},
          {"version", kVersion},
          {"counters_id", s.counters_id},
          {"created_wall_ns", s.created_wall_ns},
          {"energy_uj", rails}};
}

// Plain replacement: a temporary file renamed over the old one.
Status replace_file(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp";
  {
    // POSIX calls, not an ofstream: out of descriptors (EMFILE) the failed
    // stream's write tripped UBSan's vptr check in the sanitizer build.
    UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    if (!fd) return make_error(ErrorCode::kIo, "cannot open " + tmp, errno);
    size_t done = 0;
    while (done < text.size()) {
      ssize_t n = ::write(fd.get(), text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return make_error(ErrorCode::kIo, "cannot write " + tmp, errno);
      done += static_cast<size_t>(n);
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    return make_error(ErrorCode::kIo, "cannot rename " + tmp + " to " + path, errno);
  }
  return ok_status();
}

Status field_error(const std::string& path, const std::string& what) {
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

EnergyCounters::EnergyCounters(std::vector<CounterRail> rails, SampleSink& next, std::string path, int64_t now_wall_ns)
    : rails_(std::move(rails)),
      next_(next),
      path_(std::move(path)),
      id_(new_counters_id()),
      created_wall_ns_(now_wall_ns),
      cursors_(rails_.size()),
      energy_uj_(rails_.size(), 0.0) {}

Status EnergyCounters::load() {
  if (path_.empty()) return ok_status();
  auto text = read_state_file(path_);
  if (!text) return text.take_error();
  if (!text->has_value()) return ok_status();
  return apply_saved(**text);
}

// The file's joules replace the zeros of rails with the same label; rails
// it does not name start at zero, rails it names that are gone are dropped.
Status EnergyCounters::apply_saved(const std::string& text) {
  auto j = parse_journal(text, kFormat, kVersion, "energy counters " + path_, "an energy counters file");
  if (!j) return j.take_error();
  const auto& id = (*j)["counters_id"];
  const auto& created = (*j)["created_wall_ns"];
  const auto& rails = (*j)["energy_uj"];
  if (!id.is_string() || id.get<std::string>().size() != 16)
    return field_error(path_, "counters_id must be 16 hex digits");
  if (!created.is_number_integer() || created.get<int64_t>() < 0) {
    return field_error(path_, "created_wall_ns must be an integer >= 0");
  }
  if (!rails.is_object()) return field_error(path_, "energy_uj must be an object of rail label -> microjoules");
  std::vector<double> energy(rails_.size(), 0.0);
  for (size_t i = 0; i < rails_.size(); ++i) {
    auto it = rails.find(rails_[i].label);
    if (it == rails.end()) continue;
    if (!it->is_number() || it->get<double>() < 0) {
      return field_error(path_, "energy_uj \"" + rails_[i].label + "\" must be a number >= 0, got " + it->dump());
    }
    energy[i] = it->get<double>();
  }
  std::lock_guard<std::mutex> lock(mu_);
  id_ = id.get<std::string>();
  created_wall_ns_ = created.get<int64_t>();
  energy_uj_ = std::move(energy);
  return ok_status();
}

Status EnergyCounters::save(Sync sync) const {
  if (path_.empty()) return ok_status();
  std::string text = counters_json(snapshot()).dump();
  return sync == Sync::kYes ? replace_file_durably(path_, text) : replace_file(path_, text);
}

void EnergyCounters::push_sample(const Sample& s) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    int64_t t = to_stored_ns(s.t_ns);
    for (size_t i = 0; i < rails_.size() && i < s.values.size(); ++i) add_value(i, t, s.values[i]);
  }
  next_.push_sample(s);
}

void EnergyCounters::add_value(size_t i, int64_t t_ns, const RailValue& v) {
  if (v.err != 0) return;  // bridged by the next valid reading
  codec::Reading r{v.voltage_mv, v.current_ma, v.power_uw, v.err};
  int64_t p = codec::stored_power_uw(r, rails_[i].power_unit_uw);
  Cursor& c = cursors_[i];
  if (c.has_last && t_ns > c.last_t_ns) energy_uj_[i] += trapezoid_uj(c.last_t_ns, c.last_power_uw, t_ns, p);
  c = Cursor{true, t_ns, p};
}

CountersSnapshot EnergyCounters::snapshot() const {
  CountersSnapshot s;
  for (const auto& r : rails_) s.labels.push_back(r.label);
  std::lock_guard<std::mutex> lock(mu_);
  s.counters_id = id_;
  s.created_wall_ns = created_wall_ns_;
  s.energy_uj = energy_uj_;
  return s;
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
