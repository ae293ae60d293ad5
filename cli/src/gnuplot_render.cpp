#include "gnuplot_render.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <spawn.h>

extern char** environ;

namespace energy::cli {
namespace {

namespace fs = std::filesystem;

// A directory under $TMPDIR (or /tmp) removed with its contents on destruction.
class TempDir {
 public:
  TempDir() = default;
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  Status create() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/energyctl-plot-XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr) return errno_error("cannot create a temporary directory " + tmpl);
    path_ = tmpl;
    return ok_status();
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

Status write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return make_error(ErrorCode::kIo, "cannot write " + path);
  return ok_status();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Starts gnuplot on `script` with stdin /dev/null and its output in files of `dir`.
Result<pid_t> spawn_gnuplot(const std::string& gnuplot, const std::string& dir, const std::string& script) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  const std::string out_path = dir + "/gnuplot.out", err_path = dir + "/gnuplot.err";
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  std::string arg0 = gnuplot;
  std::string arg1 = script;
  char* argv[] = {arg0.data(), arg1.data(), nullptr};
  pid_t pid = 0;
  int rc = posix_spawn(&pid, gnuplot.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return errno_error("cannot start " + gnuplot, rc);
  return pid;
}

Result<int> wait_status(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return errno_error("waiting for gnuplot");
  }
  return status;
}

std::string failure_text(int status, const std::string& stderr_text) {
  std::string how = WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                      : "signal " + std::to_string(WTERMSIG(status));
  std::string text = stderr_text.empty() ? "(no message on stderr)" : stderr_text;
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return "gnuplot failed (" + how + "):\n" + text;
}

Status write_inputs(const std::string& dir, const Plot& plot) {
  for (const auto& d : plot.data) {
    if (d.name.empty() || d.name.find('/') != std::string::npos)
      return make_error(ErrorCode::kInvalid, "plot data file name '" + d.name + "' is not a bare name");
    if (auto st = write_file(dir + "/" + d.name, d.text); !st) return st;
  }
  return write_file(dir + "/script.gp", "cd " + gnuplot_string(dir) + "\n" + plot.script);
}

}  // namespace

std::string gnuplot_string(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') {
      out += "''";
    } else {
      out += static_cast<unsigned char>(c) < 0x20 || c == 0x7f ? ' ' : c;
    }
  }
  return out + "'";
}

Result<std::string> find_gnuplot() {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/gnuplot";
    if (::access(candidate.c_str(), X_OK) == 0 && !fs::is_directory(candidate)) return candidate;
  }
  return make_error(ErrorCode::kNotFound,
                    std::string("gnuplot not found on PATH; plots need it: apt install ") + kGnuplotPackage);
}

Status render_plot(const std::string& gnuplot, const Plot& plot) {
  TempDir dir;
  if (auto st = dir.create(); !st) return st;
  if (auto st = write_inputs(dir.path(), plot); !st) return st;
  auto pid = spawn_gnuplot(gnuplot, dir.path(), dir.path() + "/script.gp");
  if (!pid) return pid.take_error();
  auto status = wait_status(*pid);
  if (!status) return status.take_error();
  if (WIFEXITED(*status) && WEXITSTATUS(*status) == 0) return ok_status();
  return make_error(ErrorCode::kUnsupported, failure_text(*status, read_file(dir.path() + "/gnuplot.err")));
}

}  // namespace energy::cli
