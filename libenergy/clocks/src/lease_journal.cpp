#include "energy/lease_journal.h"

#include <stdexcept>

#include <nlohmann/json.hpp>

#include "energy/durable_file.h"

namespace energy {
namespace {

using nlohmann::json;

constexpr const char* kFormat = "energyd-clock-leases";
constexpr int kVersion = 1;

json file_to_json(const PinnedFile& f) {
  return {{"role", pin_role_name(f.role)}, {"path", f.path}, {"saved", f.saved}, {"pinned", f.pinned}};
}

json domain_to_json(const DomainPin& d) {
  json files = json::array();
  for (const auto& f : d.files) files.push_back(file_to_json(f));
  return {{"domain", d.domain},
          {"hz_per_unit", d.hz_per_unit},
          {"requested_min_hz", d.requested_min_hz},
          {"requested_max_hz", d.requested_max_hz},
          {"requested_governor", d.requested_governor},
          {"files", files}};
}

json lease_to_json(const LeaseRecord& l) {
  json domains = json::array();
  for (const auto& d : l.domains) domains.push_back(domain_to_json(d));
  json j = {{"id", l.id},
            {"kind", lease_kind_name(l.kind)},
            {"state", lease_state_name(l.state)},
            {"connection", l.connection},
            {"run_id", l.run_id},
            {"expires_boot_ns", l.expires_boot_ns},
            {"created_boot_ns", l.created_boot_ns},
            {"created_wall_ns", l.created_wall_ns},
            {"domains", domains}};
  if (l.owner_uid) j["owner_uid"] = *l.owner_uid;
  return j;
}

Result<PinRole> parse_role(const std::string& name) {
  for (PinRole r : {PinRole::kGovernor, PinRole::kMin, PinRole::kMax, PinRole::kLock, PinRole::kRate}) {
    if (name == pin_role_name(r)) return r;
  }
  return make_error(ErrorCode::kParse, "unknown file role '" + name + "'");
}

Result<LeaseState> parse_state(const std::string& name) {
  for (LeaseState s : {LeaseState::kApplying, LeaseState::kActive, LeaseState::kReleasing}) {
    if (name == lease_state_name(s)) return s;
  }
  return make_error(ErrorCode::kParse, "unknown lease state '" + name + "'");
}

// nlohmann-json throws on a missing key or a wrong type: caught by journal_from_text.
DomainPin domain_from_json(const json& j) {
  DomainPin d;
  d.domain = j.at("domain").get<std::string>();
  d.hz_per_unit = j.at("hz_per_unit").get<int64_t>();
  d.requested_min_hz = j.at("requested_min_hz").get<int64_t>();
  d.requested_max_hz = j.at("requested_max_hz").get<int64_t>();
  d.requested_governor = j.at("requested_governor").get<std::string>();
  for (const auto& f : j.at("files")) {
    auto role = parse_role(f.at("role").get<std::string>());
    if (!role) throw std::invalid_argument(role.error().message);
    d.files.push_back(
        {*role, f.at("path").get<std::string>(), f.at("saved").get<std::string>(), f.at("pinned").get<std::string>()});
  }
  return d;
}

LeaseRecord lease_from_json(const json& j) {
  LeaseRecord l;
  l.id = j.at("id").get<int64_t>();
  auto kind = parse_lease_kind(j.at("kind").get<std::string>());
  if (!kind) throw std::invalid_argument("lease " + std::to_string(l.id) + ": " + kind.error().message);
  auto state = parse_state(j.at("state").get<std::string>());
  if (!state) throw std::invalid_argument("lease " + std::to_string(l.id) + ": " + state.error().message);
  l.kind = *kind;
  l.state = *state;
  l.connection = j.at("connection").get<uint64_t>();
  l.run_id = j.at("run_id").get<int64_t>();
  l.expires_boot_ns = j.at("expires_boot_ns").get<int64_t>();
  l.created_boot_ns = j.at("created_boot_ns").get<int64_t>();
  l.created_wall_ns = j.at("created_wall_ns").get<int64_t>();
  if (j.contains("owner_uid")) l.owner_uid = j.at("owner_uid").get<int64_t>();  // absent in older journals
  for (const auto& d : j.at("domains")) l.domains.push_back(domain_from_json(d));
  return l;
}

}  // namespace

const char* lease_kind_name(LeaseKind kind) {
  switch (kind) {
    case LeaseKind::kConnection: return "connection";
    case LeaseKind::kDuration: return "duration";
    case LeaseKind::kRun: return "run";
  }
  return "unknown";
}

Result<LeaseKind> parse_lease_kind(const std::string& name) {
  for (LeaseKind k : {LeaseKind::kConnection, LeaseKind::kDuration, LeaseKind::kRun}) {
    if (name == lease_kind_name(k)) return k;
  }
  return make_error(ErrorCode::kInvalid, "unknown lease kind '" + name + "' (connection, duration or run)");
}

const char* lease_state_name(LeaseState state) {
  switch (state) {
    case LeaseState::kApplying: return "applying";
    case LeaseState::kActive: return "active";
    case LeaseState::kReleasing: return "releasing";
  }
  return "unknown";
}

std::string journal_to_text(const LeaseJournal& journal) {
  json leases = json::array();
  for (const auto& l : journal.leases) leases.push_back(lease_to_json(l));
  json j = {{"format", kFormat},
            {"version", kVersion},
            {"boot_id", journal.boot_id},
            {"next_lease", journal.next_lease},
            {"leases", leases}};
  return j.dump(2) + "\n";
}

Result<LeaseJournal> journal_from_text(const std::string& text, const std::string& what) {
  auto parsed = parse_journal(text, kFormat, kVersion, what, "a lease journal");
  if (!parsed) return parsed.take_error();
  try {
    const json& j = *parsed;
    LeaseJournal out;
    out.boot_id = j.at("boot_id").get<std::string>();
    out.next_lease = j.at("next_lease").get<int64_t>();
    for (const auto& l : j.at("leases")) out.leases.push_back(lease_from_json(l));
    return out;
  } catch (const std::exception& e) {
    return make_error(ErrorCode::kParse, what + ": " + e.what());
  }
}

Result<LeaseJournal> load_journal(const std::string& path) {
  auto text = read_state_file(path);
  if (!text) return make_error(text.error().code, "lease journal: " + text.error().message, text.error().sys_errno);
  if (!text->has_value()) return LeaseJournal{};
  return journal_from_text(**text, "lease journal " + path);
}

Status save_journal(const std::string& path, const LeaseJournal& journal) {
  return replace_file_durably(path, journal_to_text(journal));
}

}  // namespace energy
