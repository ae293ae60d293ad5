#include "energy/clock_pin.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>

#include "energy/attr_file.h"
#include "energy/unique_fd.h"

namespace energy {
namespace {

constexpr const char* kDebugfs = "/sys/kernel/debug";
constexpr size_t kMaxDigits = 18;  // keeps every intermediate below 2^63

std::string lower_trimmed(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c)) == 0)
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

std::string trimmed(std::string_view text) {
  size_t b = 0, e = text.size();
  while (b < e && std::isspace(static_cast<unsigned char>(text[b])) != 0) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(text[e - 1])) != 0) --e;
  return std::string(text.substr(b, e - b));
}

Result<int64_t> unit_multiplier(const std::string& unit, std::string_view original) {
  if (unit == "hz") return int64_t{1};
  if (unit == "khz") return int64_t{1000};
  if (unit == "mhz") return int64_t{1000000};
  if (unit == "ghz") return int64_t{1000000000};
  if (unit.empty()) {
    return make_error(ErrorCode::kInvalid, "frequency '" + std::string(original) +
                                               "' has no unit; write e.g. 1200MHz, 1.2GHz or 1200000000Hz");
  }
  return make_error(ErrorCode::kInvalid, "frequency '" + std::string(original) + "' has an unknown unit '" + unit +
                                             "' (use Hz, kHz, MHz or GHz)");
}

// "1.2" x 1e9 -> 1200000000, exactly (no floating point).
Result<int64_t> scaled_decimal(const std::string& number, int64_t multiplier, std::string_view original) {
  size_t dot = number.find('.');
  std::string digits = dot == std::string::npos ? number : number.substr(0, dot) + number.substr(dot + 1);
  size_t decimals = dot == std::string::npos ? 0 : number.size() - dot - 1;
  std::string what = "frequency '" + std::string(original) + "'";
  if (digits.empty() || digits.size() > kMaxDigits) return make_error(ErrorCode::kInvalid, what + " is not a number");
  int64_t value = std::stoll(digits);
  int64_t divisor = 1;
  for (size_t i = 0; i < decimals; ++i) divisor *= 10;
  if (multiplier > 1 && value > INT64_MAX / multiplier) return make_error(ErrorCode::kInvalid, what + " is too large");
  if ((value * multiplier) % divisor != 0)
    return make_error(ErrorCode::kInvalid, what + " is not a whole number of Hz");
  if (value == 0) return make_error(ErrorCode::kInvalid, what + " must be above zero");
  return value * multiplier / divisor;
}

int64_t nearest_below(const std::vector<int64_t>& sorted, int64_t hz) {
  auto it = std::lower_bound(sorted.begin(), sorted.end(), hz);
  return it == sorted.begin() ? -1 : *(it - 1);
}

int64_t nearest_above(const std::vector<int64_t>& sorted, int64_t hz) {
  auto it = std::upper_bound(sorted.begin(), sorted.end(), hz);
  return it == sorted.end() ? -1 : *it;
}

Error unlisted_error(const ClockDomain& d, int64_t hz) {
  std::vector<std::string> near;
  for (int64_t n : {nearest_below(d.available_hz, hz), nearest_above(d.available_hz, hz)}) {
    if (n > 0) near.push_back(format_mhz(n));
  }
  std::string what = d.name + ": " + format_mhz(hz) + " is not a listed frequency";
  if (near.empty()) return make_error(ErrorCode::kInvalid, what + " (the domain lists none above 0 Hz)");
  std::string list = near.size() == 2 ? near[0] + " and " + near[1] : near[0];
  return make_error(ErrorCode::kInvalid, what + "; nearest listed: " + list + " (energyctl clocks lists them all)");
}

std::string min_file(const ClockDomain& d) { return d.kind == DomainKind::kCpu ? "scaling_min_freq" : "min_freq"; }
std::string max_file(const ClockDomain& d) { return d.kind == DomainKind::kCpu ? "scaling_max_freq" : "max_freq"; }
std::string governor_file(const ClockDomain& d) { return d.kind == DomainKind::kCpu ? "scaling_governor" : "governor"; }

Status check_writable(const ClockDomain& d) {
  if (d.writable) return ok_status();
  if (d.dir.rfind(kDebugfs, 0) == 0) {
    return make_error(ErrorCode::kUnsupported,
                      d.name + ": " + d.dir +
                          " has no lock and rate files to pin the memory clock with (debugfs: "
                          "clk/override.emc/{clk_state,clk_update_rate} on T210, "
                          "bpmp/debug/clk/emc/{mrq_rate_locked,rate} on T186/T194/T234); it can only be read");
  }
  return make_error(ErrorCode::kUnsupported, d.name + ": " + d.dir + " has no " + min_file(d) + "/" + max_file(d) +
                                                 " files to write (read-only domain)");
}

std::string cpu_list_text(const std::vector<int>& cpus) {
  std::string out;
  for (int c : cpus) out += (out.empty() ? "" : ",") + std::to_string(c);
  return out;
}

Status check_online(const ClockDomain& d, const DomainState& now, OfflineCpus offline) {
  if (d.kind != DomainKind::kCpu) return ok_status();
  std::vector<int> off;
  for (int c : d.cpus) {
    if (std::find(now.online_cpus.begin(), now.online_cpus.end(), c) == now.online_cpus.end()) off.push_back(c);
  }
  if (off.empty()) return ok_status();
  std::string first = "/sys/devices/system/cpu/cpu" + std::to_string(off.front()) + "/online";
  if (off.size() == d.cpus.size()) {
    return make_error(ErrorCode::kState, d.name + ": every CPU of this policy (" + cpu_list_text(off) +
                                             ") is offline, so the kernel refuses its limits; bring one online (" +
                                             first + ")");
  }
  if (offline == OfflineCpus::kAllow) return ok_status();
  return make_error(ErrorCode::kState, d.name + ": CPU " + cpu_list_text(off) + " of this policy " +
                                           (off.size() == 1 ? "is" : "are") + " offline (" + first +
                                           " is 0), so the pinned configuration would not be the board's; bring " +
                                           (off.size() == 1 ? "it" : "them") + " online or allow offline CPUs");
}

Status check_governor(const ClockDomain& d, const DomainState& now, const std::string& governor) {
  if (governor.empty()) return ok_status();
  if (std::find(d.governors.begin(), d.governors.end(), governor) == d.governors.end()) {
    std::string list;
    for (const auto& g : d.governors) list += (list.empty() ? "" : ", ") + g;
    return make_error(ErrorCode::kInvalid, d.name + ": governor '" + governor + "' is not one of " +
                                               join_path(d.dir, governor_file(d)) + "'s choices (" +
                                               (list.empty() ? "none listed" : list) + ")");
  }
  if (now.governor.empty()) {
    return make_error(ErrorCode::kIo,
                      d.name + ": cannot read " + join_path(d.dir, governor_file(d)) + " to save it before the pin");
  }
  return ok_status();
}

Status check_limits_readable(const ClockDomain& d, const DomainState& now) {
  if (!now.min_hz) return make_error(ErrorCode::kIo, d.name + ": cannot read " + join_path(d.dir, min_file(d)));
  if (!now.max_hz) return make_error(ErrorCode::kIo, d.name + ": cannot read " + join_path(d.dir, max_file(d)));
  return ok_status();
}

Result<std::pair<int64_t, int64_t>> resolve_range(const ClockDomain& d, const FreqRange& range) {
  auto lo = resolve_bound(d, range.lo);
  if (!lo) return lo.take_error();
  auto hi = resolve_bound(d, range.hi);
  if (!hi) return hi.take_error();
  if (*lo > *hi) {
    return make_error(ErrorCode::kInvalid, d.name + ": the requested minimum " + format_mhz(*lo) +
                                               " is above the requested maximum " + format_mhz(*hi));
  }
  return std::make_pair(*lo, *hi);
}

DomainPin make_pin(const ClockDomain& d, const DomainState& now, const PinRequest& req, int64_t lo, int64_t hi) {
  DomainPin pin;
  pin.domain = d.name;
  pin.hz_per_unit = d.kind == DomainKind::kCpu ? 1000 : 1;
  pin.requested_min_hz = lo;
  pin.requested_max_hz = hi;
  pin.requested_governor = req.governor;
  if (!req.governor.empty()) {
    pin.files.push_back({PinRole::kGovernor, join_path(d.dir, governor_file(d)), now.governor, req.governor});
  }
  auto units = [&](int64_t hz) { return std::to_string(hz / pin.hz_per_unit); };
  pin.files.push_back({PinRole::kMin, join_path(d.dir, min_file(d)), units(*now.min_hz), units(lo)});
  pin.files.push_back({PinRole::kMax, join_path(d.dir, max_file(d)), units(*now.max_hz), units(hi)});
  return pin;
}

bool is_debugfs_emc(const ClockDomain& d) { return !emc_pin_files(d).lock.empty(); }

// A debugfs EMC takes one rate; it has no governor file, so a governor
// asked with the pin (energyctl's --governor applies to every domain) is
// for the other domains. Its lock and rate files are saved
// (DomainState::lock_text, rate_request_text) to be put back.
Result<DomainPin> plan_emc_pin(const ClockDomain& d, const DomainState& now, int64_t lo, int64_t hi) {
  if (lo != hi) {
    return make_error(ErrorCode::kInvalid, d.name + ": the memory clock in " + d.dir +
                                               " is pinned to one rate, not a range (" + format_mhz(lo) + " to " +
                                               format_mhz(hi) + ")");
  }
  EmcPinFiles files = emc_pin_files(d);
  for (const auto& [text, path] : {std::make_pair(&now.lock_text, files.lock), {&now.rate_request_text, files.rate}}) {
    if (!*text) return make_error(ErrorCode::kIo, d.name + ": cannot read " + path + " to save it before the pin");
  }
  DomainPin pin;
  pin.domain = d.name;
  pin.requested_min_hz = lo;
  pin.requested_max_hz = hi;
  pin.files.push_back({PinRole::kLock, files.lock, *now.lock_text, "1"});
  pin.files.push_back({PinRole::kRate, files.rate, *now.rate_request_text, std::to_string(lo)});
  return pin;
}

const PinnedFile* find_role(const DomainPin& pin, PinRole role) {
  for (const auto& f : pin.files) {
    if (f.role == role) return &f;
  }
  return nullptr;
}

int64_t units_of(const std::string& text) {
  auto v = parse_sysfs_int(text, "limit");
  return v ? *v : 0;
}

}  // namespace

Result<FreqBound> parse_freq_bound(std::string_view text) {
  std::string t = lower_trimmed(text);
  if (t == "min") return FreqBound{FreqBound::Kind::kLowest, 0};
  if (t == "max") return FreqBound{FreqBound::Kind::kHighest, 0};
  size_t end = 0;
  while (end < t.size() && (std::isdigit(static_cast<unsigned char>(t[end])) != 0 || t[end] == '.')) ++end;
  std::string number = t.substr(0, end);
  if (number.empty() || std::count(number.begin(), number.end(), '.') > 1) {
    return make_error(ErrorCode::kInvalid,
                      "frequency '" + std::string(text) + "' is not min, max or a number with a unit (e.g. 1.2GHz)");
  }
  auto mult = unit_multiplier(t.substr(end), text);
  if (!mult) return mult.take_error();
  auto hz = scaled_decimal(number, *mult, text);
  if (!hz) return hz.take_error();
  return FreqBound{FreqBound::Kind::kHz, *hz};
}

Result<FreqRange> parse_freq_range(std::string_view text) {
  size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    auto b = parse_freq_bound(text);
    if (!b) return b.take_error();
    return FreqRange{*b, *b};
  }
  auto lo = parse_freq_bound(text.substr(0, colon));
  if (!lo) return lo.take_error();
  auto hi = parse_freq_bound(text.substr(colon + 1));
  if (!hi) return hi.take_error();
  return FreqRange{*lo, *hi};
}

std::string format_mhz(int64_t hz) {
  std::string out = std::to_string(hz / 1000000);
  int64_t rest = hz % 1000000;
  if (rest != 0) {
    std::string frac = std::to_string(rest);
    frac.insert(0, 6 - frac.size(), '0');
    while (frac.back() == '0') frac.pop_back();
    out += "." + frac;
  }
  return out + " MHz";
}

const char* pin_role_name(PinRole role) {
  switch (role) {
    case PinRole::kGovernor: return "governor";
    case PinRole::kMin: return "min";
    case PinRole::kMax: return "max";
    case PinRole::kLock: return "lock";
    case PinRole::kRate: return "rate";
  }
  return "unknown";
}

Result<int64_t> resolve_bound(const ClockDomain& d, const FreqBound& bound) {
  if (d.available_hz.empty()) {
    return make_error(ErrorCode::kUnsupported, d.name + ": " + d.dir + " lists no available frequencies to pin to");
  }
  if (bound.kind == FreqBound::Kind::kLowest) return d.available_hz.front();
  if (bound.kind == FreqBound::Kind::kHighest) return d.available_hz.back();
  if (std::binary_search(d.available_hz.begin(), d.available_hz.end(), bound.hz)) return bound.hz;
  return unlisted_error(d, bound.hz);
}

Result<DomainPin> plan_pin(const ClockDomain& d, const DomainState& now, const PinRequest& req, OfflineCpus offline) {
  if (auto st = check_writable(d); !st) return st.take_error();
  if (is_debugfs_emc(d)) {
    auto range = resolve_range(d, req.range);
    if (!range) return range.take_error();
    return plan_emc_pin(d, now, range->first, range->second);
  }
  for (auto st : {check_online(d, now, offline), check_limits_readable(d, now), check_governor(d, now, req.governor)}) {
    if (!st) return st.take_error();
  }
  auto range = resolve_range(d, req.range);
  if (!range) return range.take_error();
  return make_pin(d, now, req, range->first, range->second);
}

int64_t recorded_max_units(const DomainPin& pin, PinDirection direction) {
  const PinnedFile* max = find_role(pin, PinRole::kMax);
  if (max == nullptr) return 0;
  return units_of(direction == PinDirection::kApply ? max->saved : max->pinned);
}

std::vector<FileWrite> plan_writes(const DomainPin& pin, PinDirection direction, int64_t current_max_units) {
  auto target = [direction](const PinnedFile& f) { return direction == PinDirection::kApply ? f.pinned : f.saved; };
  std::vector<FileWrite> out;
  if (const PinnedFile* lock = find_role(pin, PinRole::kLock)) {
    const PinnedFile* rate = find_role(pin, PinRole::kRate);
    if (direction == PinDirection::kApply) out.push_back({lock->path, lock->pinned});
    if (rate != nullptr && units_of(target(*rate)) > 0) out.push_back({rate->path, target(*rate)});
    if (direction == PinDirection::kRestore) out.push_back({lock->path, lock->saved});
    return out;
  }
  if (const PinnedFile* g = find_role(pin, PinRole::kGovernor)) out.push_back({g->path, target(*g)});
  const PinnedFile* min = find_role(pin, PinRole::kMin);
  const PinnedFile* max = find_role(pin, PinRole::kMax);
  if (min == nullptr || max == nullptr) return out;
  // A new minimum above today's maximum would be refused: raise the maximum first.
  bool max_first = units_of(target(*min)) > current_max_units;
  for (const PinnedFile* f :
       max_first ? std::vector<const PinnedFile*>{max, min} : std::vector<const PinnedFile*>{min, max}) {
    out.push_back({f->path, target(*f)});
  }
  return out;
}

Status write_verified(const SysRoot& root, const FileWrite& w) {
  auto fd = root.open_file(w.path, FileAccess::kWrite);
  if (!fd) {
    return make_error(fd.error().code, "cannot write '" + w.text + "' to " + w.path + ": " + fd.error().message,
                      fd.error().sys_errno);
  }
  std::string line = w.text + "\n";
  ssize_t n = ::write(fd->get(), line.data(), line.size());
  if (n < 0) return errno_error("the kernel refused '" + w.text + "' written to " + w.path);
  if (static_cast<size_t>(n) != line.size()) {
    return make_error(ErrorCode::kIo, "short write of '" + w.text + "' to " + w.path);
  }
  fd->reset();
  auto back = root.read_text(w.path);
  if (!back)
    return make_error(back.error().code,
                      "wrote '" + w.text + "' to " + w.path + " but cannot read it back: " + back.error().describe(),
                      back.error().sys_errno);
  if (trimmed(*back) != w.text) {
    return make_error(ErrorCode::kState,
                      "wrote '" + w.text + "' to " + w.path + " but it reads back '" + trimmed(*back) + "'");
  }
  return ok_status();
}

}  // namespace energy
