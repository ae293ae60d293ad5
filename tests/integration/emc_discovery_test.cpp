// energyd's view of the simulator's memory clock (issue 14): on one board per
// EMC layout (emc_test.cpp checks every board has one), libenergy's discovery finds
// one `emc` domain where jetson-sysfs.md 3.5 puts it and reads its rate and
// limits in Hz; on Thor (devfreq `bwmgr`, the one EMC energyd writes) the
// writes energyd plans for `pin --emc` are accepted by the simulated kernel
// stores, hold the model's rate under load and are undone by its restore.
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
    if (b.spec.emc.layout != sim::EmcLayout::kT210Debugfs) {  // T210 lists no rates (no possible_rates)
      EXPECT_EQ(std::vector<std::uint64_t>(emc[0].available_hz.begin(), emc[0].available_hz.end()), rates) << what;
    }
    EXPECT_EQ(emc[0].writable, b.spec.emc.layout == sim::EmcLayout::kThorDevfreq) << what;
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

// Debugfs EMCs are read, never written, by energyd (clock_pin.cpp says so to the user).
TEST_F(EmcDiscovery, APinOfADebugfsEmcIsRefusedWithTheReason) {
  const sim::test::BuiltBoard b = sim::test::build("jetson-orin-nano", 36);
  const SysRoot root = materialized(b);
  for (const ClockDomain& d : discover_clocks(root).domains) {
    if (d.kind != DomainKind::kEmc) continue;
    Result<DomainPin> pin =
        plan_pin(d, read_domain(root, d), PinRequest{"emc", *parse_freq_range("min"), ""}, OfflineCpus::kRefuse);
    ASSERT_FALSE(pin.ok());
    EXPECT_NE(pin.error().message.find("debugfs"), std::string::npos) << pin.error().message;
    return;
  }
  ADD_FAILURE() << "no emc domain on the simulated Orin Nano";
}

}  // namespace
}  // namespace energy
