#include "clock_counters.h"

#include <algorithm>
#include <cstdio>

namespace energy::sim {
namespace {

constexpr std::uint64_t kNsPerUserTick = 10000000;  // USER_HZ = 100
constexpr std::uint64_t kNsPerMsU64 = 1000000;

// A number right-aligned in 10 columns, as the kernel's "%10lu".
std::string column(std::uint64_t value) {
  char text[32];
  std::snprintf(text, sizeof text, "%10llu", static_cast<unsigned long long>(value));
  return text;
}

std::vector<std::uint64_t> widened(const std::vector<std::uint32_t>& khz) {
  return std::vector<std::uint64_t>(khz.begin(), khz.end());
}

}  // namespace

ClockCounters::ClockCounters(const BoardSpec& spec, const BoardState& governed) {
  for (const auto& [policy, p] : governed.policies) {
    policies_.emplace(policy, make_domain(widened(spec.cpu.available_khz), p.cur_khz));
  }
  for (const GpuSpec& g : spec.gpus) {
    const auto it = governed.gpus.find(g.devfreq_name);
    if (it != governed.gpus.end()) gpus_.emplace(g.devfreq_name, make_domain(g.available_hz, it->second.cur_hz));
  }
}

ClockCounters::Domain ClockCounters::make_domain(std::vector<std::uint64_t> table, std::uint64_t freq) {
  Domain domain;
  const std::size_t n = table.size();
  domain.stats.time_ns.assign(n, 0);
  domain.stats.transitions.assign(n * n, 0);
  const std::size_t at = table_index(table, freq);
  domain.stats.last = at < n ? at : 0;  // a gated GPU counts from its lowest frequency
  domain.table = std::move(table);
  return domain;
}

void ClockCounters::observe(std::int64_t t_ns, const BoardState& governed) {
  for (auto& [policy, domain] : policies_) {
    const auto it = governed.policies.find(policy);
    if (it != governed.policies.end()) move_to(domain, t_ns, it->second.cur_khz);
  }
  for (auto& [name, domain] : gpus_) {
    const auto it = governed.gpus.find(name);
    if (it != governed.gpus.end()) move_to(domain, t_ns, it->second.cur_hz);
  }
}

void ClockCounters::move_to(Domain& domain, std::int64_t t_ns, std::uint64_t freq) {
  if (domain.table.empty()) return;
  domain.stats = stats_at(domain, t_ns);
  domain.since_ns = std::max(domain.since_ns, t_ns);
  const std::size_t n = domain.table.size();
  const std::size_t to = table_index(domain.table, freq);
  ClockStats& stats = domain.stats;
  if (to >= n || to == stats.last) return;
  ++stats.transitions[stats.last * n + to];
  ++stats.total_transitions;
  stats.last = to;
}

ClockStats ClockCounters::stats_at(const Domain& domain, std::int64_t t_ns) {
  ClockStats stats = domain.stats;
  if (t_ns > domain.since_ns && !stats.time_ns.empty()) {
    stats.time_ns[stats.last] += static_cast<std::uint64_t>(t_ns - domain.since_ns);
  }
  return stats;
}

void ClockCounters::fill(BoardState& state, std::int64_t t_ns) const {
  for (const auto& [policy, domain] : policies_) {
    const auto it = state.policies.find(policy);
    if (it != state.policies.end()) it->second.stats = stats_at(domain, t_ns);
  }
  for (const auto& [name, domain] : gpus_) {
    const auto it = state.gpus.find(name);
    if (it != state.gpus.end()) it->second.stats = stats_at(domain, t_ns);
  }
}

ClockStats shown_stats(const ClockStats& stats, std::size_t table_size, std::size_t cur) {
  if (stats.time_ns.size() == table_size) return stats;
  ClockStats fixed;
  fixed.time_ns.assign(table_size, 0);
  fixed.transitions.assign(table_size * table_size, 0);
  fixed.last = cur < table_size ? cur : 0;
  return fixed;
}

std::string format_time_in_state(const std::vector<std::uint32_t>& khz, const ClockStats& stats) {
  std::string out;
  for (std::size_t i = 0; i < khz.size() && i < stats.time_ns.size(); ++i) {
    out += std::to_string(khz[i]) + " " + std::to_string(stats.time_ns[i] / kNsPerUserTick) + "\n";
  }
  return out;
}

std::string format_total_trans(const ClockStats& stats) { return std::to_string(stats.total_transitions) + "\n"; }

std::string format_trans_stat(const std::vector<std::uint64_t>& hz, const ClockStats& stats) {
  const std::size_t n = std::min(hz.size(), stats.time_ns.size());
  std::string out = "     From  :   To\n           :";
  for (std::size_t j = 0; j < n; ++j) out += column(hz[j]);
  out += "   time(ms)\n";
  for (std::size_t i = 0; i < n; ++i) {
    out += (i == stats.last ? "*" : " ") + column(hz[i]) + ":";
    for (std::size_t j = 0; j < n; ++j) out += column(stats.transitions[i * n + j]);
    out += column(stats.time_ns[i] / kNsPerMsU64) + "\n";
  }
  return out + "Total transition : " + std::to_string(stats.total_transitions) + "\n";
}

}  // namespace energy::sim
