#include "sweep_progress.h"

#include <cstdio>

#include "table.h"

namespace energy::cli {
namespace {

std::string of_total(size_t n, size_t total) { return std::to_string(n) + "/" + std::to_string(total); }

// "run 3/10", or for a search "run 3/~40 (estimate)".
std::string run_text(const ProgressState& s) {
  if (!s.total_estimated) return "run " + of_total(s.done, s.total);
  return "run " + std::to_string(s.done) + "/~" + std::to_string(s.total) + " (estimate)";
}

std::string point_text(const ProgressState& s) {
  std::string index = s.points > 0 ? of_total(s.point + 1, s.points) + " " : "";
  return "point " + index + "(" + s.label + ")";
}

std::string repeat_text(const ProgressState& s) {
  if (s.repeat == 0) return "warm-up";
  return "repeat " + (s.repeats > 0 ? of_total(static_cast<size_t>(s.repeat), static_cast<size_t>(s.repeats))
                                    : std::to_string(s.repeat));
}

}  // namespace

std::string progress_text(const ProgressState& s) {
  std::string out =
      "sweep: " + run_text(s) + ", " + point_text(s) + " " + repeat_text(s) + ", elapsed " + duration_text(s.elapsed_s);
  out += s.eta_s ? ", finish in ~" + duration_text(*s.eta_s) : std::string();
  return s.last.empty() ? out : out + "; last: " + s.last;
}

nlohmann::json progress_json(const ProgressState& s) {
  nlohmann::json j = {
      {"event", "run"},   {"run", s.done},      {"runs", s.total},  {"runs_estimated", s.total_estimated},
      {"point", s.point}, {"repeat", s.repeat}, {"label", s.label}, {"elapsed_s", s.elapsed_s}};
  if (s.points > 0) j["points"] = s.points;
  if (s.repeats > 0) j["repeats"] = s.repeats;
  if (s.eta_s) j["eta_s"] = *s.eta_s;
  if (!s.last.empty()) j["last"] = s.last;
  return j;
}

void Progress::show(const ProgressState& s) {
  if (style_ == ProgressStyle::kJson) return event(progress_json(s));
  std::string text = progress_text(s);
  if (style_ == ProgressStyle::kRedraw) {
    std::fprintf(stderr, "\r\033[K%s", text.c_str());
    drawn_ = true;
  } else {
    std::fprintf(stderr, "energyctl: %s\n", text.c_str());
  }
  std::fflush(stderr);
}

void Progress::note(const std::string& message) {
  if (style_ == ProgressStyle::kJson) return event({{"event", "note"}, {"message", message}});
  if (drawn_) std::fputs("\r\033[K", stderr);
  std::fprintf(stderr, "energyctl: %s\n", message.c_str());
  drawn_ = false;
}

void Progress::event(const nlohmann::json& event) {
  if (style_ != ProgressStyle::kJson) return;
  // Invalid UTF-8 (a parameter value, a command) is replaced, never a throw.
  std::string line = event.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
}

void Progress::finish() {
  if (drawn_) std::fputs("\n", stderr);
  drawn_ = false;
}

}  // namespace energy::cli
