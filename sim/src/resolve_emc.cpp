// EMC (memory clock): the layout by SoC (jetson-sysfs.md 3.5) and the rate
// table from the board's `emc:` entry, another generation's or another
// board's with the same SoC; a maximum alone gets the low rates of A48.
#include <cstdint>
#include <string>
#include <vector>

#include "resolve.h"

namespace energy::sim {
namespace {

constexpr std::uint64_t kHzPerMHz = 1'000'000;
// A48: the low rates every bpmp board shows at idle in the reference's
// tegrastats captures (204 MHz; AGX Orin's table has 665.6 MHz), below a
// maximum the reference gives alone.
constexpr std::uint64_t kLowRatesHz[] = {204'000'000, 665'600'000};
// A48: Thor's EMC maximum is not in the reference (LPDDR5X at 4266 MT/s assumed).
constexpr std::uint64_t kThorMaxHz = 4'266'000'000;

EmcLayout layout_of_soc(const std::string& soc) {
  if (soc == "tegra210") return EmcLayout::kT210Debugfs;
  if (soc == "tegra186" || soc == "tegra194" || soc == "tegra234") return EmcLayout::kBpmpDebugfs;
  if (soc == "tegra264") return EmcLayout::kThorDevfreq;
  return EmcLayout::kNone;
}

std::vector<std::uint64_t> table_below(std::uint64_t max_hz) {
  std::vector<std::uint64_t> out;
  for (std::uint64_t low : kLowRatesHz) {
    if (low < max_hz) out.push_back(low);
  }
  out.push_back(max_hz);
  return out;
}

// rates_Hz, else max_MHz, of one `emc:` section; empty when it has neither.
std::vector<std::uint64_t> rates_of(YamlReader& reader, const YAML::Node& emc) {
  if (!YamlReader::present(emc)) return {};
  std::vector<std::uint64_t> rates = reader.integers<std::uint64_t>(emc, "rates_Hz");
  if (!rates.empty()) return rates;
  const std::optional<std::uint64_t> max_mhz = reader.integer<std::uint64_t>(emc, "max_MHz");
  return max_mhz ? table_below(*max_mhz * kHzPerMHz) : std::vector<std::uint64_t>{};
}

std::vector<std::uint64_t> resolve_rates(ResolveContext& ctx) {
  for (const GenerationNode* generation : ctx.chain()) {
    std::vector<std::uint64_t> rates = rates_of(ctx.reader(), ResolveContext::section_of(*generation, "emc"));
    if (rates.empty()) continue;
    if (generation->l4t != ctx.l4t()) ctx.note("EMC rates borrowed from " + generation->key + " (A48)");
    return rates;
  }
  for (const GenerationNode* generation : ctx.same_soc_generations()) {
    std::vector<std::uint64_t> rates = rates_of(ctx.reader(), ResolveContext::section_of(*generation, "emc"));
    if (rates.empty()) continue;
    ctx.note("EMC rates borrowed from " + generation->board_id + " " + generation->key + " (A48)");
    return rates;
  }
  return {};
}

}  // namespace

EmcSpec resolve_emc(ResolveContext& ctx) {
  EmcSpec emc;
  emc.layout = layout_of_soc(ctx.board().soc);
  if (emc.layout == EmcLayout::kNone) return emc;
  emc.rates_hz = resolve_rates(ctx);
  if (emc.rates_hz.empty() && emc.layout == EmcLayout::kThorDevfreq) {
    emc.rates_hz = table_below(kThorMaxHz);
    ctx.note("EMC rates assumed (A48)");
  }
  for (std::size_t i = 1; i < emc.rates_hz.size(); ++i) {
    if (emc.rates_hz[i] <= emc.rates_hz[i - 1]) ctx.reader().fail(ErrorCode::kParse, "emc rates_Hz not ascending");
  }
  if (emc.rates_hz.empty()) {
    emc.layout = EmcLayout::kNone;
    ctx.note("no EMC rates for " + ctx.board().id + ": EMC not modelled (A48)");
    return emc;
  }
  emc.nvpmodel_cap = emc.layout == EmcLayout::kBpmpDebugfs;
  if (emc.layout == EmcLayout::kThorDevfreq) emc.devfreq_governor = "bpmp-bw";  // A48: "begins bpmp-bw" [U]
  return emc;
}

}  // namespace energy::sim
