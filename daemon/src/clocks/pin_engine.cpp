#include "pin_engine.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>

#include <spdlog/spdlog.h>

#include "energy/attr_file.h"

namespace energy::daemon {
namespace {

using nlohmann::json;

bool selects(const std::string& selector, const ClockDomain& d) {
  if (selector == d.name) return true;
  return (selector == "cpu" && d.kind == DomainKind::kCpu) || (selector == "gpu" && d.kind == DomainKind::kGpu);
}

std::string domain_names(const ClockInventory& inv) {
  std::string out;
  for (const auto& d : inv.domains) out += (out.empty() ? "" : ", ") + d.name;
  return out.empty() ? "none" : out;
}

bool has_domain(const LeaseRecord& l, const std::string& name) {
  return std::any_of(l.domains.begin(), l.domains.end(), [&](const DomainPin& d) { return d.domain == name; });
}

std::string lease_owner_text(const LeaseRecord& l) {
  switch (l.kind) {
    case LeaseKind::kConnection: return "held by client connection " + std::to_string(l.connection);
    case LeaseKind::kDuration: return "until its duration ends";
    case LeaseKind::kRun:
      return l.run_id == 0 ? std::string("for the run it is opening")
                           : "until run " + std::to_string(l.run_id) + " stops";
  }
  return "";
}

// A file that cannot be read is "changed" too: its pinned value is no longer known to hold.
std::string trimmed_text(const Result<std::string>& r) {
  if (!r) return "(unreadable: " + r.error().describe() + ")";
  std::string s = *r;
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n')) s.pop_back();
  return s;
}

}  // namespace

json clock_event_json(const ClockEvent& e) {
  json j = {
      {"boot_ns", e.boot_ns}, {"wall_ns", e.wall_ns}, {"lease", e.lease}, {"kind", e.kind}, {"message", e.message}};
  if (!e.domain.empty()) j["domain"] = e.domain;
  if (!e.path.empty()) {
    j["path"] = e.path;
    j["expected"] = e.expected;
    j["found"] = e.found;
  }
  return j;
}

void ClockEventLog::add(ClockEvent e) {
  std::lock_guard<std::mutex> lock(mu_);
  events_.push_back(std::move(e));
  ++added_;
  while (events_.size() > kMaxEvents) events_.pop_front();
}

uint64_t ClockEventLog::added() const {
  std::lock_guard<std::mutex> lock(mu_);
  return added_;
}

std::vector<ClockEvent> ClockEventLog::between(int64_t from_boot_ns, int64_t to_boot_ns) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<ClockEvent> out;
  for (const auto& e : events_) {
    if (e.boot_ns >= from_boot_ns && e.boot_ns <= to_boot_ns) out.push_back(e);
  }
  return out;
}

std::vector<ClockEvent> ClockEventLog::latest(size_t n) const {
  std::lock_guard<std::mutex> lock(mu_);
  size_t from = events_.size() > n ? events_.size() - n : 0;
  return std::vector<ClockEvent>(events_.begin() + static_cast<std::ptrdiff_t>(from), events_.end());
}

PinEngine::PinEngine(SysRoot root, ClockInventory clocks, const Clock& clock, std::string journal_path,
                     ClockEventLog& events)
    : root_(std::move(root)),
      clocks_(std::move(clocks)),
      clock_(clock),
      journal_path_(std::move(journal_path)),
      events_(events),
      boot_id_(current_boot_id()) {}

// ---- start -----------------------------------------------------------------

void PinEngine::recover(const std::set<int64_t>& open_runs) {
  auto loaded = load_journal(journal_path_);
  if (!loaded) {
    std::string aside = journal_path_ + ".damaged-" + std::to_string(clock_.wall_ns() / kNsPerSec);
    std::rename(journal_path_.c_str(), aside.c_str());
    spdlog::error("clock lease journal unreadable ({}); moved it to {}: clocks it recorded cannot be restored",
                  loaded.error().describe(), aside);
  }
  journal_ = loaded ? std::move(loaded).value() : LeaseJournal{};
  drop_other_boot();
  int64_t now = clock_.boot_ns();
  std::vector<int64_t> restore_ids;
  for (auto& l : journal_.leases) {
    watch_[l.id];
    if (!keep_at_start(l, open_runs, now)) {
      restore_ids.push_back(l.id);
      continue;
    }
    event(l.id, "adopted", "", "lease " + std::to_string(l.id) + " continues after a restart, " + lease_owner_text(l));
    spdlog::info("clock lease {} ({}) continues after the restart; re-verifying its files", l.id,
                 lease_kind_name(l.kind));
    verify(l);
  }
  for (int64_t id : restore_ids) release(id, "energyd restarted without its owner");
  if (auto st = save(); !st) spdlog::error("cannot rewrite the clock lease journal: {}", st.error().describe());
}

void PinEngine::drop_other_boot() {
  if (!journal_.boot_id.empty() && journal_.boot_id != boot_id_ && !journal_.leases.empty()) {
    spdlog::warn("dropping {} clock lease(s) of boot {}: the board rebooted since, so its clocks are the boot's own",
                 journal_.leases.size(), journal_.boot_id);
    journal_.leases.clear();
  }
  journal_.boot_id = boot_id_;
}

bool PinEngine::keep_at_start(const LeaseRecord& l, const std::set<int64_t>& open_runs, int64_t now) const {
  if (l.state != LeaseState::kActive) return false;
  switch (l.kind) {
    case LeaseKind::kConnection: return false;  // that client's connection died with the old daemon
    case LeaseKind::kDuration: return l.expires_boot_ns > now;
    case LeaseKind::kRun: return open_runs.count(l.run_id) != 0;
  }
  return false;
}

// ---- pin -------------------------------------------------------------------

Result<nlohmann::json> PinEngine::pin(const PinOrder& order) {
  auto targets = select(order);
  if (!targets) return targets.take_error();
  if (auto st = check_free(*targets); !st) return st.take_error();
  auto plans = plan(*targets, order.offline);
  if (!plans) return plans.take_error();
  journal_.leases.push_back(new_lease(order, std::move(plans).value()));
  LeaseRecord& lease = journal_.leases.back();
  if (auto st = save(); !st) {
    journal_.leases.pop_back();
    return make_error(ErrorCode::kStorage,
                      "cannot record the lease durably, so nothing was pinned: " + st.error().describe());
  }
  watch_[lease.id];
  if (auto st = apply(lease); !st) return st.take_error();
  lease.state = LeaseState::kActive;
  if (auto st = save(); !st)
    spdlog::warn("clock lease {} is applied but not marked active on disk: {}", lease.id, st.error().describe());
  event(lease.id, "pinned", "", "lease " + std::to_string(lease.id) + " pinned, " + lease_owner_text(lease));
  spdlog::info("clock lease {} pinned {} domain(s), {}", lease.id, lease.domains.size(), lease_owner_text(lease));
  return json{{"lease", lease_json(lease)}, {"domains", achieved_json(lease)}};
}

// The lease keeps its files and state; only its owner changes, durably.
Result<nlohmann::json> PinEngine::bind_to_run(int64_t lease_id, int64_t run_id) {
  LeaseRecord* lease = find(lease_id);
  if (lease == nullptr || lease->state != LeaseState::kActive) {
    return make_error(ErrorCode::kState, "clock lease " + std::to_string(lease_id) +
                                             " was released before its run opened (unpinned by another client?)");
  }
  lease->kind = LeaseKind::kRun;
  lease->run_id = run_id;
  if (auto st = save(); !st)
    spdlog::warn("clock lease {} is tied to run {} but not on disk: {}", lease_id, run_id, st.error().describe());
  return json{{"lease", lease_json(*lease)}, {"domains", achieved_json(*lease)}};
}

Result<std::vector<PinEngine::Target>> PinEngine::select(const PinOrder& order) const {
  std::vector<Target> out;
  if (order.requests.empty()) return make_error(ErrorCode::kInvalid, "a pin needs at least one domain");
  for (const auto& req : order.requests) {
    size_t before = out.size();
    for (const auto& d : clocks_.domains) {
      if (!selects(req.domain, d)) continue;
      bool twice = std::any_of(out.begin(), out.end(), [&](const Target& t) { return t.first == &d; });
      if (twice) return make_error(ErrorCode::kInvalid, "domain " + d.name + " is named twice in one pin");
      PinRequest r = req;
      r.domain = d.name;
      out.emplace_back(&d, r);
    }
    if (out.size() == before) {
      return make_error(ErrorCode::kNotFound,
                        "no clock domain '" + req.domain + "' on this board (domains: " + domain_names(clocks_) + ")");
    }
  }
  return out;
}

Status PinEngine::check_free(const std::vector<Target>& targets) const {
  for (const auto& [d, req] : targets) {
    for (const auto& l : journal_.leases) {
      if (!has_domain(l, d->name)) continue;
      return make_error(ErrorCode::kState, d->name + " is already pinned by lease " + std::to_string(l.id) + " (" +
                                               lease_owner_text(l) + "); unpin it first");
    }
  }
  return ok_status();
}

// Reads each domain's state now (the values to save) and plans its pin.
Result<std::vector<DomainPin>> PinEngine::plan(const std::vector<Target>& targets, OfflineCpus offline) const {
  std::vector<DomainPin> out;
  for (const auto& [d, req] : targets) {
    auto p = plan_pin(*d, read_domain(root_, *d), req, offline);
    if (!p) return p.take_error();
    out.push_back(std::move(p).value());
  }
  return out;
}

LeaseRecord PinEngine::new_lease(const PinOrder& order, std::vector<DomainPin> domains) {
  LeaseRecord l;
  l.id = journal_.next_lease++;
  l.kind = order.kind;
  l.state = LeaseState::kApplying;
  l.connection = order.connection;
  l.run_id = order.run_id;
  l.owner_uid = order.owner_uid;
  l.created_boot_ns = clock_.boot_ns();
  l.created_wall_ns = clock_.wall_ns();
  l.expires_boot_ns = order.kind == LeaseKind::kDuration ? l.created_boot_ns + order.duration_ns : 0;
  l.domains = std::move(domains);
  return l;
}

// On a failed write the domains are put back and the lease removed; if even
// that fails the lease stays (releasing) and the tick retries the restore.
Status PinEngine::apply(const LeaseRecord& lease) {
  for (const auto& d : lease.domains) {
    auto st = write_domain(d, PinDirection::kApply);
    if (st) continue;
    std::string why = d.domain + ": " + st.error().describe();
    nlohmann::json undone = release(lease.id, "its pin failed");
    std::string after = undone.value("restored", false) ? "; every file was put back"
                                                        : "; putting the files back failed too (" +
                                                              undone.value("error", std::string()) + "), will retry";
    return make_error(st.error().code, why + after);
  }
  return ok_status();
}

Status PinEngine::write_domain(const DomainPin& pin, PinDirection direction) const {
  int64_t max_units = recorded_max_units(pin, direction);
  for (const auto& f : pin.files) {
    if (f.role != PinRole::kMax) continue;
    auto now = root_.read_text(f.path);
    if (now) max_units = parse_sysfs_int(*now, f.path).value_or(max_units);
  }
  for (const auto& w : plan_writes(pin, direction, max_units)) {
    if (auto st = write_verified(root_, w); !st) return st;
  }
  return ok_status();
}

// Every domain is attempted even when one fails; the first error is returned.
Status PinEngine::restore(const LeaseRecord& lease) const {
  Status first = ok_status();
  for (auto it = lease.domains.rbegin(); it != lease.domains.rend(); ++it) {
    auto st = write_domain(*it, PinDirection::kRestore);
    if (!st && first) first = make_error(st.error().code, it->domain + ": " + st.error().describe());
  }
  return first;
}

// ---- release ---------------------------------------------------------------

json PinEngine::release(int64_t id, const std::string& reason) {
  LeaseRecord* lease = find(id);
  if (lease == nullptr) return {{"lease", id}, {"restored", false}, {"error", "no such lease"}};
  auto st = restore(*lease);
  if (!st) {
    lease->state = LeaseState::kReleasing;
    Watch& w = watch_[id];
    if (!w.restore_failure_logged) {
      spdlog::error("clock lease {}: cannot restore ({}): {}; keeping its record and retrying", id, reason,
                    st.error().describe());
      event(id, "restore_failed", "", st.error().describe());
    }
    w.restore_failure_logged = true;
    (void)save();
    return {{"lease", id}, {"restored", false}, {"error", st.error().describe()}};
  }
  json domains = json::array();
  for (const auto& d : lease->domains) domains.push_back(d.domain);
  journal_.leases.erase(
      std::find_if(journal_.leases.begin(), journal_.leases.end(), [id](const LeaseRecord& l) { return l.id == id; }));
  watch_.erase(id);
  if (auto saved = save(); !saved) {
    spdlog::warn("clock lease {} restored but still in the journal ({}); the next start restores it again", id,
                 saved.error().describe());
  }
  event(id, "restored", "", "lease " + std::to_string(id) + " released (" + reason + "): saved values restored");
  spdlog::info("clock lease {} released ({}): saved values restored and verified", id, reason);
  return {{"lease", id}, {"restored", true}, {"domains", domains}, {"reason", reason}};
}

Result<nlohmann::json> PinEngine::unpin(const std::vector<int64_t>& ids, const Caller& caller,
                                        const std::string& reason) {
  std::vector<int64_t> todo = ids;
  if (todo.empty()) {
    for (const auto& l : journal_.leases) {
      if (caller.admin || l.owner_uid == std::optional<int64_t>(caller.uid)) todo.push_back(l.id);
    }
  }
  for (int64_t id : todo) {
    const LeaseRecord* l = find(id);
    if (l == nullptr) return make_error(ErrorCode::kNotFound, "no clock lease " + std::to_string(id));
    auto owner = l->owner_uid ? std::optional<uid_t>(static_cast<uid_t>(*l->owner_uid)) : std::nullopt;
    if (auto st = check_owner("clock lease " + std::to_string(id), "unpin it", owner, caller); !st) {
      return st.take_error();
    }
  }
  json released = json::array();
  for (int64_t id : todo) released.push_back(release(id, reason));
  return json{{"released", released}};
}

void PinEngine::release_matching(const std::function<bool(const LeaseRecord&)>& match, const std::string& reason) {
  std::vector<int64_t> ids;
  for (const auto& l : journal_.leases) {
    if (match(l)) ids.push_back(l.id);
  }
  for (int64_t id : ids) release(id, reason);
}

// A connection's own leases, and the run leases it asked for whose run has
// not opened yet (a pinned mark.start whose client left before the reply:
// nobody would know that run, or stop it).
void PinEngine::release_connection(uint64_t connection) {
  release_matching(
      [connection](const LeaseRecord& l) {
        bool opening = l.kind == LeaseKind::kRun && l.run_id == 0;
        return (l.kind == LeaseKind::kConnection || opening) && l.connection == connection;
      },
      "its client's connection closed");
}

void PinEngine::release_run(int64_t run_id) {
  release_matching([run_id](const LeaseRecord& l) { return l.kind == LeaseKind::kRun && l.run_id == run_id; },
                   "run " + std::to_string(run_id) + " stopped");
}

void PinEngine::release_all(const std::string& reason) {
  release_matching([](const LeaseRecord&) { return true; }, reason);
}

// ---- watch -----------------------------------------------------------------

void PinEngine::tick() {
  int64_t now = clock_.boot_ns();
  release_matching([now](const LeaseRecord& l) { return l.kind == LeaseKind::kDuration && l.expires_boot_ns <= now; },
                   "expired");
  release_matching([](const LeaseRecord& l) { return l.state == LeaseState::kReleasing; }, "retrying the restore");
  for (const auto& l : journal_.leases) {
    if (l.state == LeaseState::kActive) verify(l);
  }
}

// A file that no longer holds its pinned text was changed by someone else
// (jetson_clocks, nvpmodel, a user): reported once, not fought over.
void PinEngine::verify(const LeaseRecord& lease) {
  Watch& w = watch_[lease.id];
  for (const auto& d : lease.domains) {
    for (const auto& f : d.files) {
      std::string found = trimmed_text(root_.read_text(f.path));
      bool changed = found != f.pinned;
      bool known = w.diverged.count(f.path) != 0;
      if (changed == known) continue;
      ClockEvent e{clock_.boot_ns(),
                   clock_.wall_ns(),
                   lease.id,
                   changed ? "external_change" : "external_change_cleared",
                   d.domain,
                   f.path,
                   f.pinned,
                   found,
                   ""};
      e.message = changed ? f.path + " was changed by another writer: pinned '" + f.pinned + "', now '" + found + "'"
                          : f.path + " holds its pinned value '" + f.pinned + "' again";
      if (changed) {
        w.diverged.insert(f.path);
        spdlog::warn("clock lease {}: {}; not fighting it, it is reported in the lease and runs", lease.id, e.message);
      } else {
        w.diverged.erase(f.path);
        spdlog::info("clock lease {}: {}", lease.id, e.message);
      }
      events_.add(std::move(e));
    }
  }
}

// ---- helpers ---------------------------------------------------------------

Status PinEngine::save() { return save_journal(journal_path_, journal_); }

LeaseRecord* PinEngine::find(int64_t id) {
  for (auto& l : journal_.leases) {
    if (l.id == id) return &l;
  }
  return nullptr;
}

void PinEngine::event(int64_t lease, const std::string& kind, const std::string& domain, const std::string& message) {
  events_.add(ClockEvent{clock_.boot_ns(), clock_.wall_ns(), lease, kind, domain, "", "", "", message});
}

json PinEngine::achieved_json(const LeaseRecord& lease) const {
  json out = json::array();
  for (const auto& pin : lease.domains) {
    auto it = std::find_if(clocks_.domains.begin(), clocks_.domains.end(),
                           [&](const ClockDomain& d) { return d.name == pin.domain; });
    if (it == clocks_.domains.end()) continue;
    DomainState s = read_domain(root_, *it);
    json achieved = {{"min_hz", s.min_hz ? json(*s.min_hz) : json()},
                     {"max_hz", s.max_hz ? json(*s.max_hz) : json()},
                     {"cur_hz", s.cur_hz ? json(*s.cur_hz) : json()},
                     {"governor", s.governor}};
    json requested = {
        {"min_hz", pin.requested_min_hz}, {"max_hz", pin.requested_max_hz}, {"governor", pin.requested_governor}};
    out.push_back({{"domain", pin.domain}, {"requested", requested}, {"achieved", achieved}});
  }
  return out;
}

json PinEngine::lease_json(const LeaseRecord& l) const {
  auto found = watch_.find(l.id);
  json domains = json::array();
  for (const auto& d : l.domains) {
    json files = json::array();
    for (const auto& f : d.files) {
      bool changed = found != watch_.end() && found->second.diverged.count(f.path) != 0;
      files.push_back({{"role", pin_role_name(f.role)},
                       {"path", f.path},
                       {"saved", f.saved},
                       {"pinned", f.pinned},
                       {"external_change", changed}});
    }
    domains.push_back({{"domain", d.domain},
                       {"requested_min_hz", d.requested_min_hz},
                       {"requested_max_hz", d.requested_max_hz},
                       {"requested_governor", d.requested_governor},
                       {"files", files}});
  }
  json j = {{"id", l.id},
            {"kind", lease_kind_name(l.kind)},
            {"state", lease_state_name(l.state)},
            {"created_boot_ns", l.created_boot_ns},
            {"created_wall_ns", l.created_wall_ns},
            {"domains", domains}};
  if (l.kind == LeaseKind::kConnection) j["connection"] = l.connection;
  if (l.kind == LeaseKind::kRun) j["run"] = l.run_id;
  if (l.kind == LeaseKind::kDuration) {
    j["expires_boot_ns"] = l.expires_boot_ns;
    j["expires_in_ms"] = std::max<int64_t>(0, (l.expires_boot_ns - clock_.boot_ns()) / kNsPerMs);
  }
  j["external_changes"] = found == watch_.end() ? 0 : found->second.diverged.size();
  j["owner_uid"] = l.owner_uid ? json(*l.owner_uid) : json();
  return j;
}

json PinEngine::snapshot() const {
  json leases = json::array();
  for (const auto& l : journal_.leases) leases.push_back(lease_json(l));
  json events = json::array();
  for (const auto& e : events_.latest(50)) events.push_back(clock_event_json(e));
  return {{"leases", leases}, {"events", events}, {"journal", journal_path_}};
}

}  // namespace energy::daemon
