// Owner types for sd-event objects and a Poster that lets other threads run
// a function on the event loop's thread.
//
// Thread-safety: EventPtr/SourcePtr belong to the loop thread. Poster::post
// may be called from any thread; posted functions run on the loop thread in
// posting order.
#pragma once

#include <systemd/sd-event.h>

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "energy/result.h"
#include "energy/unique_fd.h"

namespace energy::daemon {

struct EventUnref {
  void operator()(sd_event* e) const { sd_event_unref(e); }
};
struct SourceUnref {
  void operator()(sd_event_source* s) const {
    sd_event_source_set_enabled(s, SD_EVENT_OFF);
    sd_event_source_unref(s);
  }
};
using EventPtr = std::unique_ptr<sd_event, EventUnref>;
using SourcePtr = std::unique_ptr<sd_event_source, SourceUnref>;

class Poster {
 public:
  Status attach(sd_event* loop);
  void post(std::function<void()> fn);

 private:
  static int on_wake(sd_event_source* s, int fd, uint32_t revents, void* self);
  void run_posted();

  UniqueFd wake_fd_;
  SourcePtr source_;
  std::mutex mu_;
  std::vector<std::function<void()>> pending_;
};

}  // namespace energy::daemon
