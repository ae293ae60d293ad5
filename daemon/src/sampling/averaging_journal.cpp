#include "averaging_journal.h"

#include <nlohmann/json.hpp>

#include "energy/durable_file.h"

namespace energy::daemon {
namespace {

using nlohmann::json;

constexpr const char* kAveragingFormat = "energyd-sensor-averaging";
constexpr int kAveragingVersion = 2;
constexpr int kOldestVersion = 1;

json record_to_json(const AveragingRecord& r) {
  return {{"device", r.device},
          {"path", r.path},
          {"original", r.original},
          {"set", r.set},
          {"interval_path", r.interval_path},
          {"original_interval_ms", r.original_interval_ms},
          {"set_interval_ms", r.set_interval_ms}};
}

// nlohmann-json throws on a missing key or a wrong type: caught by the caller.
// Version 1 records have no interval fields.
AveragingRecord record_from_json(const json& j, int version) {
  AveragingRecord r;
  r.device = j.at("device").get<std::string>();
  r.path = j.at("path").get<std::string>();
  r.original = j.at("original").get<int64_t>();
  r.set = j.at("set").get<int64_t>();
  if (version >= 2) {
    r.interval_path = j.at("interval_path").get<std::string>();
    r.original_interval_ms = j.at("original_interval_ms").get<int64_t>();
    r.set_interval_ms = j.at("set_interval_ms").get<int64_t>();
  }
  return r;
}

}  // namespace

std::string averaging_journal_to_text(const AveragingJournal& journal) {
  json chips = json::array();
  for (const auto& r : journal.chips) chips.push_back(record_to_json(r));
  json j = {
      {"format", kAveragingFormat}, {"version", kAveragingVersion}, {"boot_id", journal.boot_id}, {"chips", chips}};
  return j.dump(2) + "\n";
}

Result<AveragingJournal> averaging_journal_from_text(const std::string& text, const std::string& what) {
  auto parsed =
      parse_journal(text, kAveragingFormat, kAveragingVersion, what, "a sensor averaging journal", kOldestVersion);
  if (!parsed) return parsed.take_error();
  try {
    const json& j = *parsed;
    AveragingJournal out;
    out.boot_id = j.at("boot_id").get<std::string>();
    const int version = j.at("version").get<int>();
    for (const auto& r : j.at("chips")) out.chips.push_back(record_from_json(r, version));
    return out;
  } catch (const std::exception& e) {
    return make_error(ErrorCode::kParse, what + ": " + e.what());
  }
}

Result<AveragingJournal> load_averaging_journal(const std::string& path) {
  auto text = read_state_file(path);
  if (!text) return text.take_error();
  if (!text->has_value()) return AveragingJournal{};
  return averaging_journal_from_text(**text, "sensor averaging journal " + path);
}

Status save_averaging_journal(const std::string& path, const AveragingJournal& journal) {
  return replace_file_durably(path, averaging_journal_to_text(journal));
}

}  // namespace energy::daemon
