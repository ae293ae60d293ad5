// Text from energyd reaches the terminal only as escapes: terminal_safe,
// csv_field, and every text view that prints daemon strings.
#include "terminal_text.h"

#include <gtest/gtest.h>

#include "command.h"
#include "compare.h"
#include "export_format.h"
#include "live_view.h"
#include "run_list.h"

namespace energy::cli {
namespace {

// ESC ] 0 ; ... BEL retitles a terminal; ESC [ 2 J clears it; CR rewrites the line;
// U+009B is the one-byte CSI of C1.
const std::string kHostile =
    "evil\x1b]0;pwned\x07\x1b[2J\rok\x7f\xc2\x9b"
    "31m";

// No C0 control (other than the line ends the view itself prints), no DEL, no C1.
bool terminal_clean(const std::string& text) {
  for (size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\n') || c == 0x7f) return false;
    if (c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) < 0xa0) return false;
  }
  return true;
}

TEST(TerminalSafe, ShowsControlCharactersAsEscapes) {
  EXPECT_EQ(terminal_safe("a\x1b[2Jb"), "a\\x1b[2Jb");
  EXPECT_EQ(terminal_safe("tab\there\r\n"), "tab\\there\\r\\n");
  EXPECT_EQ(terminal_safe(std::string("nul\0del\x7f", 8)), "nul\\x00del\\x7f");
  EXPECT_EQ(terminal_safe("\xc2\x9b"
                          "1m"),
            "\\u009b1m");
}

TEST(TerminalSafe, KeepsPrintableTextAndValidUtf8) {
  EXPECT_EQ(terminal_safe("VDD_CPU_GPU_CV"), "VDD_CPU_GPU_CV");
  EXPECT_EQ(terminal_safe("r\xc3\xa9seau \xe2\x82\xac \xf0\x9f\x94\x8b \xc2\xa0"),
            "r\xc3\xa9seau \xe2\x82\xac \xf0\x9f\x94\x8b \xc2\xa0");
  EXPECT_EQ(terminal_safe("a\\x1b"), "a\\x1b");  // a backslash stays a backslash
}

TEST(TerminalSafe, BytesThatAreNotUtf8AreEscaped) {
  EXPECT_EQ(terminal_safe("\x9b"
                          "31m"),
            "\\x9b31m");                                        // a raw 8-bit CSI
  EXPECT_EQ(terminal_safe("\xc0\xaf"), "\\xc0\\xaf");           // overlong
  EXPECT_EQ(terminal_safe("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
  EXPECT_EQ(terminal_safe("cut \xe2\x82"), "cut \\xe2\\x82");   // truncated
}

TEST(CsvField, QuotesCommasAndQuotesAndEscapesControls) {
  EXPECT_EQ(csv_field("VDD_IN"), "VDD_IN");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("line\nbreak\x1b"), "line\\nbreak\\x1b");
}

TEST(CsvRow, RailAndBootIdAreQuotedAndCarryNoRawControls) {
  nlohmann::json row = {{"boot_id", "b,1"},   {"t_ns", 5},         {"wall_ns", 0},      {"rail", "VDD\x1b[2J,\"x\""},
                        {"voltage_mv", 5000}, {"current_ma", 100}, {"power_uw", 500000}};
  std::string line = csv_row(row);
  EXPECT_EQ(line, "\"b,1\",5,1970-01-01T00:00:00.000Z,\"VDD\\x1b[2J,\"\"x\"\"\",5000,100,500000,\n");
}

nlohmann::json hostile_report() {
  return {{"run", {{"id", 4}, {"name", kHostile}, {"state", "stopped"}, {"tags", {{"k", kHostile}}}}},
          {"duration_s", 1.0},
          {"rails", {{{"label", kHostile}, {"in_total", true}, {"energy_j", 1.0}}}},
          {"total", {{"energy_j", 1.0}}},
          {"total_rule", kHostile},
          {"missing_rails", {kHostile}},
          {"thermal", {{{"zone", kHostile}, {"min_c", 40.0}, {"max_c", 41.0}, {"known_share", 1.0}}}},
          {"baseline", {{"run", 2}, {"name", kHostile}, {"rails", nlohmann::json::array()}}},
          {"notes", {kHostile}}};
}

TEST(TerminalOutput, RunReportShowsHostileStringsOnlyAsEscapes) {
  std::string text = render_report(hostile_report());
  EXPECT_TRUE(terminal_clean(text)) << text;
  EXPECT_NE(text.find("evil\\x1b]0;pwned\\x07\\x1b[2J\\rok\\x7f\\u009b31m"), std::string::npos) << text;
}

TEST(TerminalOutput, RunListCompareLeasesAndLiveViewAreClean) {
  nlohmann::json runs = {{{"id", 1}, {"name", kHostile}, {"state", kHostile}, {"start_wall_ns", 0}}};
  EXPECT_TRUE(terminal_clean(render_run_list(runs)));
  auto comparison = compare_json({hostile_report(), hostile_report()});
  EXPECT_TRUE(terminal_clean(render_compare(comparison))) << render_compare(comparison);
  nlohmann::json leases = {
      {"leases", {{{"id", 1}, {"state", kHostile}, {"kind", kHostile}, {"domains", {{{"domain", kHostile}}}}}}}};
  EXPECT_TRUE(terminal_clean(render_leases(leases)));
  nlohmann::json status = {{"rails", {{{"label", kHostile}, {"errno", 5}, {"error", kHostile}}}}};
  nlohmann::json clocks = {{"domains", {{{"name", kHostile}}}}, {"thermal", {{{"type", kHostile}}}}};
  EXPECT_TRUE(terminal_clean(render_live(live_snapshot(status, clocks, 0))));
}

TEST(TerminalOutput, DownsampledNoteEscapesRailLabels) {
  nlohmann::json rep = {{"rails", {{{"label", kHostile}, {"resolution", "1s"}}}}};
  EXPECT_TRUE(terminal_clean(downsampled_rows_note(rep)));
}

}  // namespace
}  // namespace energy::cli
