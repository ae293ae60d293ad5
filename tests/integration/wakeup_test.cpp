// Issue 16's wake-up goal, counted as the benchmark counts it: an idle
// energyd (no client, no lease, no mark) wakes once per tick on its sampler
// thread and at most about once a second for storage; the event loop, the
// context poller (its polls ride on the sampler's sweeps, on that thread),
// the clock-lease worker and the query workers do not wake at all.
// Voluntary context switches of each thread (/proc/PID/task/*/status) are
// its wake-ups: a thread that is not woken does not block again, whatever
// the machine's load (involuntary switches, which load adds, are not counted).
#include <dirent.h>
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <map>
#include <string>
#include <thread>

#include "board_fixture.h"

namespace energy::testing {
namespace {

// Thread name -> voluntary context switches, summed over threads of that name.
std::map<std::string, long> voluntary_switches(pid_t pid) {
  std::map<std::string, long> out;
  std::string dir = "/proc/" + std::to_string(pid) + "/task";
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return out;
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.') continue;
    std::ifstream status(dir + "/" + e->d_name + "/status");
    std::string line, name;
    long n = -1;
    while (std::getline(status, line)) {
      if (line.rfind("Name:", 0) == 0) name = line.substr(line.find_first_not_of(" \t", 5));
      if (line.rfind("voluntary_ctxt_switches:", 0) == 0) n = std::stol(line.substr(24));
    }
    if (!name.empty() && n >= 0) out[name] += n;
  }
  ::closedir(d);
  return out;
}

TEST(Wakeups, AnIdleDaemonWakesOncePerTickAndAboutOnceASecondForStorage) {
  SimulatedDaemon d(constant_orin_nano());  // 100 ms
  ASSERT_TRUE(d.started()) << d.setup_error();
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // past start-up and the first commits
  auto before = voluntary_switches(d.pid());
  ASSERT_TRUE(before.count("sample") == 1 && before.count("context") == 1) << "energyd's threads not found";
  const auto window = std::chrono::seconds(3);
  std::this_thread::sleep_for(window);
  auto after = voluntary_switches(d.pid());
  long total = 0;
  for (const auto& [name, n] : after) {
    long woke = n - before[name];
    total += woke;
    if (name == "sample") {
      EXPECT_LE(woke, 3 * 10 + 3) << "the sampler: one wake-up per 100 ms tick";
    } else if (name == "store") {
      EXPECT_LE(woke, 3 * 2 + 1) << "the storage writer";
    } else {
      EXPECT_LE(woke, 1) << "thread '" << name << "' woke " << woke << " times in 3 s with nothing to do";
    }
  }
  RecordProperty("wakeups_per_second", std::to_string(static_cast<double>(total) / 3.0));
}

}  // namespace
}  // namespace energy::testing
