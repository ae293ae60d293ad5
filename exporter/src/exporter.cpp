#include "exporter.h"

#include <signal.h>

#include <cstdio>
#include <mutex>

#include "collector.h"
#include "options.h"

#ifndef ENERGYD_VERSION
#define ENERGYD_VERSION "unknown"
#endif

namespace energy::exporter {

namespace {

// The /metrics handler's state: the counter guard and whether energyd was
// up at the previous scrape (for logging changes only).
class Scraper {
 public:
  explicit Scraper(const Options& o) : options_(o) {}
  std::string scrape() {
    std::lock_guard<std::mutex> lock(mu_);
    EnergydAnswers a = collect(options_.socket_path, options_.timeout);
    if (a.up != was_up_) log_change(a);
    was_up_ = a.up;
    return render_metrics(a, guard_, ENERGYD_VERSION);
  }

 private:
  void log_change(const EnergydAnswers& a) const {
    if (a.up)
      std::fprintf(stderr, "energyd answers on %s\n", options_.socket_path.c_str());
    else
      std::fprintf(stderr, "energyd does not answer (%s); serving energyd_up 0 until it does\n", a.error.c_str());
  }
  Options options_;
  std::mutex mu_;  // one scrape at a time
  CounterGuard guard_;
  bool was_up_ = true;
};

int wait_for_stop_signal() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  int sig = 0;
  sigwait(&set, &sig);
  return 0;
}

void block_stop_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);  // before MHD's thread starts, so it inherits the mask
  signal(SIGPIPE, SIG_IGN);
}

}  // namespace

int run_exporter(int argc, char** argv) {
  auto o = parse_options(std::vector<std::string>(argv + 1, argv + argc));
  if (!o) {
    std::fprintf(stderr, "energyd-exporter: %s\n", o.error().message.c_str());
    return 2;
  }
  if (o->help || o->version) {
    std::fputs(o->help ? usage().c_str() : ENERGYD_VERSION "\n", stdout);
    return 0;
  }
  block_stop_signals();
  Scraper scraper(*o);
  auto server = HttpServer::start(o->listen, [&scraper] { return scraper.scrape(); });
  if (!server) {
    std::fprintf(stderr, "energyd-exporter: %s\n", server.error().describe().c_str());
    return 1;
  }
  std::fprintf(stderr, "serving /metrics on %s port %d for %s\n", o->listen.host.c_str(), (*server)->port(),
               o->socket_path.c_str());
  return wait_for_stop_signal();
}

}  // namespace energy::exporter
