#include "host_load.h"

#include <charconv>
#include <fstream>
#include <sstream>
#include <vector>

#include "control_server.h"

namespace energy::sim {
namespace {

constexpr std::size_t kIdleField = 3;  // user nice system IDLE iowait irq softirq steal
constexpr std::size_t kIowaitField = 4;
constexpr std::size_t kFieldsUsed = 8;  // guest time is already counted in user

Result<CpuTimes> read_stat(const std::string& path) {
  std::ifstream in(path);
  if (!in) return errno_error("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  Result<CpuTimes> times = parse_proc_stat(text.str());
  if (!times) return make_error(times.error().code, path + ": " + times.error().message);
  return times;
}

}  // namespace

Result<CpuTimes> parse_proc_stat(std::string_view text) {
  if (text.substr(0, 4) != "cpu ") return make_error(ErrorCode::kParse, "first line is not the aggregate \"cpu\" line");
  const std::string_view line = text.substr(0, text.find('\n'));
  std::vector<std::uint64_t> fields;
  for (std::size_t pos = 4; pos < line.size() && fields.size() < kFieldsUsed;) {
    while (pos < line.size() && line[pos] == ' ') ++pos;
    std::uint64_t value = 0;
    const auto [end, ec] = std::from_chars(line.data() + pos, line.data() + line.size(), value);
    if (ec != std::errc()) break;
    fields.push_back(value);
    pos = static_cast<std::size_t>(end - line.data());
  }
  if (fields.size() <= kIowaitField) return make_error(ErrorCode::kParse, "the \"cpu\" line has too few numbers");
  CpuTimes t;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    t.total += fields[i];
    if (i != kIdleField && i != kIowaitField) t.busy += fields[i];
  }
  return t;
}

std::uint32_t busy_permille(const CpuTimes& before, const CpuTimes& after) {
  if (after.total <= before.total || after.busy < before.busy) return 0;
  const std::uint64_t busy = after.busy - before.busy;
  const std::uint64_t total = after.total - before.total;
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(1000, (busy * 1000 + total / 2) / total));
}

Result<std::unique_ptr<HostLoadSampler>> HostLoadSampler::start(std::string stat_path, std::chrono::milliseconds period,
                                                                Sink sink) {
  Result<CpuTimes> first = read_stat(stat_path);
  if (!first) return first.take_error();
  return std::unique_ptr<HostLoadSampler>(new HostLoadSampler(std::move(stat_path), period, std::move(sink), *first));
}

HostLoadSampler::HostLoadSampler(std::string stat_path, std::chrono::milliseconds period, Sink sink, CpuTimes first)
    : stat_path_(std::move(stat_path)), period_(period), sink_(std::move(sink)), last_(first) {
  thread_ = thread_without_signals([this] { loop(); });
}

HostLoadSampler::~HostLoadSampler() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  stop_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

// A failed read keeps the previous load (the host's /proc does not come and go).
void HostLoadSampler::loop() {
  auto next = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    next += period_;
    if (stop_cv_.wait_until(lock, next, [this] { return stop_; })) return;
    Result<CpuTimes> now = read_stat(stat_path_);
    if (!now) continue;
    sink_(busy_permille(last_, *now));
    last_ = *now;
  }
}

}  // namespace energy::sim
