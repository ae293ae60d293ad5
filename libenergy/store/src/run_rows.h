// Rows of the runs table as RunRecords (internal to libenergy): the column
// list every run query selects, and the row readers store.cpp and
// store_runs.cpp share.
//
// Thread-safety: functions of the statement they are given.
#pragma once

#include <vector>

#include "energy/store_runs.h"
#include "sqlite.h"

namespace energy::run_rows {

// Followed by a WHERE clause; columns in the order run_from_row reads them.
constexpr const char* kRunColumns =
    "SELECT id, name, tags, boot, start_ns, start_wall_ns, stop_ns, stop_wall_ns, state, clocks, items FROM runs ";

RunRecord run_from_row(const sql::Stmt& st);
// Steps `st` to the end, one record per row.
Result<std::vector<RunRecord>> collect_runs(sql::Stmt& st);
// The first row's record, or nullopt when there is none.
Result<std::optional<RunRecord>> first_run(sql::Stmt& st);

}  // namespace energy::run_rows
