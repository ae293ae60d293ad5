#include "harness.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "energy/protocol.h"

namespace energy::testing {
namespace {

std::vector<char*> c_argv(const std::vector<std::string>& argv) {
  std::vector<char*> out;
  for (const auto& a : argv) out.push_back(const_cast<char*>(a.c_str()));
  out.push_back(nullptr);
  return out;
}

int decode_status(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace

TempDir::TempDir() {
  char tmpl[] = "/tmp/energyd-it-XXXXXX";
  if (::mkdtemp(tmpl) != nullptr) path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  if (!path_.empty()) std::filesystem::remove_all(path_, ec);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

CommandResult run_command(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) {
  TempDir tmp;
  std::string out_path = tmp.path() + "/out";
  std::string err_path = tmp.path() + "/err";
  pid_t pid = ::fork();
  if (pid == 0) {
    int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(out, 1);
    ::dup2(err, 2);
    auto args = c_argv(argv);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  CommandResult r;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  r.exit_code = decode_status(status);
  r.out = read_file(out_path);
  r.err = read_file(err_path);
  return r;
}

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const std::string& log_path,
                           const std::vector<std::string>& env) {
  pid_ = ::fork();
  if (pid_ == 0) {
    int log = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    ::dup2(log, 1);
    ::dup2(log, 2);
    for (const auto& e : env) ::putenv(const_cast<char*>(e.c_str()));
    auto args = c_argv(argv);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !reaped_) stop(SIGKILL);
}

bool ChildProcess::running() {
  if (reaped_) return false;
  if (::waitpid(pid_, &status_, WNOHANG) == pid_) reaped_ = true;
  return !reaped_;
}

int ChildProcess::stop(int sig, std::chrono::milliseconds timeout) {
  if (running()) ::kill(pid_, sig);
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (running()) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status_, 0);
      reaped_ = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return decode_status(status_);
}

bool eventually(const std::function<bool()>& pred, std::chrono::milliseconds timeout, std::chrono::milliseconds every) {
  auto end = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(every);
  }
  return pred();
}

SimControl::SimControl(const std::string& path) {
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) fd_ = std::move(fd);
}

nlohmann::json SimControl::call(const std::string& cmd, nlohmann::json args) {
  auto failed = [](const std::string& why) { return nlohmann::json{{"ok", false}, {"error", {{"message", why}}}}; };
  args["cmd"] = cmd;
  std::string frame = protocol::encode_frame(args);
  if (!fd_ || ::write(fd_.get(), frame.data(), frame.size()) != static_cast<ssize_t>(frame.size())) {
    return failed("cannot write to the simulator's control socket");
  }
  protocol::FrameDecoder decoder(protocol::kMaxReplyBytes);
  char buf[4096];
  for (;;) {
    auto next = decoder.next();
    if (!next) return failed(next.error().message);
    if (next->has_value()) return **next;
    ssize_t n = ::read(fd_.get(), buf, sizeof buf);
    if (n <= 0) return failed("the simulator closed its control connection");
    decoder.feed(buf, static_cast<size_t>(n));
  }
}

bool wait_for_socket(const std::string& path, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
    bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    ::close(fd);
    if (ok) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

CommandResult run_energyctl(const std::string& socket, const std::vector<std::string>& args, bool json,
                            std::chrono::milliseconds timeout) {
  std::vector<std::string> argv = {ENERGYCTL_BIN, "--socket", socket};
  if (json) argv.emplace_back("--json");
  argv.insert(argv.end(), args.begin(), args.end());
  return run_command(argv, timeout);
}

nlohmann::json energyctl_json(const std::string& socket, const std::vector<std::string>& args, int* exit_code,
                              std::chrono::milliseconds timeout) {
  CommandResult r = run_energyctl(socket, args, true, timeout);
  if (exit_code != nullptr) *exit_code = r.exit_code;
  return nlohmann::json::parse(r.out, nullptr, false);
}

int64_t boottime_ns() {
  timespec ts{};
  clock_gettime(CLOCK_BOOTTIME, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace energy::testing
