#include "sweep_progress.h"

#include <cstdio>

#include "table.h"

namespace energy::cli {

std::string progress_text(const ProgressState& s) {
  std::string what = s.repeat == 0 ? "warm-up" : "repeat " + std::to_string(s.repeat) + "/" + std::to_string(s.repeats);
  std::string out = "sweep: run " + std::to_string(s.done) + "/" + std::to_string(s.total) + ", point " +
                    std::to_string(s.point) + "/" + std::to_string(s.points) + " (" + s.label + ") " + what +
                    ", elapsed " + duration_text(s.elapsed_s);
  out += s.eta_s ? ", finish in ~" + duration_text(*s.eta_s) : std::string();
  return s.last.empty() ? out : out + "; last: " + s.last;
}

void Progress::show(const ProgressState& s) {
  std::string text = progress_text(s);
  if (terminal_) {
    std::fprintf(stderr, "\r\033[K%s", text.c_str());
    drawn_ = true;
  } else {
    std::fprintf(stderr, "energyctl: %s\n", text.c_str());
  }
  std::fflush(stderr);
}

void Progress::note(const std::string& message) {
  if (drawn_) std::fputs("\r\033[K", stderr);
  std::fprintf(stderr, "energyctl: %s\n", message.c_str());
  drawn_ = false;
}

void Progress::finish() {
  if (drawn_) std::fputs("\n", stderr);
  drawn_ = false;
}

}  // namespace energy::cli
