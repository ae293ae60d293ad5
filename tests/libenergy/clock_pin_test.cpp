// Planning of clock pins (pure): parsing, resolution against the listed
// frequencies, refusals, and the write order that keeps min <= max.
#include "energy/clock_pin.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "energy/lease_journal.h"
#include "fifo_util.h"

namespace energy {
namespace {

// A four-CPU policy with part of an Orin table (Hz, as discovery gives it).
ClockDomain cpu_policy() {
  ClockDomain d;
  d.kind = DomainKind::kCpu;
  d.name = "cpu0";
  d.dir = "/sys/devices/system/cpu/cpufreq/policy0";
  d.cpus = {0, 1, 2, 3};
  d.available_hz = {729600000, 1036800000, 1190400000, 1267200000, 1510400000};
  d.governors = {"performance", "schedutil", "userspace"};
  d.writable = true;
  return d;
}

DomainState cpu_state(int64_t min_hz, int64_t max_hz) {
  DomainState s;
  s.name = "cpu0";
  s.cur_hz = max_hz;
  s.min_hz = min_hz;
  s.max_hz = max_hz;
  s.governor = "schedutil";
  s.online_cpus = {0, 1, 2, 3};
  return s;
}

ClockDomain gpu() {
  ClockDomain d;
  d.kind = DomainKind::kGpu;
  d.name = "gpu";
  d.dir = "/sys/class/devfreq/17000000.gpu";
  d.available_hz = {306000000, 408000000, 624750000};
  d.governors = {"nvhost_podgov", "performance"};
  d.writable = true;
  return d;
}

PinRequest request(const std::string& text, const std::string& governor = "") {
  auto range = parse_freq_range(text);
  EXPECT_TRUE(range.ok()) << text;
  return PinRequest{"cpu0", range.ok() ? *range : FreqRange{}, governor};
}

TEST(ParseFreqBound, AcceptsUnitsAndDecimalsExactly) {
  EXPECT_EQ(parse_freq_bound("1.2GHz")->hz, 1200000000);
  EXPECT_EQ(parse_freq_bound("1200MHz")->hz, 1200000000);
  EXPECT_EQ(parse_freq_bound("624.75 MHz")->hz, 624750000);
  EXPECT_EQ(parse_freq_bound("1510400kHz")->hz, 1510400000);
  EXPECT_EQ(parse_freq_bound("306000000Hz")->hz, 306000000);
  EXPECT_EQ(parse_freq_bound("MAX")->kind, FreqBound::Kind::kHighest);
  EXPECT_EQ(parse_freq_bound("min")->kind, FreqBound::Kind::kLowest);
}

TEST(ParseFreqBound, RefusesBareNumbersUnknownUnitsAndFractionsOfHz) {
  auto bare = parse_freq_bound("1200");
  ASSERT_FALSE(bare.ok());
  EXPECT_NE(bare.error().message.find("has no unit"), std::string::npos) << bare.error().message;
  EXPECT_FALSE(parse_freq_bound("12furlongs").ok());
  EXPECT_FALSE(parse_freq_bound("0.5Hz").ok());
  EXPECT_FALSE(parse_freq_bound("0MHz").ok());
  EXPECT_FALSE(parse_freq_bound("1.2.3GHz").ok());
  EXPECT_FALSE(parse_freq_bound("").ok());
  EXPECT_FALSE(parse_freq_bound("99999999999999999999GHz").ok());
}

TEST(ParseFreqRange, ReadsOneBoundOrLowColonHigh) {
  auto one = parse_freq_range("max");
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->lo.kind, FreqBound::Kind::kHighest);
  EXPECT_EQ(one->hi.kind, FreqBound::Kind::kHighest);
  auto two = parse_freq_range("729.6MHz:max");
  ASSERT_TRUE(two.ok());
  EXPECT_EQ(two->lo.hz, 729600000);
  EXPECT_EQ(two->hi.kind, FreqBound::Kind::kHighest);
}

TEST(FormatMhz, PrintsOnlyTheDecimalsNeeded) {
  EXPECT_EQ(format_mhz(1510400000), "1510.4 MHz");
  EXPECT_EQ(format_mhz(624750000), "624.75 MHz");
  EXPECT_EQ(format_mhz(306000000), "306 MHz");
}

TEST(ResolveBound, AnUnlistedFrequencyNamesTheNearestListedOnes) {
  auto r = resolve_bound(cpu_policy(), *parse_freq_bound("1.2GHz"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kInvalid);
  EXPECT_NE(r.error().message.find("1190.4 MHz and 1267.2 MHz"), std::string::npos) << r.error().message;
  auto above = resolve_bound(cpu_policy(), *parse_freq_bound("3GHz"));
  ASSERT_FALSE(above.ok());
  EXPECT_NE(above.error().message.find("nearest listed: 1510.4 MHz"), std::string::npos) << above.error().message;
  EXPECT_EQ(*resolve_bound(cpu_policy(), *parse_freq_bound("min")), 729600000);
}

// fuzz_sysfs_values found it: a table whose only entries are not above 0 Hz
// left no neighbour to name, and the message took the first of none
// (std::out_of_range, which no caller catches).
TEST(ResolveBound, AnUnlistedFrequencyWithNoUsableNeighbourIsAnErrorNotAThrow) {
  ClockDomain d = cpu_policy();
  d.available_hz = {0};
  auto r = resolve_bound(d, *parse_freq_bound("306MHz"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kInvalid);
  EXPECT_NE(r.error().message.find("lists none above 0 Hz"), std::string::npos) << r.error().message;
}

TEST(PlanPin, PinsMinAndMaxToOneListedFrequencyInFileUnits) {
  auto p = plan_pin(cpu_policy(), cpu_state(729600000, 1510400000), request("1036.8MHz", "performance"),
                    OfflineCpus::kRefuse);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->hz_per_unit, 1000);
  ASSERT_EQ(p->files.size(), 3u);
  EXPECT_EQ(p->files[0].role, PinRole::kGovernor);
  EXPECT_EQ(p->files[0].saved, "schedutil");
  EXPECT_EQ(p->files[1].path, "/sys/devices/system/cpu/cpufreq/policy0/scaling_min_freq");
  EXPECT_EQ(p->files[1].saved, "729600");
  EXPECT_EQ(p->files[1].pinned, "1036800");
  EXPECT_EQ(p->files[2].saved, "1510400");
  EXPECT_EQ(p->files[2].pinned, "1036800");
}

TEST(PlanPin, MinAboveMaxIsAnError) {
  auto p =
      plan_pin(cpu_policy(), cpu_state(729600000, 1510400000), request("1510.4MHz:729.6MHz"), OfflineCpus::kRefuse);
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.error().message.find("minimum 1510.4 MHz is above the requested maximum 729.6 MHz"), std::string::npos)
      << p.error().message;
}

TEST(PlanPin, AnOfflineCpuInThePolicyIsAnErrorUnlessAllowed) {
  DomainState s = cpu_state(729600000, 1510400000);
  s.online_cpus = {0, 1};
  auto refused = plan_pin(cpu_policy(), s, request("max"), OfflineCpus::kRefuse);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kState);
  EXPECT_NE(refused.error().message.find("CPU 2,3 of this policy are offline"), std::string::npos)
      << refused.error().message;
  EXPECT_NE(refused.error().message.find("/sys/devices/system/cpu/cpu2/online"), std::string::npos);
  EXPECT_TRUE(plan_pin(cpu_policy(), s, request("max"), OfflineCpus::kAllow).ok());
  s.online_cpus.clear();
  EXPECT_FALSE(plan_pin(cpu_policy(), s, request("max"), OfflineCpus::kAllow).ok());
}

TEST(PlanPin, ReadOnlyDomainsAndUnknownGovernorsAreRefusedByName) {
  ClockDomain emc;
  emc.kind = DomainKind::kEmc;
  emc.name = "emc";
  emc.dir = "/sys/kernel/debug/bpmp/debug/clk/emc";
  emc.available_hz = {204000000, 3199000000};
  auto ro = plan_pin(emc, DomainState{}, request("max"), OfflineCpus::kRefuse);
  ASSERT_FALSE(ro.ok());
  EXPECT_EQ(ro.error().code, ErrorCode::kUnsupported);
  EXPECT_NE(ro.error().message.find("debugfs"), std::string::npos);
  auto gov = plan_pin(cpu_policy(), cpu_state(729600000, 1510400000), request("max", "turbo"), OfflineCpus::kRefuse);
  ASSERT_FALSE(gov.ok());
  EXPECT_NE(gov.error().message.find("'turbo' is not one of"), std::string::npos) << gov.error().message;
  EXPECT_NE(gov.error().message.find("scaling_governor"), std::string::npos);
}

TEST(PlanPin, DevfreqFilesAreInHz) {
  DomainState s;
  s.min_hz = 306000000;
  s.max_hz = 624750000;
  PinRequest req{"gpu", *parse_freq_range("408MHz"), ""};
  auto p = plan_pin(gpu(), s, req, OfflineCpus::kRefuse);
  ASSERT_TRUE(p.ok()) << p.error().message;
  EXPECT_EQ(p->files[0].path, "/sys/class/devfreq/17000000.gpu/min_freq");
  EXPECT_EQ(p->files[0].pinned, "408000000");
}

// Applies `writes` to a (min, max) pair, failing on any step that would leave min > max.
bool order_keeps_min_le_max(const DomainPin& pin, const std::vector<FileWrite>& writes, int64_t min, int64_t max) {
  for (const auto& w : writes) {
    int64_t v = std::stoll(w.text);
    if (w.path == pin.files[0].path)
      min = v;
    else
      max = v;
    if (min > max) return false;
  }
  return true;
}

TEST(PlanWrites, KeepMinAtOrBelowMaxAfterEveryWriteWhenRaisingLoweringAndRestoring) {
  const std::vector<std::pair<std::string, std::pair<int64_t, int64_t>>> cases = {
      {"max", {729600000, 1036800000}},   // raising above the current max: max first
      {"min", {1190400000, 1510400000}},  // lowering below the current min: min first
      {"1190.4MHz", {729600000, 1510400000}}};
  for (const auto& [text, limits] : cases) {
    auto p = plan_pin(cpu_policy(), cpu_state(limits.first, limits.second), request(text), OfflineCpus::kRefuse);
    ASSERT_TRUE(p.ok()) << text;
    auto apply = plan_writes(*p, PinDirection::kApply, recorded_max_units(*p, PinDirection::kApply));
    EXPECT_TRUE(order_keeps_min_le_max(*p, apply, limits.first / 1000, limits.second / 1000)) << text;
    int64_t pinned_min = std::stoll(p->files[0].pinned), pinned_max = std::stoll(p->files[1].pinned);
    auto restore = plan_writes(*p, PinDirection::kRestore, recorded_max_units(*p, PinDirection::kRestore));
    EXPECT_TRUE(order_keeps_min_le_max(*p, restore, pinned_min, pinned_max)) << text;
    EXPECT_EQ(restore.size(), 2u);
  }
}

TEST(PlanWrites, TheGovernorIsWrittenFirst) {
  auto p =
      plan_pin(cpu_policy(), cpu_state(729600000, 1036800000), request("max", "performance"), OfflineCpus::kRefuse);
  ASSERT_TRUE(p.ok());
  auto w = plan_writes(*p, PinDirection::kApply, 1036800);
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[0].text, "performance");
  EXPECT_EQ(w[1].path, "/sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq");
  auto r = plan_writes(*p, PinDirection::kRestore, 1510400);
  EXPECT_EQ(r[0].text, "schedutil");
}

ClockDomain debugfs_emc(const std::string& dir) {
  ClockDomain emc;
  emc.kind = DomainKind::kEmc;
  emc.name = "emc";
  emc.dir = dir;
  emc.available_hz = {204000000, 665600000, 3199000000};
  emc.writable = true;
  return emc;
}

DomainState emc_state(const std::string& lock, const std::string& rate) {
  DomainState s;
  s.lock_text = lock;
  s.rate_request_text = rate;
  return s;
}

// bpmp: locked, then the rate; put back: the saved rate while still locked, then the lock.
TEST(PlanWrites, ADebugfsEmcIsLockedThenRatedAndPutBackInTheOtherOrder) {
  auto p = plan_pin(debugfs_emc("/sys/kernel/debug/bpmp/debug/clk/emc"), emc_state("0", "3199000000"),
                    request("665.6MHz"), OfflineCpus::kRefuse);
  ASSERT_TRUE(p.ok()) << p.error().message;
  auto on = plan_writes(*p, PinDirection::kApply, 0);
  ASSERT_EQ(on.size(), 2u);
  EXPECT_EQ(on[0].path, "/sys/kernel/debug/bpmp/debug/clk/emc/mrq_rate_locked");
  EXPECT_EQ(on[0].text, "1");
  EXPECT_EQ(on[1].path, "/sys/kernel/debug/bpmp/debug/clk/emc/rate");
  EXPECT_EQ(on[1].text, "665600000");
  auto off = plan_writes(*p, PinDirection::kRestore, 0);
  ASSERT_EQ(off.size(), 2u);
  EXPECT_EQ(off[0].text, "3199000000");
  EXPECT_EQ(off[1].path, on[0].path);
  EXPECT_EQ(off[1].text, "0");
}

// T210's clk_update_rate reads 0 until someone writes it: nothing to put back but the lock.
TEST(PlanWrites, AT210RateRequestThatWasNeverWrittenIsNotPutBack) {
  auto p = plan_pin(debugfs_emc("/sys/kernel/debug/clk/override.emc"), emc_state("0", "0"), request("max"),
                    OfflineCpus::kRefuse);
  ASSERT_TRUE(p.ok()) << p.error().message;
  auto on = plan_writes(*p, PinDirection::kApply, 0);
  ASSERT_EQ(on.size(), 2u);
  EXPECT_EQ(on[0].path, "/sys/kernel/debug/clk/override.emc/clk_state");
  EXPECT_EQ(on[1].path, "/sys/kernel/debug/clk/override.emc/clk_update_rate");
  EXPECT_EQ(on[1].text, "3199000000");
  auto off = plan_writes(*p, PinDirection::kRestore, 0);
  ASSERT_EQ(off.size(), 1u);
  EXPECT_EQ(off[0].path, on[0].path);
  EXPECT_EQ(off[0].text, "0");
}

TEST(PlanPin, ADebugfsEmcWhoseFilesCannotBeReadIsNotPinned) {
  DomainState unread;
  auto p = plan_pin(debugfs_emc("/sys/kernel/debug/bpmp/debug/clk/emc"), unread, request("max"), OfflineCpus::kRefuse);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().code, ErrorCode::kIo);
  EXPECT_NE(p.error().message.find("mrq_rate_locked"), std::string::npos) << p.error().message;
}

// A journal of boot "b1" holding one lease.
LeaseJournal journal_of(const LeaseRecord& l) {
  LeaseJournal j;
  j.boot_id = "b1";
  j.next_lease = l.id + 1;
  j.leases.push_back(l);
  return j;
}

TEST(LeaseJournal, TheLockAndRateRolesOfADebugfsEmcRoundTrip) {
  LeaseRecord l;
  l.id = 1;
  l.state = LeaseState::kActive;
  l.domains.push_back(*plan_pin(debugfs_emc("/sys/kernel/debug/bpmp/debug/clk/emc"), emc_state("0", "204000000"),
                                request("max"), OfflineCpus::kRefuse));
  auto back = journal_from_text(journal_to_text(journal_of(l)), "test");
  ASSERT_TRUE(back.ok()) << back.error().message;
  const auto& files = back->leases.at(0).domains.at(0).files;
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].role, PinRole::kLock);
  EXPECT_EQ(files[1].role, PinRole::kRate);
  EXPECT_EQ(files[1].saved, "204000000");
}

TEST(LeaseJournal, RoundTripsEveryField) {
  LeaseRecord l;
  l.id = 7;
  l.kind = LeaseKind::kDuration;
  l.state = LeaseState::kActive;
  l.expires_boot_ns = 123;
  l.created_boot_ns = 100;
  l.created_wall_ns = 1700000000000000000;
  l.domains.push_back(
      *plan_pin(cpu_policy(), cpu_state(729600000, 1510400000), request("max", "performance"), OfflineCpus::kRefuse));
  const LeaseJournal j = journal_of(l);
  auto back = journal_from_text(journal_to_text(j), "test");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(journal_to_text(*back), journal_to_text(j));
  EXPECT_EQ(back->leases.at(0).domains.at(0).files.at(0).saved, "schedutil");
}

TEST(LeaseJournal, DamagedTextIsAParseErrorNamingTheField) {
  auto bad = journal_from_text(R"({"format":"energyd-clock-leases","version":1,"boot_id":"x","next_lease":1,
      "leases":[{"id":1,"kind":"forever"}]})",
                               "journal");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, ErrorCode::kParse);
  EXPECT_NE(bad.error().message.find("forever"), std::string::npos) << bad.error().message;
  EXPECT_FALSE(journal_from_text("{", "journal").ok());
}

TEST(LeaseJournal, SaveReplacesTheFileAndAMissingFileIsEmpty) {
  std::string dir = ::testing::TempDir();
  std::string path = dir + "/clock-leases-test.json";
  std::remove(path.c_str());
  auto empty = load_journal(path);
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->leases.empty());
  LeaseJournal j;
  j.boot_id = "b2";
  j.next_lease = 3;
  ASSERT_TRUE(save_journal(path, j).ok());
  auto back = load_journal(path);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->next_lease, 3);
  EXPECT_FALSE(std::ifstream(path + ".tmp").good());  // renamed, not left behind
  std::remove(path.c_str());
}

class WriteVerified : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/energy-write-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    std::filesystem::create_directories(dir_ + "/root/sys/gpu");
    std::ofstream(dir_ + "/outside") << "1000\n";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string content(const std::string& path) const {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  std::string dir_;
};

TEST_F(WriteVerified, WritesAndReadsBackARegularFile) {
  std::ofstream(dir_ + "/root/sys/gpu/max_freq") << "1000\n";
  SysRoot root(dir_ + "/root");
  auto st = write_verified(root, FileWrite{"/sys/gpu/max_freq", "624750000"});
  ASSERT_TRUE(st.ok()) << st.error().describe();
  EXPECT_EQ(content(dir_ + "/root/sys/gpu/max_freq"), "624750000\n");
}

// 41 links, the last to a host path: the kernel followed the one the
// resolver left, and a pin wrote outside the board tree.
TEST_F(WriteVerified, ALinkChainLeavingTheRootIsRefusedAndNothingIsWritten) {
  std::string gpu = dir_ + "/root/sys/gpu";
  for (int i = 0; i < 40; ++i) {
    std::filesystem::create_symlink("/sys/gpu/l" + std::to_string(i + 1), gpu + "/l" + std::to_string(i));
  }
  std::filesystem::create_symlink(dir_ + "/outside", gpu + "/l40");
  std::filesystem::create_symlink("/sys/gpu/l0", gpu + "/max_freq");
  SysRoot root(dir_ + "/root");
  auto st = write_verified(root, FileWrite{"/sys/gpu/max_freq", "624750000"});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().sys_errno, ELOOP) << st.error().describe();
  EXPECT_NE(st.error().message.find("/sys/gpu/max_freq"), std::string::npos) << st.error().message;
  EXPECT_EQ(content(dir_ + "/outside"), "1000\n");
}

TEST_F(WriteVerified, AFifoIsRefusedWithoutBlocking) {
  std::string fifo = dir_ + "/root/sys/gpu/max_freq";
  ASSERT_TRUE(testing::make_fifo(fifo));
  SysRoot root(dir_ + "/root");
  Status st = ok_status();
  EXPECT_TRUE(testing::returns_without_blocking(fifo, [&] {
    st = write_verified(root, FileWrite{"/sys/gpu/max_freq", "624750000"});
  }));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("/sys/gpu/max_freq is a FIFO"), std::string::npos) << st.error().message;
}

}  // namespace
}  // namespace energy
