// ContextTracker: turns polled values of one polling schedule (the clocks,
// or the thermal zones) into the change rows of the board context
// (energy/context.h): a row when a source's value differs from its last row,
// and unknown rows for stretches nobody observed:
//   - a read that took longer than the stall limit (Thor's devfreq files can
//     hang): the source is unknown from the read's start to its end;
//   - a poll that comes more than the gap limit after the previous one
//     (the poller was held up, or the board was suspended): every source is
//     unknown from one period after the previous poll.
// The first value of a source is always a row, even an unknown one, so that
// every source the daemon polls is listed in run reports.
//
// Times are CLOCK_BOOTTIME ns. Pure logic: no I/O, no clock, no threads.
//
// Thread-safety: one thread at a time per object.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "energy/context.h"

namespace energy::daemon {

class ContextTracker {
 public:
  struct Limits {
    int64_t period_ns = 0;  // the poll period
    int64_t stall_ns = 0;   // a read longer than this is not an observation of its whole duration
    int64_t gap_ns = 0;     // a poll later than this after the previous one leaves a gap
  };
  explicit ContextTracker(Limits limits) : limits_(limits) {}
  // Not copied or moved: the hints point into this object's own map.
  ContextTracker(const ContextTracker&) = delete;
  ContextTracker& operator=(const ContextTracker&) = delete;

  // A poll starts at t_ns.
  void begin_poll(int64_t t_ns, std::vector<ContextChange>& out);
  // A source read between start_ns and end_ns gave `v`. True when the
  // source's last row holds `v` afterwards: until a row of another value,
  // a gap (begin_poll) or forget_all, observing `v` again unstalled makes no
  // row (the poller then skips the call; issue 16).
  bool observe(ContextKind kind, const std::string& name, int64_t start_ns, int64_t end_ns, const ContextValue& v,
               std::vector<ContextChange>& out);
  // The poll ended at t_ns.
  void end_poll(int64_t t_ns) { last_poll_end_ns_ = t_ns; }
  // The source is no longer this tracker's (another one tracks it from now): no row.
  void forget(ContextKind kind, const std::string& name) {
    hint_count_ = 0;  // the erased entry's iterator may be among them
    last_.erase({kind, name});
  }
  // Every source this tracker has seen becomes unknown at t_ns (polling stops).
  void forget_all(int64_t t_ns, std::vector<ContextChange>& out);

 private:
  struct Last {
    ContextValue v;
    int64_t t_ns = 0;  // of the source's last row
  };
  void emit(ContextKind kind, const std::string& name, int64_t t_ns, const ContextValue& v,
            std::vector<ContextChange>& out);

  // Looked up by (kind, name) without copying the name: observe runs for
  // every clock on every tick where clocks are polled (issue 16).
  struct KeyLess {
    using is_transparent = void;
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      if (a.first != b.first) return a.first < b.first;
      return std::string_view(a.second) < std::string_view(b.second);
    }
  };
  using Key = std::pair<ContextKind, std::string>;
  using Map = std::map<Key, Last, KeyLess>;
  // The entry of a source, found first among the sources observed lately:
  // the pollers pass their sources' names from storage that lives as long
  // as they do, so a name at the same address with the same content is the
  // same source, and most ticks do no map lookup (issue 16). Any name
  // still compares by content.
  struct Hint {
    ContextKind kind{};
    const char* name = nullptr;
    Map::iterator it;
  };
  Map::iterator find(ContextKind kind, const std::string& name);

  Limits limits_;
  Map last_;
  std::array<Hint, 16> hints_{};  // more than a board has clocks (and governors) or thermal zones
  size_t hint_count_ = 0;
  size_t hint_next_ = 0;  // the hint replaced next once all are in use
  std::optional<int64_t> last_poll_end_ns_;
};

}  // namespace energy::daemon
