// AveragingSettings on a simulator-built AGX Orin tree (L4T 36, static
// files: update_interval does not follow a write of samples here; the live
// board's does, see tests/integration/sensor_averaging_test.cpp): `period`
// sets each chip's samples for the period after recording the originals,
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
  std::string samples_path(const std::string& device) const {
    auto inv = discover_rails(*root_);
    for (const auto& c : inv.chips) {
      if (c.device == device) return root_->resolve(c.data_dir + "/samples");
    }
    ADD_FAILURE() << "no chip " << device;
    return dir_ + "/missing";
  }
  std::string samples(const std::string& device) const {
    std::ifstream in(samples_path(device));
    std::string s;
    in >> s;
    return s;
  }
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
  EXPECT_EQ(samples("1-0040"), "64");  // 3 channels: update_interval 7 -> about 448
  EXPECT_EQ(samples("1-0041"), "256");  // 1 channel: 2 -> about 512
  auto j = load_averaging_journal(journal());
  ASSERT_TRUE(j.ok()) << j.error().describe();
  ASSERT_EQ(j->chips.size(), 2u);
  for (const auto& r : j->chips) EXPECT_EQ(r.original, 1) << r.device;
  ASSERT_NE(chip(a, "1-0040"), nullptr);
  EXPECT_TRUE(chip(a, "1-0040")->changed);
  EXPECT_EQ(chip(a, "1-0040")->original_samples, 1);
}

// The filter comes from what the chip reports after the write (here the
// static update_interval stays 7), not from what energyd asked for.
TEST_F(AveragingSettingsTest, TheInventoryCarriesTheFilterTheChipsReallyHave) {
  auto inv = discover_rails(*root_);
  auto a = settings();
  a.apply(SensorAveraging::kPeriod, 100, inv);
  for (const auto& c : inv.chips) {
    if (c.device == "1-0040") {
      EXPECT_EQ(c.filter_ns, ina3221_filter_ns(64, 7));
    }
  }
  for (const auto& r : inv.rails) {
    EXPECT_EQ(r.filter_ns, r.device == "1-0040" ? ina3221_filter_ns(64, 7) : ina3221_filter_ns(256, 2)) << r.label;
  }
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
  ASSERT_EQ(samples("1-0040"), "64");
  auto inv = discover_rails(*root_);
  auto a = settings();
  a.apply(SensorAveraging::kPeriod, 100, inv);
  ASSERT_NE(chip(a, "1-0040"), nullptr);
  EXPECT_TRUE(chip(a, "1-0040")->changed);
  EXPECT_EQ(chip(a, "1-0040")->original_samples, 1);
  a.restore();
  EXPECT_EQ(samples("1-0040"), "1");
  EXPECT_EQ(samples("1-0041"), "1");
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
  EXPECT_EQ(samples("1-0041"), "1");
  auto j = load_averaging_journal(journal());
  ASSERT_TRUE(j.ok());
  EXPECT_TRUE(j->chips.empty());
}

// A reboot reset the chips: the old boot's records are not the originals.
TEST_F(AveragingSettingsTest, AJournalOfAnotherBootIsDropped) {
  set_samples("1-0040", "4");
  AveragingJournal old{"another-boot", {{"1-0040", "/x/samples", 64, 16}}};
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
  EXPECT_EQ(samples("1-0040"), "64");
  a.restore();
  EXPECT_EQ(samples("1-0040"), "1");
}

TEST(AveragingJournal, RoundTripsAndNamesTheFieldAtFault) {
  AveragingJournal j{"boot-1", {{"1-0040", "/sys/bus/i2c/devices/1-0040/hwmon/hwmon3/samples", 1, 16}}};
  auto back = averaging_journal_from_text(averaging_journal_to_text(j), "t");
  ASSERT_TRUE(back.ok()) << back.error().describe();
  EXPECT_EQ(back->boot_id, "boot-1");
  ASSERT_EQ(back->chips.size(), 1u);
  EXPECT_EQ(back->chips[0].path, j.chips[0].path);
  EXPECT_EQ(back->chips[0].original, 1);
  EXPECT_EQ(back->chips[0].set, 16);
  auto bad = averaging_journal_from_text(
      R"({"format": "energyd-sensor-averaging", "version": 1, "boot_id": "b", "chips": [{"device": "1-0040"}]})",
      "journal j");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("journal j"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("path"), std::string::npos) << bad.error().message;
  auto other = averaging_journal_from_text(R"({"format": "energyd-clock-leases", "version": 1})", "journal j");
  ASSERT_FALSE(other.ok());
}

}  // namespace
}  // namespace energy::daemon
