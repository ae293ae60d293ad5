#include "pin_history.h"

namespace energy::daemon {

using nlohmann::json;

namespace {

json field(const json& j, const char* key) {
  auto it = j.find(key);
  return it == j.end() ? json() : *it;
}

// A pin reply's domain in the report's shape: requested and achieved side by side.
json domain_entry(const json& d) {
  json q = field(d, "requested");
  json a = field(d, "achieved");
  if (!q.is_object()) q = json::object();
  if (!a.is_object()) a = json::object();
  return {{"domain", d.value("domain", "")},        {"requested_min_hz", field(q, "min_hz")},
          {"requested_max_hz", field(q, "max_hz")}, {"requested_governor", q.value("governor", "")},
          {"achieved_min_hz", field(a, "min_hz")},  {"achieved_max_hz", field(a, "max_hz")},
          {"achieved_cur_hz", field(a, "cur_hz")},  {"achieved_governor", a.value("governor", "")}};
}

}  // namespace

void PinHistory::pinned(const json& pin_reply, int64_t boot_ns) {
  json lease = field(pin_reply, "lease");
  json domains = field(pin_reply, "domains");
  if (!lease.is_object() || !domains.is_array()) return;
  Record r;
  r.lease = lease.value("id", int64_t{0});
  r.kind = lease.value("kind", "");
  r.run_id = lease.value("run", int64_t{0});
  r.pinned_boot_ns = lease.value("created_boot_ns", boot_ns);
  r.domains = json::array();
  for (const auto& d : domains) r.domains.push_back(domain_entry(d));
  std::lock_guard<std::mutex> lock(mu_);
  records_.push_back(std::move(r));
  if (records_.size() > kMaxRecords) records_.pop_front();
}

void PinHistory::bound(int64_t lease, int64_t run_id) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& r : records_) {
    if (r.lease == lease) r.run_id = run_id;
  }
}

void PinHistory::sync(const std::set<int64_t>& live_leases, int64_t boot_ns) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& r : records_) {
    if (r.released_boot_ns == 0 && live_leases.count(r.lease) == 0) r.released_boot_ns = boot_ns;
  }
}

json PinHistory::for_run(int64_t run_id, int64_t from_boot_ns, int64_t to_boot_ns) const {
  json out = json::array();
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& r : records_) {
    bool tied = r.run_id != 0 && r.run_id == run_id;
    bool overlaps = r.pinned_boot_ns <= to_boot_ns && (r.released_boot_ns == 0 || r.released_boot_ns >= from_boot_ns);
    if (tied || overlaps) out.push_back(record_json(r));
  }
  return out;
}

json PinHistory::record_json(const Record& r) {
  json j = {{"lease", r.lease},
            {"kind", r.kind},
            {"pinned_boot_ns", r.pinned_boot_ns},
            {"released_boot_ns", r.released_boot_ns == 0 ? json() : json(r.released_boot_ns)},
            {"domains", r.domains}};
  if (r.run_id != 0) j["run"] = r.run_id;
  return j;
}

}  // namespace energy::daemon
