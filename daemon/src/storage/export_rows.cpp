#include "export_rows.h"

namespace energy::daemon {
namespace {

// A page under construction asks whether its client is still there this often.
constexpr size_t kRowsPerCancelCheck = 4096;
// Text a row takes, for reserving a page's string at once (a row with a
// 36-character boot id and a 14-character rail label takes ~150 B).
constexpr size_t kTextBytesPerRow = 160;
// Room left for the reply's envelope and frame header (Responder::reply_text
// frames the text in its own buffer).
constexpr size_t kEnvelopeBytes = 64;

// As protocol::encode_frame writes replies: bytes that are not UTF-8 are replaced.
void append_json(std::string& out, const nlohmann::json& value) {
  out += value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

nlohmann::json export_row_json(const StoreReadings::ExportRow& row) {
  nlohmann::json j = {{"boot_id", row.boot_id}, {"rail", row.rail}, {"t_ns", row.t_ns}, {"wall_ns", row.wall_ns}};
  if (row.reading.err != 0) j["errno"] = row.reading.err;
  if (row.reading.err == 0) {
    j["voltage_mv"] = row.reading.voltage_mv;
    j["current_ma"] = row.reading.current_ma;
    j["power_uw"] = row.reading.power_uw;
  }
  return j;
}

Result<std::string> export_page_text(const std::vector<StoreReadings::ExportRow>& rows, const nlohmann::json& fields,
                                     const ExportCancelFn& cancelled) {
  std::string out;
  out.reserve(kEnvelopeBytes + 64 + rows.size() * kTextBytesPerRow);
  out += "{\"rows\":[";
  for (size_t i = 0; i < rows.size(); ++i) {
    if (i % kRowsPerCancelCheck == 0 && cancelled && cancelled()) {
      return make_error(ErrorCode::kState, "export cancelled: its client has gone");
    }
    if (i > 0) out += ',';
    append_json(out, export_row_json(rows[i]));
  }
  out += ']';
  for (const auto& [key, value] : fields.items()) {
    out += ',';
    append_json(out, key);
    out += ':';
    append_json(out, value);
  }
  out += '}';
  return out;
}

Result<std::string> export_page(const std::string& db_path, int64_t since, int64_t until, const std::string& rail,
                                const ExportCancelFn& cancelled) {
  auto store = Store::open(db_path, StoreRole::kReader, 5000);
  if (!store) return make_error(store.error().code, "storage unavailable: " + store.error().describe());
  auto rows = (*store)->readings().export_readings(since, until, rail, kExportPageRows + 1);
  if (!rows) return rows.take_error();
  bool truncated = rows->size() > kExportPageRows;
  int64_t next = truncated ? (*rows)[kExportPageRows].wall_ns : 0;
  if (truncated) {  // end the page before the sweep the next page starts with
    while (!rows->empty() && rows->back().wall_ns >= next) rows->pop_back();
  }
  nlohmann::json fields = {{"truncated", truncated}};
  if (truncated) fields["next_since_wall_ns"] = next;
  return export_page_text(*rows, fields, cancelled);
}

}  // namespace energy::daemon
