// The energy counters' record (schema 6): one row per rail label, each with
// the counters' id and start, replaced as a whole in the writer's flush.
#include "energy/store_counters.h"

#include <cmath>
#include <set>

#include "energy/sweep_tail.h"
#include "sqlite.h"
#include "tail_counters.h"

namespace energy {

namespace {

bool is_counters_id(const std::string& id) {
  if (id.size() != 16) return false;
  for (char c : id) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace

std::optional<StoredCounters> last_counters(const std::vector<TailFrame>& frames) {
  for (auto it = frames.rbegin(); it != frames.rend(); ++it) {
    if (it->counters) return it->counters;
  }
  return std::nullopt;
}

Status validate_counters(const StoredCounters& c, const std::string& where) {
  auto bad = [&](const std::string& what) { return make_error(ErrorCode::kParse, where + ": " + what); };
  if (!is_counters_id(c.counters_id))
    return bad("counters_id must be 16 lowercase hex digits, got \"" + c.counters_id + "\"");
  if (c.created_wall_ns < 0) return bad("created_wall_ns must be >= 0, got " + std::to_string(c.created_wall_ns));
  std::set<std::string> seen;
  for (const auto& [label, uj] : c.energy_uj) {
    if (!std::isfinite(uj) || uj < 0)
      return bad("energy_uj \"" + label + "\" must be a number >= 0, got " + std::to_string(uj));
    if (!seen.insert(label).second) return bad("rail \"" + label + "\" appears twice");
  }
  return ok_status();
}

Status StoreCounters::put(const StoredCounters& c) {
  auto st = validate_counters(c, "energy counters to store");  // never store what the next start would refuse
  if (!st) return st;
  st = db_->exec("DELETE FROM energy_counters");  // rails gone since are dropped, as the counters drop them
  if (!st) return st;
  auto ins = db_->prepare(
      "INSERT INTO energy_counters(label, counters_id, created_wall_ns, energy_uj) VALUES(?1, ?2, ?3, ?4)");
  if (!ins) return ins.take_error();
  for (const auto& [label, uj] : c.energy_uj) {
    auto done = ins->bind(1, label).bind(2, c.counters_id).bind(3, c.created_wall_ns).bind(4, uj).run();
    if (!done) return done;
  }
  return ok_status();
}

// Every row must carry the same id and start; a record that does not is
// damaged (kCorrupt) and the counters start again from zero.
Result<std::optional<StoredCounters>> StoreCounters::get() {
  if (reader_) {  // the sweep tail's newest frame counts what the tail adds
    auto tail = from_tail();
    if (!tail || tail->has_value()) return tail;
  }
  auto sel = db_->prepare("SELECT label, counters_id, created_wall_ns, energy_uj FROM energy_counters ORDER BY label");
  if (!sel) return sel.take_error();
  std::optional<StoredCounters> out;
  auto damaged = [&](const std::string& what) {
    return make_error(ErrorCode::kCorrupt, "energy counters in " + path_ + ": " + what);
  };
  auto rows = sql::for_each_row(*sel, [&]() -> Status {
    std::string id = sel->text_at(1);
    int64_t created = sel->int_at(2);
    if (!out) out = StoredCounters{id, created, {}};
    if (id != out->counters_id || created != out->created_wall_ns) {
      return damaged("rows disagree on counters_id or created_wall_ns");
    }
    out->energy_uj.emplace_back(sel->text_at(0), sel->double_at(3));
    return ok_status();
  });
  if (!rows) return rows.take_error();
  if (!out) return out;
  auto st = validate_counters(*out, "energy counters in " + path_);
  if (!st) return make_error(ErrorCode::kCorrupt, st.error().message);
  return out;
}

Result<std::optional<StoredCounters>> StoreCounters::from_tail() {
  auto bytes = read_tail_file(path_ + "-tail");
  if (!bytes) return bytes.take_error();
  auto c = last_counters(decode_tail(*bytes).frames);
  if (c) {
    std::sort(c->energy_uj.begin(), c->energy_uj.end());
  }
  return c;
}

}  // namespace energy
