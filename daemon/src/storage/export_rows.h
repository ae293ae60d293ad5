// The readings of the `export` verb and of a run's export as JSON rows
// (docs/PROTOCOL.md "export"), and one page of the `export` verb read from
// its own reader connection.
//
// Thread-safety: reentrant; export_page opens its own Store connection, so
// it may run on any worker thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "energy/result.h"
#include "energy/store.h"

namespace energy::daemon {

// A page of an export (by wall time or of a run) holds at most this many
// rows and ends on a sweep boundary. A page is built as a JSON document
// (~500 B a row) before it is written (~110 B a row), so this bounds the
// memory one export costs to ~10 MB, whatever the database holds (the
// earlier 200,000 rows allowed ~100 MB for one page).
constexpr size_t kExportPageRows = 20'000;

// One row of an export page: boot_id, rail, t_ns, wall_ns and the reading
// (voltage_mv, current_ma, power_uw) or its errno.
nlohmann::json export_row_json(const Store::ExportRow& row);

// One page of the `export` verb from the database at `db_path` (opened here,
// on the caller's thread). `cancelled` (if set) is asked now and then while
// the page is built; true stops it with a `state` error (its client left).
Result<nlohmann::json> export_page(const std::string& db_path, int64_t since_wall_ns, int64_t until_wall_ns,
                                   const std::string& rail, const std::function<bool()>& cancelled = {});

}  // namespace energy::daemon
