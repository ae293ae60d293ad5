#include "export_rows.h"

namespace energy::daemon {

nlohmann::json export_row_json(const Store::ExportRow& row) {
  nlohmann::json j = {{"boot_id", row.boot_id}, {"rail", row.rail}, {"t_ns", row.t_ns}, {"wall_ns", row.wall_ns}};
  if (row.reading.err != 0) j["errno"] = row.reading.err;
  if (row.reading.err == 0) {
    j["voltage_mv"] = row.reading.voltage_mv;
    j["current_ma"] = row.reading.current_ma;
    j["power_uw"] = row.reading.power_uw;
  }
  return j;
}

Result<nlohmann::json> export_page(const std::string& db_path, int64_t since, int64_t until, const std::string& rail,
                                   const std::function<bool()>& cancelled) {
  auto store = Store::open(db_path, StoreRole::kReader, 5000);
  if (!store) return make_error(store.error().code, "storage unavailable: " + store.error().describe());
  auto rows = (*store)->export_readings(since, until, rail, kExportPageRows + 1);
  if (!rows) return rows.take_error();
  bool truncated = rows->size() > kExportPageRows;
  int64_t next = truncated ? (*rows)[kExportPageRows].wall_ns : 0;
  if (truncated) {  // end the page before the sweep the next page starts with
    while (!rows->empty() && rows->back().wall_ns >= next) rows->pop_back();
  }
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < rows->size(); ++i) {
    if (i % 4096 == 0 && cancelled && cancelled()) {
      return make_error(ErrorCode::kState, "export cancelled: its client has gone");
    }
    out.push_back(export_row_json((*rows)[i]));
  }
  nlohmann::json page = {{"rows", std::move(out)}, {"truncated", truncated}};
  if (truncated) page["next_since_wall_ns"] = next;
  return page;
}

}  // namespace energy::daemon
