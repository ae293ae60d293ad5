// AveragingSettings on a simulator-built AGX Orin tree (L4T 36, static
// files: update_interval does not follow a write of samples here and keeps
// what energyd writes; the live board's behaves as the driver, see
// tests/integration/sensor_averaging_test.cpp): `period` sets each chip's
// samples and update_interval for the period after recording the originals,
// puts them back at stop and after a crash; `keep` never writes.
#include "averaging_settings.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "static_board.h"

namespace energy::daemon {
namespace {

class AveragingSettingsTest : public StaticBoardTest {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(make_board("jetson-agx-orin", 36));
    std::filesystem::create_directories(dir_ + "/state");
  }

  std::string journal() const { return dir_ + "/state/sensor-averaging.json"; }
  AveragingSettings settings(const std::string& path = "") const {
    return AveragingSettings(*root_, path.empty() ? journal() : path, clock_);
  }
  // Board path of a chip's file, and where it is on this machine.
  std::string board_file(const std::string& device, const std::string& name) const {
    for (const auto& c : discover_rails(*root_).chips) {
      if (c.device == device) return c.data_dir + "/" + name;
    }
    ADD_FAILURE() << "no chip " << device;
    return "/missing";
  }
  std::string chip_file(const std::string& device, const std::string& name) const {
    return root_->resolve(board_file(device, name)).value();
  }
  std::string samples_path(const std::string& device) const { return chip_file(device, "samples"); }
  std::string read_chip(const std::string& device, const std::string& name) const {
    std::ifstream in(chip_file(device, name));
    std::string s;
    in >> s;
    return s;
  }
  std::string samples(const std::string& device) const { return read_chip(device, "samples"); }
  std::string interval(const std::string& device) const { return read_chip(device, "update_interval"); }
  void set_samples(const std::string& device, const std::string& text) const {
    std::ofstream(samples_path(device)) << text << "\n";
  }
  // A daemon that set the chips and never stopped: its journal stays behind.
  void apply_period_and_crash() const {
    auto inv = discover_rails(*root_);
    auto crashed = settings();
    crashed.apply(SensorAveraging::kPeriod, 100, inv);
  }
  static const ChipAveraging* chip(const AveragingSettings& a, const std::string& device) {
    for (const auto& c : a.chips()) {
      if (c.device == device) return &c;
    }
    return nullptr;
  }

  SystemClock clock_;
};

TEST_F(AveragingSettingsTest, PeriodSetsFourPeriodCountsAndRecordsTheOriginals) {
  auto inv = discover_rails(*root_);
  auto a = settings();
  a.apply(SensorAveraging::kPeriod, 100, inv);
  EXPECT_EQ(samples("1-0040"), "512");  // 3 channels: 512 x 3 x 2 x 140 us = 430 ms
  EXPECT_EQ(interval("1-0040"), "430");
  EXPECT_EQ(samples("1-0041"), "1024");  // 1 channel: 140 us reach 287 ms at most; 204 us: 418
  EXPECT_EQ(interval("1-0041"), "418");
  auto j = load_averaging_journal(journal());
  ASSERT_TRUE(j.ok()) << j.error().describe();
  ASSERT_EQ(j->chips.size(), 2u);
  for (const auto& r : j->chips) {
    EXPECT_EQ(r.original, 1) << r.device;
    EXPECT_EQ(r.original_interval_ms, r.device == "1-0040" ? 7 : 2) << r.device;
    EXPECT_EQ(r.interval_path, r.path.substr(0, r.path.size() - 7) + "update_interval") << r.device;
  }
  ASSERT_NE(chip(a, "1-0040"), nullptr);
  EXPECT_TRUE(chip(a, "1-0040")->changed);
  EXPECT_EQ(chip(a, "1-0040")->original_samples, 1);
}

// The filter comes from what the chips report after the writes: the
// conversion time is the offered one closest to update_interval / (channels
// x N x 2), the filter (N - 1) exact cycles.
TEST_F(AveragingSettingsTest, TheInventoryCarriesTheFilterTheChipsReallyHave) {
  auto inv = discover_rails(*root_);
  auto a = settings();
  a.apply(SensorAveraging::kPeriod, 100, inv);
  for (const auto& c : inv.chips) {
    if (c.device == "1-0040") {
      EXPECT_EQ(c.channels, 3);
      EXPECT_EQ(c.conversion_us, 140);
      EXPECT_EQ(c.filter_ns, 511 * 840'000);
    }
  }
  for (const auto& r : inv.rails) {
    EXPECT_EQ(r.filter_ns, r.device == "1-0040" ? 511 * 840'000 : 1023 * 408'000) << r.label;
  }
}

// A chip that takes the count but refuses the update_interval (here a
// directory in its place): the count for its own 1.1 ms conversions instead,
// and the error names the file.
TEST_F(AveragingSettingsTest, AnUnwritableUpdateIntervalFallsBackToTheCountForTheChipsOwnConversions) {
  auto inv = discover_rails(*root_);
  // The file reads 7 when the plan is made, then refuses the write.
  const std::string path = chip_file("1-0040", "update_interval");
  std::filesystem::remove(path);
  std::filesystem::create_directory(path);
  auto a = settings();
  a.apply(SensorAveraging::kPeriod, 100, inv);
  EXPECT_EQ(samples("1-0040"), "64") << "7 ms cycles: 64 x 7 = 448 >= 400";
  const ChipAveraging* c = chip(a, "1-0040");
  ASSERT_NE(c, nullptr);
  EXPECT_NE(c->error.find("update_interval"), std::string::npos) << c->error;
  EXPECT_EQ(samples("1-0041"), "1024") << "the other chip is set as usual";
}

TEST_F(AveragingSettingsTest, RestorePutsTheOriginalsBackAndEmptiesTheJournal) {
  set_samples("1-0041", "4");
  auto inv = discover_rails(*root_);
  auto a = settings();
  a.apply(SensorAveraging::kPeriod, 100, inv);
  a.restore();
  EXPECT_EQ(samples("1-0040"), "1");
  EXPECT_EQ(samples("1-0041"), "4");
  auto j = load_averaging_journal(journal());
  ASSERT_TRUE(j.ok());
  EXPECT_TRUE(j->chips.empty());
}

// As after kill -9: the journal, not the chip's current value, is the original.
TEST_F(AveragingSettingsTest, AJournalLeftBehindHoldsTheOriginals) {
  apply_period_and_crash();
  ASSERT_EQ(samples("1-0040"), "512");
  auto inv = discover_rails(*root_);
  auto a = settings();
  a.apply(SensorAveraging::kPeriod, 100, inv);
  ASSERT_NE(chip(a, "1-0040"), nullptr);
  EXPECT_TRUE(chip(a, "1-0040")->changed);
  EXPECT_EQ(chip(a, "1-0040")->original_samples, 1);
  a.restore();
  EXPECT_EQ(samples("1-0040"), "1");
  EXPECT_EQ(interval("1-0040"), "7");
  EXPECT_EQ(samples("1-0041"), "1");
  EXPECT_EQ(interval("1-0041"), "2");
}

TEST_F(AveragingSettingsTest, KeepWritesNothing) {
  set_samples("1-0040", "4");
  auto inv = discover_rails(*root_);
  auto a = settings();
  a.apply(SensorAveraging::kKeep, 100, inv);
  a.restore();
  EXPECT_EQ(samples("1-0040"), "4");
  EXPECT_EQ(samples("1-0041"), "1");
  EXPECT_FALSE(std::filesystem::exists(journal()));
  for (const auto& c : a.chips()) EXPECT_FALSE(c.changed) << c.device;
}

TEST_F(AveragingSettingsTest, KeepAfterACrashPutsTheOriginalsBack) {
  apply_period_and_crash();
  auto inv = discover_rails(*root_);
  auto a = settings();
  a.apply(SensorAveraging::kKeep, 100, inv);
  EXPECT_EQ(samples("1-0040"), "1");
  EXPECT_EQ(interval("1-0040"), "7");
  EXPECT_EQ(samples("1-0041"), "1");
  EXPECT_EQ(interval("1-0041"), "2");
  auto j = load_averaging_journal(journal());
  ASSERT_TRUE(j.ok());
  EXPECT_TRUE(j->chips.empty());
}

// A reboot reset the chips: the old boot's records are not the originals.
TEST_F(AveragingSettingsTest, AJournalOfAnotherBootIsDropped) {
  set_samples("1-0040", "4");
  AveragingJournal old{"another-boot", {{"1-0040", "/x/samples", 64, 16, "/x/update_interval", 106, 54}}};
  ASSERT_TRUE(save_averaging_journal(journal(), old).ok());
  auto inv = discover_rails(*root_);
  auto a = settings();
  a.apply(SensorAveraging::kPeriod, 100, inv);
  EXPECT_EQ(chip(a, "1-0040")->original_samples, 4);
  a.restore();
  EXPECT_EQ(samples("1-0040"), "4");
}

TEST_F(AveragingSettingsTest, WithoutADurableRecordNothingIsWritten) {
  std::ofstream(dir_ + "/not-a-dir") << "x";
  auto inv = discover_rails(*root_);
  auto a = settings(dir_ + "/not-a-dir/sensor-averaging.json");
  a.apply(SensorAveraging::kPeriod, 100, inv);
  EXPECT_EQ(samples("1-0040"), "1");
  EXPECT_EQ(samples("1-0041"), "1");
  for (const auto& r : inv.rails) EXPECT_EQ(r.filter_ns, 0) << r.label;
}

TEST_F(AveragingSettingsTest, ADamagedJournalIsMovedAsideAndTheCurrentValuesTaken) {
  std::ofstream(journal()) << "{not json";
  auto inv = discover_rails(*root_);
  auto a = settings();
  a.apply(SensorAveraging::kPeriod, 100, inv);
  bool moved = false;
  for (const auto& e : std::filesystem::directory_iterator(dir_ + "/state")) {
    moved = moved || e.path().filename().string().rfind("sensor-averaging.json.damaged-", 0) == 0;
  }
  EXPECT_TRUE(moved);
  EXPECT_EQ(samples("1-0040"), "512");
  a.restore();
  EXPECT_EQ(samples("1-0040"), "1");
}

TEST(AveragingJournal, RoundTripsAndNamesTheFieldAtFault) {
  AveragingJournal j{"boot-1",
                     {{"1-0040", "/sys/bus/i2c/devices/1-0040/hwmon/hwmon3/samples", 1, 512,
                       "/sys/bus/i2c/devices/1-0040/hwmon/hwmon3/update_interval", 7, 430}}};
  auto back = averaging_journal_from_text(averaging_journal_to_text(j), "t");
  ASSERT_TRUE(back.ok()) << back.error().describe();
  EXPECT_EQ(back->boot_id, "boot-1");
  ASSERT_EQ(back->chips.size(), 1u);
  EXPECT_EQ(back->chips[0].path, j.chips[0].path);
  EXPECT_EQ(back->chips[0].original, 1);
  EXPECT_EQ(back->chips[0].set, 512);
  EXPECT_EQ(back->chips[0].interval_path, j.chips[0].interval_path);
  EXPECT_EQ(back->chips[0].original_interval_ms, 7);
  EXPECT_EQ(back->chips[0].set_interval_ms, 430);
  auto bad = averaging_journal_from_text(
      R"({"format": "energyd-sensor-averaging", "version": 2, "boot_id": "b", "chips": [{"device": "1-0040"}]})",
      "journal j");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("journal j"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("path"), std::string::npos) << bad.error().message;
  auto other = averaging_journal_from_text(R"({"format": "energyd-clock-leases", "version": 1})", "journal j");
  ASSERT_FALSE(other.ok());
  auto newer = averaging_journal_from_text(
      R"({"format": "energyd-sensor-averaging", "version": 3, "boot_id": "b", "chips": []})", "journal j");
  ASSERT_FALSE(newer.ok());
  EXPECT_NE(newer.error().message.find("1 to 2"), std::string::npos) << newer.error().message;
}

// An energyd from before conversion times were set left a version 1
// journal (counts only): it is read, with no update_interval to put back.
TEST(AveragingJournal, AVersionOneJournalIsReadWithoutIntervals) {
  auto v1 = averaging_journal_from_text(
      R"({"format": "energyd-sensor-averaging", "version": 1, "boot_id": "b",
          "chips": [{"device": "1-0040", "path": "/s", "original": 1, "set": 64}]})",
      "journal j");
  ASSERT_TRUE(v1.ok()) << v1.error().describe();
  ASSERT_EQ(v1->chips.size(), 1u);
  EXPECT_EQ(v1->chips[0].original, 1);
  EXPECT_EQ(v1->chips[0].original_interval_ms, 0);
  EXPECT_TRUE(v1->chips[0].interval_path.empty());
}

// After that older energyd crashed with the chip at 64 samples of its own
// 1.1 ms: the chip's own update_interval is 1 sample at that conversion time.
TEST_F(AveragingSettingsTest, AVersionOneJournalLeftBehindRestoresCountAndConversionTime) {
  set_samples("1-0040", "64");
  std::ofstream(chip_file("1-0040", "update_interval")) << "422\n";
  std::ofstream(journal()) << R"({"format": "energyd-sensor-averaging", "version": 1, "boot_id": ")"
                           << current_boot_id() << R"(", "chips": [{"device": "1-0040", "path": ")"
                           << board_file("1-0040", "samples") << R"(", "original": 1, "set": 64}]})";
  auto inv = discover_rails(*root_);
  auto a = settings();
  a.apply(SensorAveraging::kPeriod, 100, inv);
  EXPECT_EQ(chip(a, "1-0040")->original_samples, 1);
  EXPECT_EQ(chip(a, "1-0040")->original_interval_ms, 7) << "3 x 1 x 2 x 1100 us";
  EXPECT_EQ(samples("1-0040"), "512");
  a.restore();
  EXPECT_EQ(samples("1-0040"), "1");
  EXPECT_EQ(interval("1-0040"), "7");
}

}  // namespace
}  // namespace energy::daemon
