#include "run_child.h"

#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <spawn.h>

#include "energy/time_source.h"

extern char** environ;

namespace energy::cli {
namespace {

constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

bool is_forwarded(int sig) {
  for (int s : kForwarded) {
    if (s == sig) return true;
  }
  return false;
}

sigset_t forwarded_set() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : kForwarded) sigaddset(&set, s);
  return set;
}

// Exit statuses as a shell reports them: "not found" vs "found but not runnable".
int exec_failure_status(int err) { return err == ENOENT || err == ENOTDIR ? kExitNotFound : kExitNotExecutable; }

std::string exec_failure_text(const std::string& cmd, int err) {
  if (err == ENOENT || err == ENOTDIR) return cmd + ": command not found";
  return cmd + ": cannot execute: " + std::strerror(err);
}

// A signal from the terminal (Ctrl-C, hangup) reaches the whole foreground
// process group, the command included; forwarding it would deliver it twice.
bool sent_to_whole_group(const siginfo_t& info) { return info.si_code == SI_KERNEL; }

void decode(int status, ChildOutcome& out) {
  if (WIFSIGNALED(status)) {
    out.died_of_signal = WTERMSIG(status);
    out.exit_status = 128 + out.died_of_signal;
  } else {
    out.exit_status = WEXITSTATUS(status);
  }
}

void wait_failed(int err, ChildOutcome& out) {
  out.exit_status = 1;
  out.exec_error = std::string("cannot wait for the command: ") + std::strerror(err);
}

// Waits for `pid`, forwarding signals; SIGCHLD (blocked) wakes the wait at once.
void wait_forwarding(pid_t pid, ChildOutcome& out) {
  sigset_t wake = forwarded_set();
  sigaddset(&wake, SIGCHLD);
  for (;;) {
    int status = 0;
    pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return decode(status, out);
    if (r < 0 && errno != EINTR) return wait_failed(errno, out);
    siginfo_t info{};
    timespec tick{0, 200L * 1000 * 1000};  // a fallback: SIGCHLD normally wakes the wait
    int sig = ::sigtimedwait(&wake, &info, &tick);
    if (!is_forwarded(sig)) continue;
    out.received_signal = sig;
    if (!sent_to_whole_group(info)) ::kill(pid, sig);
  }
}

std::vector<char*> c_argv(const std::vector<std::string>& argv) {
  std::vector<char*> out;
  out.reserve(argv.size() + 1);
  for (const auto& a : argv) out.push_back(const_cast<char*>(a.c_str()));
  out.push_back(nullptr);
  return out;
}

std::string env_name(const std::string& entry) { return entry.substr(0, entry.find('=')); }

// environ without the variables `extra` sets, then `extra`.
std::vector<std::string> child_environment(const std::vector<std::string>& extra) {
  std::vector<std::string> out;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry(*e);
    bool replaced = false;
    for (const auto& x : extra) replaced = replaced || env_name(x) == env_name(entry);
    if (!replaced) out.push_back(std::move(entry));
  }
  out.insert(out.end(), extra.begin(), extra.end());
  return out;
}

// posix_spawnp reports a failed exec (ENOENT, EACCES, ...) as its return value.
int spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env, const sigset_t& mask, pid_t& pid) {
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
  posix_spawnattr_setsigmask(&attr, &mask);
  auto args = c_argv(argv);
  auto envp = c_argv(env);
  int err = ::posix_spawnp(&pid, args[0], nullptr, &attr, args.data(), envp.data());
  posix_spawnattr_destroy(&attr);
  return err;
}

}  // namespace

// SIGCHLD inherited as ignored would have the kernel reap the command
// itself, and its exit status would be lost.
SignalBlock::SignalBlock() : blocked_(forwarded_set()) {
  sigaddset(&blocked_, SIGCHLD);
  ::sigprocmask(SIG_BLOCK, &blocked_, &previous_);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  ::sigaction(SIGCHLD, &dfl, &previous_sigchld_);
}

SignalBlock::~SignalBlock() {
  while (take_pending() != 0) {
  }
  ::sigaction(SIGCHLD, &previous_sigchld_, nullptr);
  ::sigprocmask(SIG_SETMASK, &previous_, nullptr);
}

int SignalBlock::take_pending() const {
  siginfo_t info{};
  timespec now{0, 0};
  for (;;) {
    int sig = ::sigtimedwait(&blocked_, &info, &now);
    if (sig < 0) return 0;
    if (is_forwarded(sig)) return sig;
  }
}

ChildOutcome run_child(const std::vector<std::string>& argv, const SignalBlock& block,
                       const std::vector<std::string>& environment) {
  ChildOutcome out;
  pid_t pid = -1;
  auto env = child_environment(environment);
  SystemClock clock;
  int64_t start_ns = clock.boot_ns();  // before the spawn: the whole command is inside its span
  int err = spawn(argv, env, block.previous_mask(), pid);
  if (err != 0) {
    out.exit_status = exec_failure_status(err);
    out.exec_error = exec_failure_text(argv[0], err);
    return out;
  }
  wait_forwarding(pid, out);
  out.end_ns = clock.boot_ns();
  out.start_ns = start_ns;
  return out;
}

}  // namespace energy::cli
