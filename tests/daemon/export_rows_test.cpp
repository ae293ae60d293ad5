// export_rows: an export page written as JSON text a row at a time must read
// as the document it replaces (rows, then the page's fields), replace bytes
// that are not UTF-8 as replies do, and stop when its client has gone.
#include "export_rows.h"

#include <gtest/gtest.h>

namespace energy::daemon {
namespace {

StoreReadings::ExportRow reading_row(const std::string& rail, int64_t t_ns) {
  StoreReadings::ExportRow row;
  row.boot_id = "6f1c5a0e-1b7e-4c55-9a63-2f0d3c9d8e11";
  row.rail = rail;
  row.t_ns = t_ns;
  row.wall_ns = t_ns + 1'700'000'000'000'000'000;
  row.reading.voltage_mv = 5000;
  row.reading.current_ma = 1000 + static_cast<int32_t>(t_ns % 7);
  row.reading.power_uw = 5'000'000;
  return row;
}

nlohmann::json parse(const Result<std::string>& text) {
  EXPECT_TRUE(text.ok()) << text.error().describe();
  if (!text) return nullptr;
  auto j = nlohmann::json::parse(*text, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << text->substr(0, 300);
  return j;
}

TEST(ExportPageText, ReadsAsTheDocumentOfItsRowsAndFields) {
  std::vector<StoreReadings::ExportRow> rows;
  for (int64_t t = 0; t < 9000; ++t) rows.push_back(reading_row(t % 2 == 0 ? "VDD_IN" : "VDD_SOC", t));
  rows[3].reading.err = 5;  // EIO: the row has errno instead of the quantities
  nlohmann::json expected_rows = nlohmann::json::array();
  for (const auto& r : rows) expected_rows.push_back(export_row_json(r));
  nlohmann::json fields = {{"truncated", true}, {"next_since_wall_ns", 42}, {"run", 3}};

  nlohmann::json page = parse(export_page_text(rows, fields, {}));

  nlohmann::json expected = fields;
  expected["rows"] = expected_rows;
  EXPECT_EQ(page, expected);
  EXPECT_EQ(page["rows"][3]["errno"], 5);
  EXPECT_FALSE(page["rows"][3].contains("power_uw"));
}

TEST(ExportPageText, NoRowsIsAnEmptyArray) {
  nlohmann::json page = parse(export_page_text({}, {{"truncated", false}}, {}));
  EXPECT_EQ(page, nlohmann::json({{"rows", nlohmann::json::array()}, {"truncated", false}}));
}

TEST(ExportPageText, BytesThatAreNotUtf8AreReplacedAsInEveryReply) {
  std::vector<StoreReadings::ExportRow> rows{reading_row("VDD_\xff\xfe", 1)};
  nlohmann::json page = parse(export_page_text(rows, {{"truncated", false}}, {}));
  EXPECT_EQ(page["rows"][0]["rail"], "VDD_\xef\xbf\xbd\xef\xbf\xbd") << "U+FFFD for each bad byte";
}

TEST(ExportPageText, StopsWithAStateErrorOnceItsClientHasGone) {
  std::vector<StoreReadings::ExportRow> rows(10000, reading_row("VDD_IN", 1));
  int asked = 0;
  auto page = export_page_text(rows, {{"truncated", false}}, [&] { return ++asked == 2; });
  ASSERT_FALSE(page.ok());
  EXPECT_EQ(page.error().code, ErrorCode::kState);
  EXPECT_EQ(asked, 2) << "asked every few thousand rows, and no more once told";
}

}  // namespace
}  // namespace energy::daemon
