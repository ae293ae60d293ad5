// Typed arguments of the sweep verbs (docs/PROTOCOL.md "Sweeps"), read from
// requests by verb_args.h with every other verb's arguments.
//
// Thread-safety: plain values.
#pragma once

#include <cstdint>
#include <string>

#include "energy/sweep_records.h"

namespace energy::daemon {

constexpr int64_t kSweepsListDefaultLimit = 100;
constexpr int64_t kSweepsListMaxLimit = 1000;
constexpr int64_t kMaxSweepPoint = 1'000'000;   // point and repeat indexes
constexpr int64_t kMaxCooldownMs = 86'400'000;  // a day
// A sweep's spec, serialised. Below the request frame limit
// (protocol::kMaxRequestBytes, 64 KiB) by room for the rest of the request
// (a 200-character name is up to 800 bytes), so any spec the verb accepts
// can also be sent.
constexpr int64_t kMaxSweepSpecBytes = int64_t{60} * 1024;

struct SweepCreateArgs {
  std::string name;
  std::string spec_json;  // a JSON object, compact, at most kMaxSweepSpecBytes
};

struct SweepRef {
  int64_t id = 0;
};

struct SweepStateArgs {
  int64_t sweep = 0;
  SweepState state = SweepState::kRunning;
};

}  // namespace energy::daemon
