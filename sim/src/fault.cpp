#include "fault.h"

#include <cerrno>
#include <utility>

namespace energy::sim {
namespace {

constexpr std::pair<const char*, FaultKind> kKinds[] = {
    {"eio", FaultKind::kEio},       {"etimedout", FaultKind::kEtimedout}, {"enodata", FaultKind::kEnodata},
    {"eagain", FaultKind::kEagain}, {"block", FaultKind::kBlock},         {"vanish", FaultKind::kVanish},
};

}  // namespace

Result<FaultKind> parse_fault_kind(std::string_view name) {
  for (const auto& [text, kind] : kKinds) {
    if (name == text) return kind;
  }
  return make_error(ErrorCode::kInvalid, "fault kind '" + std::string(name) +
                                             "' is not one of eio, etimedout, enodata, eagain, block, vanish");
}

const char* fault_kind_name(FaultKind kind) {
  for (const auto& [text, k] : kKinds) {
    if (k == kind) return text;
  }
  return "?";
}

int fault_errno(FaultKind kind) {
  switch (kind) {
    case FaultKind::kEio: return EIO;
    case FaultKind::kEtimedout: return ETIMEDOUT;
    case FaultKind::kEnodata: return ENODATA;
    case FaultKind::kEagain: return EAGAIN;
    case FaultKind::kBlock:
    case FaultKind::kVanish: return 0;
  }
  return 0;
}

Status check_fault(const FaultSpec& fault) {
  if (fault.reads && *fault.reads == 0) return make_error(ErrorCode::kInvalid, "fault count must be at least 1");
  if (fault.block_ms && fault.kind != FaultKind::kBlock) {
    return make_error(ErrorCode::kInvalid, "ms applies to block faults only");
  }
  if (fault.block_ms && *fault.block_ms <= 0) return make_error(ErrorCode::kInvalid, "ms must be positive");
  if (fault.reads && fault.kind == FaultKind::kVanish) {
    return make_error(ErrorCode::kInvalid, "count does not apply to vanish (a vanished rail has no reads)");
  }
  return ok_status();
}

void FaultTable::set(const std::string& rail_id, const FaultSpec& fault) {
  faults_[rail_id] = fault;
  ++generations_[rail_id];
}

std::size_t FaultTable::clear(const std::string& rail_id) {
  if (!rail_id.empty()) {
    ++generations_[rail_id];
    return faults_.erase(rail_id);
  }
  for (auto& [id, generation] : generations_) ++generation;
  const std::size_t n = faults_.size();
  faults_.clear();
  return n;
}

std::optional<ReadFault> FaultTable::on_read(const std::string& rail_id) {
  const auto it = faults_.find(rail_id);
  if (it == faults_.end() || it->second.kind == FaultKind::kVanish) return std::nullopt;
  const FaultSpec fault = it->second;
  if (fault.reads && --*it->second.reads == 0) faults_.erase(it);  // generation kept: a blocked read stays blocked
  ReadFault out;
  out.sys_errno = fault_errno(fault.kind);
  out.block = fault.kind == FaultKind::kBlock;
  out.block_ms = fault.block_ms;
  out.rail_id = rail_id;
  out.generation = generations_[rail_id];
  return out;
}

bool FaultTable::released(const ReadFault& fault) const {
  const auto it = generations_.find(fault.rail_id);
  return it != generations_.end() && it->second != fault.generation;
}

std::vector<FaultTable::Entry> FaultTable::entries() const {
  std::vector<Entry> out;
  for (const auto& [id, fault] : faults_) out.push_back(Entry{id, fault});
  return out;
}

bool FaultTable::vanished(const std::string& rail_id) const {
  const auto it = faults_.find(rail_id);
  return it != faults_.end() && it->second.kind == FaultKind::kVanish;
}

}  // namespace energy::sim
