// energyd's view of the simulator's memory clock (issue 14): on one board per
// EMC layout (emc_test.cpp checks every board has one), libenergy's discovery finds
// one `emc` domain where jetson-sysfs.md 3.5 puts it and reads its rate and
// limits in Hz; on every layout (Thor's devfreq `bwmgr`, bpmp and T210
// debugfs) the writes energyd plans for `pin --emc` are accepted by the
// simulated kernel stores, hold the model's rate under load and are undone
// by its restore.
// Static trees and the in-memory tree: no FUSE, no daemon, a few ms.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "../sim/sim_test_util.h"
#include "emc.h"
#include "energy/clock_pin.h"
#include "energy/clocks.h"
#include "energy/sysroot.h"
#include "energysim/materialize.h"

namespace energy {
namespace {

std::string emc_dir(const sim::EmcSpec& emc) {
  switch (emc.layout) {
    case sim::EmcLayout::kT210Debugfs: return "/sys/kernel/debug/clk/override.emc";
    case sim::EmcLayout::kBpmpDebugfs: return "/sys/kernel/debug/bpmp/debug/clk/emc";
    case sim::EmcLayout::kThorDevfreq: return "/sys/class/devfreq/bwmgr";
    case sim::EmcLayout::kNone: break;
  }
  return "";
}

class EmcDiscovery : public ::testing::Test {
 protected:
  void TearDown() override { std::filesystem::remove_all(tmp_.path() + "/root"); }
  // The board's idle tree written under a fresh root.
  SysRoot materialized(const sim::test::BuiltBoard& b) {
    std::filesystem::remove_all(tmp_.path() + "/root");
    auto made = sim::materialize_tree(b.tree, sim::idle_state(b.spec), tmp_.path() + "/root",
                                      {sim::ExistingRoot::kRefuse, b.spec.id, b.spec.l4t});
    EXPECT_TRUE(made.ok()) << made.error().describe();
    return SysRoot(tmp_.path() + "/root");
  }
  sim::test::TempDir tmp_;
};

// One board per EMC layout, plus rates borrowed from another board (Xavier NX)
// and a maximum alone (Orin Nano); materialising is the cost, so not all of them.
struct Case {
  const char* board;
  int l4t;
};
const Case kCases[] = {{"jetson-nano-4gb", 32},
                       {"jetson-xavier-nx", 35},
                       {"jetson-agx-orin", 36},
                       {"jetson-orin-nano", 36},
                       {"jetson-agx-thor", 38}};

TEST_F(EmcDiscovery, EnergydFindsTheSimulatedEmcWhereTheReferencePutsIt) {
  for (const Case& c : kCases) {
    const sim::test::BuiltBoard b = sim::test::build(c.board, c.l4t);
    const std::string what = b.spec.id + " L4T " + std::to_string(b.spec.l4t);
    const SysRoot root = materialized(b);
    std::vector<ClockDomain> emc;
    for (const ClockDomain& d : discover_clocks(root).domains) {
      if (d.kind == DomainKind::kEmc) emc.push_back(d);
    }
    ASSERT_EQ(emc.size(), 1u) << what;
    EXPECT_EQ(emc[0].dir, emc_dir(b.spec.emc)) << what;
    const std::vector<std::uint64_t>& rates = b.spec.emc.rates_hz;
    std::vector<std::uint64_t> listed = rates;
    if (b.spec.emc.layout == sim::EmcLayout::kT210Debugfs) listed = {rates.front(), rates.back()};  // bwmgr limits
    EXPECT_EQ(std::vector<std::uint64_t>(emc[0].available_hz.begin(), emc[0].available_hz.end()), listed) << what;
    EXPECT_TRUE(emc[0].writable) << what;
    const DomainState st = read_domain(root, emc[0]);
    ASSERT_TRUE(st.cur_hz && st.min_hz && st.max_hz) << what << ": " << st.error;
    EXPECT_EQ(*st.cur_hz, static_cast<int64_t>(rates.front())) << what;
    EXPECT_EQ(*st.min_hz, static_cast<int64_t>(rates.front())) << what;
    EXPECT_EQ(*st.max_hz, static_cast<int64_t>(rates.back())) << what;
  }
}

// energyd's planned writes applied through the simulated stores (Node::write).
void apply(const sim::test::BuiltBoard& b, const std::vector<FileWrite>& writes, sim::BoardState& state) {
  for (const FileWrite& w : writes) {
    const sim::Node* node = b.tree.resolve(w.path);
    ASSERT_NE(node, nullptr) << w.path;
    ASSERT_TRUE(node->write(state, w.text)) << w.path << " <- " << w.text;
  }
}

std::uint64_t rate_under_load(const sim::BoardSpec& spec, const sim::BoardState& state) {
  sim::ModelControls c{state, 1000, {}};
  c.cpu_peak_permille = 1000;
  return sim::governed_state(spec, c).emc.rate_hz;
}

TEST_F(EmcDiscovery, APinOfThorsEmcHoldsUnderLoadAndIsRestored) {
  const sim::test::BuiltBoard b = sim::test::build("jetson-agx-thor", 38);
  const SysRoot root = materialized(b);
  ClockDomain emc;
  for (const ClockDomain& d : discover_clocks(root).domains) {
    if (d.kind == DomainKind::kEmc) emc = d;
  }
  ASSERT_EQ(emc.name, "emc");
  const DomainState now = read_domain(root, emc);
  Result<FreqRange> lowest = parse_freq_range("min");
  ASSERT_TRUE(lowest.ok());
  Result<DomainPin> pin = plan_pin(emc, now, PinRequest{"emc", *lowest, ""}, OfflineCpus::kRefuse);
  ASSERT_TRUE(pin.ok()) << pin.error().describe();
  sim::BoardState state = sim::idle_state(b.spec);
  const std::uint64_t top = b.spec.emc.rates_hz.back();
  ASSERT_EQ(rate_under_load(b.spec, state), top);
  apply(b, plan_writes(*pin, PinDirection::kApply, *now.max_hz), state);
  EXPECT_EQ(rate_under_load(b.spec, state), b.spec.emc.rates_hz.front());
  apply(b, plan_writes(*pin, PinDirection::kRestore, static_cast<int64_t>(state.emc.max_hz)), state);
  EXPECT_EQ(state.emc.max_hz, top);
  EXPECT_EQ(rate_under_load(b.spec, state), top);
}

// A debugfs EMC (T210 override.emc, bpmp clk/emc) is pinned as jetson_clocks
// does it: locked, then the rate written; the simulated kernel holds that rate
// under load, and the restore hands the clock back to its governor.
TEST_F(EmcDiscovery, APinOfADebugfsEmcHoldsUnderLoadAndIsRestored) {
  for (const Case& c : {Case{"jetson-nano-4gb", 32}, Case{"jetson-orin-nano", 36}}) {
    const sim::test::BuiltBoard b = sim::test::build(c.board, c.l4t);
    const SysRoot root = materialized(b);
    ClockDomain emc;
    for (const ClockDomain& d : discover_clocks(root).domains) {
      if (d.kind == DomainKind::kEmc) emc = d;
    }
    ASSERT_EQ(emc.name, "emc") << c.board;
    const DomainState now = read_domain(root, emc);
    Result<DomainPin> pin = plan_pin(emc, now, PinRequest{"emc", *parse_freq_range("min"), ""}, OfflineCpus::kRefuse);
    ASSERT_TRUE(pin.ok()) << c.board << ": " << pin.error().describe();
    sim::BoardState state = sim::idle_state(b.spec);
    const std::uint64_t top = b.spec.emc.rates_hz.back();
    ASSERT_EQ(rate_under_load(b.spec, state), top) << c.board;
    std::vector<FileWrite> on = plan_writes(*pin, PinDirection::kApply, 0);
    ASSERT_EQ(on.size(), 2u) << c.board;
    EXPECT_EQ(on[0].path, emc_pin_files(emc).lock) << c.board;  // locked first, then the rate
    apply(b, on, state);
    EXPECT_EQ(rate_under_load(b.spec, state), b.spec.emc.rates_hz.front()) << c.board;
    apply(b, plan_writes(*pin, PinDirection::kRestore, 0), state);
    EXPECT_FALSE(state.emc.locked) << c.board;
    EXPECT_EQ(rate_under_load(b.spec, state), top) << c.board;
  }
}

// Asked for a range, a debugfs EMC (one rate) refuses by name; a governor
// asked with it is left to the other domains (it has no governor file); a
// rate outside its list names the nearest listed ones.
TEST_F(EmcDiscovery, ADebugfsEmcRefusesRangesAndUnlistedRatesAndLeavesGovernorsToOthers) {
  const sim::test::BuiltBoard b = sim::test::build("jetson-orin-nano", 36);
  const SysRoot root = materialized(b);
  for (const ClockDomain& d : discover_clocks(root).domains) {
    if (d.kind != DomainKind::kEmc) continue;
    const DomainState now = read_domain(root, d);
    auto range = plan_pin(d, now, PinRequest{"emc", *parse_freq_range("min:max"), ""}, OfflineCpus::kRefuse);
    ASSERT_FALSE(range.ok());
    EXPECT_NE(range.error().message.find("one rate, not a range"), std::string::npos) << range.error().message;
    auto gov = plan_pin(d, now, PinRequest{"emc", *parse_freq_range("max"), "performance"}, OfflineCpus::kRefuse);
    ASSERT_TRUE(gov.ok()) << gov.error().describe();  // --governor is for the domains that have one
    for (const PinnedFile& f : gov->files) EXPECT_NE(f.role, PinRole::kGovernor) << f.path;
    auto odd = plan_pin(d, now, PinRequest{"emc", *parse_freq_range("1234MHz"), ""}, OfflineCpus::kRefuse);
    ASSERT_FALSE(odd.ok());
    EXPECT_NE(odd.error().message.find("nearest listed"), std::string::npos) << odd.error().message;
    return;
  }
  ADD_FAILURE() << "no emc domain on the simulated Orin Nano";
}

}  // namespace
}  // namespace energy
