// The raw tier of the Store: chunk rows, their readings, running energy.
#include <algorithm>

#include "energy/store_readings.h"
#include "sqlite.h"

namespace energy {
namespace {

constexpr const char* kRailChunkColumns =
    "rc.data, rc.valid, rc.failed, rc.min_uw, rc.max_uw, rc.first_t_ns, rc.first_uw, rc.first_cum_uj, "
    "rc.last_t_ns, rc.last_uw, rc.last_cum_uj";

RailCursor cursor_at(const sql::Stmt& st, int col) {
  if (st.null_at(col)) return RailCursor{};
  return RailCursor{true, st.int_at(col), st.int_at(col + 1), st.double_at(col + 2)};
}

// Reads kRailChunkColumns starting at column `col`.
RailChunk rail_chunk_from(const sql::Stmt& st, int col) {
  RailChunk r;
  r.data = st.blob_at(col);
  r.valid = st.int_at(col + 1);
  r.failed = st.int_at(col + 2);
  r.min_power_uw = st.int_at(col + 3);
  r.max_power_uw = st.int_at(col + 4);
  r.first = cursor_at(st, col + 5);
  r.last = cursor_at(st, col + 8);
  return r;
}

void bind_cursor(sql::Stmt& st, int index, const RailCursor& c) {
  if (!c.has_last) {
    st.bind_null(index).bind_null(index + 1).bind_null(index + 2);
    return;
  }
  st.bind(index, c.last_t_ns).bind(index + 1, c.last_power_uw).bind(index + 2, c.cum_uj);
}

Result<int64_t> upsert_chunk_row(sql::Db& db, int64_t boot, const Chunk& c) {
  auto st = db.prepare(
      "INSERT INTO chunks(boot, t_first_ns, t_last_ns, sweeps, wall_offset_ns, times) VALUES(?1, ?2, ?3, ?4, ?5, ?6) "
      "ON CONFLICT(boot, t_first_ns) DO UPDATE SET t_last_ns=?3, sweeps=?4, wall_offset_ns=?5, times=?6");
  if (!st) return st.take_error();
  st->bind(1, boot).bind(2, c.t_first_ns).bind(3, c.t_last_ns).bind(4, c.sweeps).bind(5, c.wall_offset_ns);
  auto done = st->bind_blob(6, c.times).run();
  if (!done) return done.take_error();
  auto id = db.prepare("SELECT id FROM chunks WHERE boot = ?1 AND t_first_ns = ?2");
  if (!id) return id.take_error();
  auto r = id->bind(1, boot).bind(2, c.t_first_ns).step();
  if (!r) return r.take_error();
  return id->int_at(0);
}

// The segment a -> b interpolated at t.
double power_between(const RailCursor& a, const RailCursor& b, int64_t t) {
  double p_a = static_cast<double>(a.last_power_uw);
  if (b.last_t_ns == a.last_t_ns) return p_a;
  double f = static_cast<double>(t - a.last_t_ns) / static_cast<double>(b.last_t_ns - a.last_t_ns);
  return p_a + f * (static_cast<double>(b.last_power_uw) - p_a);
}

// Trapezoid over [a.t, t] of the segment a -> b, interpolated at t.
double partial_uj(const RailCursor& a, const RailCursor& b, int64_t t) {
  if (b.last_t_ns == a.last_t_ns) return 0;
  return (static_cast<double>(a.last_power_uw) + power_between(a, b, t)) / 2.0 * static_cast<double>(t - a.last_t_ns) /
         1e9;
}

}  // namespace

struct StoreReadings::Edge {
  int64_t chunk_id = 0;
  RailChunk rail;
};

Status StoreReadings::put_chunk(int64_t boot, const std::vector<int64_t>& rail_ids, const Chunk& c) {
  if (c.sweeps == 0) return ok_status();
  if (rail_ids.size() != c.rails.size()) {
    return make_error(ErrorCode::kInvalid, "chunk has " + std::to_string(c.rails.size()) + " rails, " +
                                               std::to_string(rail_ids.size()) + " ids given");
  }
  auto id = upsert_chunk_row(*db_, boot, c);
  if (!id) return id.take_error();
  auto st = db_->prepare(
      "INSERT OR REPLACE INTO rail_chunks(chunk, rail, data, valid, failed, min_uw, max_uw, first_t_ns, first_uw, "
      "first_cum_uj, last_t_ns, last_uw, last_cum_uj) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)");
  if (!st) return st.take_error();
  for (size_t i = 0; i < c.rails.size(); ++i) {
    const RailChunk& r = c.rails[i];
    st->bind(1, *id).bind(2, rail_ids[i]).bind_blob(3, r.data).bind(4, r.valid).bind(5, r.failed);
    st->bind(6, r.min_power_uw).bind(7, r.max_power_uw);
    bind_cursor(*st, 8, r.first);
    bind_cursor(*st, 11, r.last);
    auto done = st->run();
    if (!done) return done;
  }
  return ok_status();
}

Result<std::vector<RailCursor>> StoreReadings::resume_cursors(int64_t boot, const std::vector<int64_t>& rail_ids) {
  std::vector<RailCursor> out;
  for (int64_t rail : rail_ids) {
    auto c = cursor_before(boot, rail, INT64_MAX);
    if (!c) return c.take_error();
    out.push_back(c->value_or(RailCursor{}));
  }
  return out;
}

// The latest chunk of the boot starting at or before t, with this rail's
// row: a live chunk (newer than any stored) when one starts at or before t.
Result<std::optional<StoreReadings::Edge>> StoreReadings::chunk_at_or_before(int64_t boot, int64_t rail_id,
                                                                             int64_t t_ns) {
  int pos = live_rail(boot, rail_id);
  for (size_t i = pos < 0 ? 0 : live_->chunks.size(); i > 0; --i) {
    const Chunk& c = live_->chunks[i - 1];
    if (c.t_first_ns <= t_ns)
      return std::optional<Edge>(Edge{-static_cast<int64_t>(i), c.rails[static_cast<size_t>(pos)]});
  }
  auto st = db_->prepare(std::string("SELECT c.id, ") + kRailChunkColumns +
                         " FROM chunks c JOIN rail_chunks rc ON rc.chunk = c.id AND rc.rail = ?2"
                         " WHERE c.boot = ?1 AND c.t_first_ns <= ?3 ORDER BY c.t_first_ns DESC LIMIT 1");
  if (!st) return st.take_error();
  auto r = st->bind(1, boot).bind(2, rail_id).bind(3, t_ns).step();
  if (!r) return r.take_error();
  if (*r != sql::StepResult::kRow) return std::optional<Edge>();
  return std::optional<Edge>(Edge{st->int_at(0), rail_chunk_from(*st, 1)});
}

// The running-energy cursor at the last valid reading at or before t.
Result<std::optional<RailCursor>> StoreReadings::cursor_before(int64_t boot, int64_t rail_id, int64_t t_ns) {
  auto edge = chunk_at_or_before(boot, rail_id, t_ns);
  if (!edge) return edge.take_error();
  if (!edge->has_value()) return std::optional<RailCursor>();
  if ((*edge)->rail.last.has_last && (*edge)->rail.last.last_t_ns <= t_ns) {
    return std::optional<RailCursor>((*edge)->rail.last);
  }
  auto readings = decode((*edge)->chunk_id, rail_id);
  if (!readings) return readings.take_error();
  std::optional<RailCursor> best;
  for (const auto& r : *readings) {
    if (r.reading.err == 0 && r.t_ns <= t_ns) best = RailCursor{true, r.t_ns, r.reading.power_uw, r.cum_uj};
  }
  if (best || readings->empty()) return best;
  // No valid reading of this chunk is at or before t: look before the chunk
  // (its first valid reading may be after t, so that is no place to restart).
  return cursor_before(boot, rail_id, readings->front().t_ns - 1);
}

// The running-energy cursor at the first valid reading at or after t.
Result<std::optional<RailCursor>> StoreReadings::cursor_after(int64_t boot, int64_t rail_id, int64_t t_ns) {
  auto edge = chunk_at_or_before(boot, rail_id, t_ns);
  if (!edge) return edge.take_error();
  // The chunk is decoded only when its last valid reading is at or after t:
  // retention asks for the reading after a chunk's end (issue 16).
  const RailCursor* last = edge->has_value() ? &(*edge)->rail.last : nullptr;
  if (last != nullptr && last->has_last && last->last_t_ns >= t_ns) {
    auto readings = decode((*edge)->chunk_id, rail_id);
    if (!readings) return readings.take_error();
    for (const auto& r : *readings) {
      if (r.reading.err == 0 && r.t_ns >= t_ns)
        return std::optional<RailCursor>(RailCursor{true, r.t_ns, r.reading.power_uw, r.cum_uj});
    }
  }
  return first_cursor_after_chunk(boot, rail_id, t_ns);
}

// The first valid reading of the first chunk starting after t that has one.
Result<std::optional<RailCursor>> StoreReadings::first_cursor_after_chunk(int64_t boot, int64_t rail_id, int64_t t_ns) {
  auto st = db_->prepare(std::string("SELECT c.id, ") + kRailChunkColumns +
                         " FROM chunks c JOIN rail_chunks rc ON rc.chunk = c.id AND rc.rail = ?2"
                         " WHERE c.boot = ?1 AND c.t_first_ns > ?3 AND rc.first_t_ns IS NOT NULL"
                         " ORDER BY c.t_first_ns LIMIT 1");
  if (!st) return st.take_error();
  auto r = st->bind(1, boot).bind(2, rail_id).bind(3, t_ns).step();
  if (!r) return r.take_error();
  if (*r == sql::StepResult::kRow) return std::optional<RailCursor>(rail_chunk_from(*st, 1).first);
  int pos = live_rail(boot, rail_id);
  for (size_t i = 0; pos >= 0 && i < live_->chunks.size(); ++i) {
    const RailChunk& rc = live_->chunks[i].rails[static_cast<size_t>(pos)];
    if (live_->chunks[i].t_first_ns > t_ns && rc.first.has_last) return std::optional<RailCursor>(rc.first);
  }
  return std::optional<RailCursor>();
}

Result<std::vector<StoredReading>> StoreReadings::decode(int64_t chunk_id, int64_t rail_id) {
  if (chunk_id < 0) {  // a live chunk (chunk_at_or_before)
    int pos = live_ ? live_rail(live_->boot, rail_id) : -1;
    size_t i = static_cast<size_t>(-chunk_id - 1);
    if (pos < 0 || i >= live_->chunks.size()) return std::vector<StoredReading>();
    const Chunk& c = live_->chunks[i];
    return decode_rail_chunk(c.times, c.rails[static_cast<size_t>(pos)], live_->units[static_cast<size_t>(pos)]);
  }
  auto st = db_->prepare(std::string("SELECT c.times, r.power_unit_uw, ") + kRailChunkColumns +
                         " FROM chunks c JOIN rail_chunks rc ON rc.chunk = c.id JOIN rails r ON r.id = rc.rail"
                         " WHERE c.id = ?1 AND rc.rail = ?2");
  if (!st) return st.take_error();
  auto r = st->bind(1, chunk_id).bind(2, rail_id).step();
  if (!r) return r.take_error();
  if (*r != sql::StepResult::kRow) return std::vector<StoredReading>();
  return decode_rail_chunk(st->blob_at(0), rail_chunk_from(*st, 2), st->int_at(1));
}

// The valid readings around t (what cursor_before and cursor_after give)
// from one lookup of the chunk holding t and at most one decode of it.
Result<StoreReadings::Around> StoreReadings::cursors_around(int64_t boot, int64_t rail_id, int64_t t_ns) {
  Around out;
  auto edge = chunk_at_or_before(boot, rail_id, t_ns);
  if (!edge) return edge.take_error();
  if (!edge->has_value()) return out;
  const RailCursor& last = (*edge)->rail.last;
  if (last.has_last && last.last_t_ns <= t_ns) {
    out.before = last;  // no valid reading after t in this chunk
    return out;
  }
  auto readings = decode((*edge)->chunk_id, rail_id);
  if (!readings) return readings.take_error();
  for (const auto& r : *readings) {
    if (r.reading.err != 0) continue;
    RailCursor c{true, r.t_ns, r.reading.power_uw, r.cum_uj};
    if (r.t_ns <= t_ns) out.before = c;
    if (r.t_ns >= t_ns && !out.after) out.after = c;
  }
  if (out.before || readings->empty()) return out;
  // No valid reading of this chunk is at or before t: look before the chunk.
  auto before = cursor_before(boot, rail_id, readings->front().t_ns - 1);
  if (!before) return before.take_error();
  out.before = *before;
  return out;
}

Result<std::optional<StoreReadings::RunningEnergy>> StoreReadings::running_energy_at(int64_t boot, int64_t rail_id,
                                                                                     int64_t t_ns) {
  using Answer = std::optional<RunningEnergy>;
  auto around = cursors_around(boot, rail_id, t_ns);
  if (!around) return around.take_error();
  if (!around->before) return Answer();
  const RailCursor& before = *around->before;
  if (before.last_t_ns == t_ns) return Answer(RunningEnergy{before.cum_uj, static_cast<double>(before.last_power_uw)});
  if (!around->after) {
    auto next = first_cursor_after_chunk(boot, rail_id, t_ns);
    if (!next) return next.take_error();
    around->after = *next;
  }
  if (!around->after) return Answer();
  return Answer(RunningEnergy{before.cum_uj + partial_uj(before, *around->after, t_ns),
                              power_between(before, *around->after, t_ns)});
}

Result<std::optional<double>> StoreReadings::power_at(int64_t boot, int64_t rail_id, int64_t t_ns) {
  auto live = refresh_live();
  if (!live) return live.take_error();
  auto e = running_energy_at(boot, rail_id, t_ns);
  if (!e) return e.take_error();
  if (!e->has_value()) return std::optional<double>();
  return std::optional<double>((*e)->power_uw);
}

Result<std::optional<double>> StoreReadings::energy_uj(int64_t boot, int64_t rail_id, EnergyWindow w) {
  auto live = refresh_live();
  if (!live) return live.take_error();
  auto a = running_energy_at(boot, rail_id, w.begin_ns);
  if (!a) return a.take_error();
  auto b = running_energy_at(boot, rail_id, w.end_ns);
  if (!b) return b.take_error();
  if (!a->has_value() || !b->has_value()) return std::optional<double>();
  return std::optional<double>((*b)->cum_uj - (*a)->cum_uj);
}

// Readings inside the window, plus the nearest valid reading on each side.
Result<std::vector<PowerPoint>> StoreReadings::rail_points(int64_t boot, int64_t rail_id, EnergyWindow w) {
  auto live = refresh_live();
  if (!live) return live.take_error();
  auto first = db_->prepare(
      "SELECT coalesce(max(t_first_ns), -9223372036854775807) FROM chunks "
      "WHERE boot = ?1 AND t_first_ns <= ?2");
  if (!first) return first.take_error();
  auto start = first->bind(1, boot).bind(2, w.begin_ns).step();
  if (!start) return start.take_error();
  auto st = db_->prepare("SELECT id FROM chunks WHERE boot = ?1 AND t_first_ns BETWEEN ?2 AND ?3 ORDER BY t_first_ns");
  if (!st) return st.take_error();
  st->bind(1, boot).bind(2, first->int_at(0)).bind(3, w.end_ns);
  std::vector<PowerPoint> out;
  auto before = cursor_before(boot, rail_id, w.begin_ns - 1);
  if (!before) return before.take_error();
  if (before->has_value()) out.push_back(PowerPoint{(*before)->last_t_ns, (*before)->last_power_uw, true});
  auto rows = sql::for_each_row(*st, [&] { return append_points(st->int_at(0), rail_id, w, out); });
  if (!rows) return rows.take_error();
  for (size_t i = 0; live_rail(boot, rail_id) >= 0 && i < live_->chunks.size(); ++i) {
    if (live_->chunks[i].t_first_ns > w.end_ns || live_->chunks[i].t_last_ns < w.begin_ns) continue;
    auto st_points = append_points(-static_cast<int64_t>(i) - 1, rail_id, w, out);
    if (!st_points) return st_points.take_error();
  }
  auto after = cursor_after(boot, rail_id, w.end_ns + 1);
  if (!after) return after.take_error();
  if (after->has_value()) out.push_back(PowerPoint{(*after)->last_t_ns, (*after)->last_power_uw, true});
  return out;
}

// The chunk's readings of the rail inside the window, appended to `out`.
Status StoreReadings::append_points(int64_t chunk_id, int64_t rail_id, EnergyWindow w, std::vector<PowerPoint>& out) {
  auto readings = decode(chunk_id, rail_id);
  if (!readings) return readings.take_error();
  for (const auto& sr : *readings) {
    if (sr.t_ns >= w.begin_ns && sr.t_ns <= w.end_ns)
      out.push_back({sr.t_ns, sr.reading.power_uw, sr.reading.err == 0, sr.reading.voltage_mv});
  }
  return ok_status();
}

Result<int64_t> StoreReadings::sample_count() {
  auto live = refresh_live();
  if (!live) return live.take_error();
  auto stored = db_->query_int("SELECT coalesce(sum(sweeps), 0) FROM chunks");
  if (!stored || !live_) return stored;
  int64_t n = *stored;
  for (const auto& c : live_->chunks) n += c.sweeps;
  return n;
}

Result<std::optional<int64_t>> StoreReadings::last_sample_ns(int64_t boot) {
  auto live = refresh_live();
  if (!live) return live.take_error();
  if (live_ && live_->boot == boot && !live_->chunks.empty())
    return std::optional<int64_t>(live_->chunks.back().t_last_ns);
  return stored_last_ns(boot);
}

}  // namespace energy

namespace energy {
namespace {

struct ExportChunk {
  int64_t wall_offset_ns;
  std::string boot_id;
  std::string times;
  std::string rail;
  int64_t unit;
  RailChunk data;
};

// Export queries select these columns, the rows of one chunk adjacent.
constexpr const char* kExportColumns = "SELECT c.wall_offset_ns, b.boot_id, c.times, r.label, r.power_unit_uw, ";
constexpr const char* kExportJoins =
    ", c.id FROM chunks c JOIN boots b ON b.id = c.boot JOIN rail_chunks rc ON rc.chunk = c.id"
    " JOIN rails r ON r.id = rc.rail";
constexpr int kChunkIdColumn = 16;

// The readings of the statement's rows that `keep(t_ns, wall_ns)` accepts.
// Whole chunks only: it stops at a chunk boundary once more than `limit`
// rows are kept, so every sweep it returns has all its rails (a page cut at
// row `limit` then never loses a rail's readings).
template <typename Keep>
Result<std::vector<StoreReadings::ExportRow>> collect_export(sql::Stmt& st, size_t limit, Keep keep) {
  std::vector<StoreReadings::ExportRow> out;
  int64_t chunk_id = -1;
  auto rows = sql::for_each_row(st, [&]() -> Result<bool> {
    if (st.int_at(kChunkIdColumn) != chunk_id && out.size() > limit) return false;
    chunk_id = st.int_at(kChunkIdColumn);
    ExportChunk c{st.int_at(0), st.text_at(1), st.blob_at(2), st.text_at(3), st.int_at(4), rail_chunk_from(st, 5)};
    auto rs = decode_rail_chunk(c.times, c.data, c.unit);
    if (!rs) return rs.take_error();
    for (const auto& reading : *rs) {
      int64_t wall = reading.t_ns + c.wall_offset_ns;
      if (keep(reading.t_ns, wall))
        out.push_back(StoreReadings::ExportRow{c.boot_id, c.rail, reading.t_ns, wall, reading.reading});
    }
    return true;
  });
  if (!rows) return rows.take_error();
  return out;
}

}  // namespace

// The live chunks' rows that `keep(t_ns, wall_ns)` accepts, whole chunks
// while `out` holds at most `limit` rows (as collect_export reads).
Status StoreReadings::append_live_rows(const std::function<bool(int64_t, int64_t)>& keep, const std::string& rail_label,
                                       size_t limit, std::vector<ExportRow>& out) {
  for (size_t i = 0; live_ && i < live_->chunks.size() && out.size() <= limit; ++i) {
    const Chunk& c = live_->chunks[i];
    for (size_t r = 0; r < live_->rail_ids.size(); ++r) {
      if (!rail_label.empty() && live_->labels[r] != rail_label) continue;
      auto rs = decode_rail_chunk(c.times, c.rails[r], live_->units[r]);
      if (!rs) return rs.take_error();
      for (const auto& reading : *rs) {
        int64_t wall = reading.t_ns + c.wall_offset_ns;
        if (keep(reading.t_ns, wall))
          out.push_back(ExportRow{live_->boot_id, live_->labels[r], reading.t_ns, wall, reading.reading});
      }
    }
  }
  return ok_status();
}

Result<std::vector<StoreReadings::ExportRow>> StoreReadings::export_readings(int64_t since, int64_t until,
                                                                             const std::string& rail, size_t limit) {
  auto live = refresh_live();
  if (!live) return live.take_error();
  auto st = db_->prepare(std::string(kExportColumns) + kRailChunkColumns + kExportJoins +
                         " WHERE c.t_last_ns + c.wall_offset_ns >= ?1 AND c.t_first_ns + c.wall_offset_ns <= ?2"
                         " AND (?3 = '' OR r.label = ?3) ORDER BY c.t_first_ns + c.wall_offset_ns, c.id, r.id");
  if (!st) return st.take_error();
  st->bind(1, since).bind(2, until).bind(3, std::string_view(rail));
  auto keep = [&](int64_t, int64_t wall) { return wall >= since && wall <= until; };
  auto out = collect_export(*st, limit, keep);
  if (!out) return out.take_error();
  auto with_live = append_live_rows(keep, rail, limit, *out);
  if (!with_live) return with_live.take_error();
  std::stable_sort(out->begin(), out->end(),
                   [](const ExportRow& a, const ExportRow& b) { return a.wall_ns < b.wall_ns; });
  return out;
}

Result<std::vector<StoreReadings::ExportRow>> StoreReadings::export_boot_readings(int64_t boot, EnergyWindow w,
                                                                                  const std::string& rail,
                                                                                  size_t limit) {
  auto live = refresh_live();
  if (!live) return live.take_error();
  auto st = db_->prepare(std::string(kExportColumns) + kRailChunkColumns + kExportJoins +
                         " WHERE c.boot = ?1 AND c.t_last_ns >= ?2 AND c.t_first_ns <= ?3"
                         " AND (?4 = '' OR r.label = ?4) ORDER BY c.t_first_ns, r.id");
  if (!st) return st.take_error();
  st->bind(1, boot).bind(2, w.begin_ns).bind(3, w.end_ns).bind(4, std::string_view(rail));
  auto keep = [&](int64_t t, int64_t) { return t >= w.begin_ns && t <= w.end_ns; };
  auto out = collect_export(*st, limit, keep);
  if (!out) return out.take_error();
  auto with_live = live_ && live_->boot == boot ? append_live_rows(keep, rail, limit, *out) : ok_status();
  if (!with_live) return with_live.take_error();
  std::stable_sort(out->begin(), out->end(), [](const ExportRow& a, const ExportRow& b) { return a.t_ns < b.t_ns; });
  return out;
}

}  // namespace energy
