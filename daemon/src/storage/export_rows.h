// The readings of the `export` verb and of a run's export as JSON rows
// (docs/PROTOCOL.md "export"), and one page of the `export` verb read from
// its own reader connection.
//
// A page is written as JSON text a row at a time, never held as a JSON
// document: a 20,000-row document took ~25 MB of small allocations on the
// worker thread (and stayed mapped in its malloc arena), its text takes
// ~2.5 MB. The text is the reply's `result` as it goes on the wire
// (Responder::reply_text).
//
// Thread-safety: reentrant; export_page opens its own Store connection, so
// it may run on any worker thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "energy/result.h"
#include "energy/store.h"

namespace energy::daemon {

// A page of an export (by wall time or of a run) holds at most this many
// rows and ends on a sweep boundary, which bounds what one page costs:
// ~110 B of text a row (~2.2 MB) plus the rows read (~170 B a row), whatever
// the database holds. (The earlier 200,000 rows built as a JSON document
// allowed ~100 MB for one page.)
constexpr size_t kExportPageRows = 20'000;

// True stops a page being written (its client has gone); asked every few
// thousand rows.
using ExportCancelFn = std::function<bool()>;

// One row of an export page: boot_id, rail, t_ns, wall_ns and the reading
// (voltage_mv, current_ma, power_uw) or its errno.
nlohmann::json export_row_json(const StoreReadings::ExportRow& row);

// The JSON text of an object {"rows": [rows...], <fields>...}: `rows` as
// export_row_json, then the members of `fields` (an object: truncated,
// next_since_*, run). A `state` error if `cancelled` (may be empty) says so.
Result<std::string> export_page_text(const std::vector<StoreReadings::ExportRow>& rows, const nlohmann::json& fields,
                                     const ExportCancelFn& cancelled);

// One page of the `export` verb, as JSON text (export_page_text), from the
// database at `db_path` (opened here, on the caller's thread).
Result<std::string> export_page(const std::string& db_path, int64_t since_wall_ns, int64_t until_wall_ns,
                                const std::string& rail, const ExportCancelFn& cancelled = {});

}  // namespace energy::daemon
