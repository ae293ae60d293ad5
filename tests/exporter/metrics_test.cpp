// The exporter's metric families from energyd's answers (metrics.h), the
// exposition text (checked by promtool when it is installed), the counter
// guard across energyd restarts, the options and the HTTP front end.
#include "metrics.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

#include <arpa/inet.h>
#include <netinet/in.h>

#include "exposition.h"
#include "http_server.h"
#include "options.h"

namespace energy::exporter {
namespace {

using nlohmann::json;

EnergydAnswers board() {
  EnergydAnswers a;
  a.up = true;
  a.status = json::parse(R"({
    "version": "0.1.0", "uptime_s": 12.5,
    "board": {"model": "NVIDIA Jetson Orin Nano", "l4t_release": "36.4.3"},
    "rails": [{"label": "VDD_IN", "voltage_v": 5.0, "current_a": 1.2, "power_w": 6.0, "read_errors": 0},
              {"label": "VDD_CPU_GPU_CV", "errno": 5, "error": "EIO", "read_errors": 3}],
    "total": {"rails": ["VDD_IN"], "power_w": 6.0},
    "sampler": {"ticks": 100, "missed_ticks": 1, "stalls": 0, "lateness_p99_ns": 200000, "max_lateness_ns": 900000,
                "period_ms": 100},
    "storage": {"healthy": true, "failed_commits": 0, "dropped_samples": 0, "queued_samples": 4},
    "open_runs": [{"name": "resnet \"50\""}, {"name": "resnet \"50\""}, {"name": "bert"}]})");
  a.counters = json::parse(R"({"counters_id": "0123456789abcdef", "created_wall_ns": 1700000000000000000,
    "rails": [{"label": "VDD_IN", "energy_j": 120.5}, {"label": "VDD_CPU_GPU_CV", "energy_j": 40.25}],
    "total": {"rails": ["VDD_IN"], "energy_j": 120.5}})");
  a.clocks =
      json::parse(R"({"domains": [{"kind": "gpu", "name": "gpu", "cur_hz": 306000000, "governor": "nvhost_podgov"},
                                         {"kind": "cpu", "name": "cpu0", "cur_hz": 729600000, "governor": "schedutil"}],
                             "thermal": [{"type": "cpu-thermal", "temp_c": 45.5}, {"type": "gated", "temp_c": null}]})");
  a.leases = json::parse(R"({"leases": [{"created_wall_ns": 1700000001000000000, "domains": [{"domain": "gpu"}]}]})");
  return a;
}

bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos || text.rfind(line + "\n", 0) == 0;
}

TEST(Metrics, JouleCountersPerRailAndForTheModuleTotal) {
  CounterGuard guard;
  std::string t = render_metrics(board(), guard, "x");
  EXPECT_TRUE(has_line(t, "# TYPE energyd_energy_joules_total counter")) << t;
  EXPECT_TRUE(has_line(t, "energyd_energy_joules_total{rail=\"VDD_IN\"} 120.5")) << t;
  EXPECT_TRUE(has_line(t, "energyd_energy_joules_total{rail=\"VDD_CPU_GPU_CV\"} 40.25")) << t;
  EXPECT_TRUE(has_line(t, "energyd_module_energy_joules_total 120.5")) << t;
  EXPECT_TRUE(
      has_line(t, "energyd_energy_counters_created_timestamp_seconds{counters_id=\"0123456789abcdef\"} 1700000000"))
      << t;
}

TEST(Metrics, ReadingsHealthRunsClocksAndInfo) {
  CounterGuard guard;
  std::string t = render_metrics(board(), guard, "x");
  for (const char* line :
       {"energyd_up 1", "energyd_power_watts{rail=\"VDD_IN\"} 6", "energyd_rail_up{rail=\"VDD_IN\"} 1",
        "energyd_rail_up{rail=\"VDD_CPU_GPU_CV\"} 0", "energyd_rail_read_errors_total{rail=\"VDD_CPU_GPU_CV\"} 3",
        "energyd_module_power_watts 6", "energyd_sampler_missed_ticks_total 1",
        "energyd_sampler_lateness_p99_seconds 0.00020000000000000001", "energyd_storage_healthy 1",
        "energyd_open_runs 3", "energyd_open_runs_by_name{run=\"resnet \\\"50\\\"\"} 2",
        "energyd_clock_hertz{domain=\"gpu\"} 306000000", "energyd_clock_pinned{domain=\"gpu\"} 1",
        "energyd_clock_pinned{domain=\"cpu0\"} 0",
        "energyd_clock_pinned_since_timestamp_seconds{domain=\"gpu\"} 1700000001",
        "energyd_temperature_celsius{zone=\"cpu-thermal\"} 45.5",
        "energyd_build_info{version=\"0.1.0\",exporter_version=\"x\"} 1",
        "energyd_board_info{model=\"NVIDIA Jetson Orin Nano\",l4t_release=\"36.4.3\",total_rails=\"VDD_IN\"} 1"}) {
    EXPECT_TRUE(has_line(t, line)) << line << "\n" << t;
  }
  EXPECT_EQ(t.find("zone=\"gated\""), std::string::npos) << "a gated zone has no temperature";
  EXPECT_EQ(t.find("energyd_voltage_volts{rail=\"VDD_CPU_GPU_CV\"}"), std::string::npos)
      << "a failed rail has no reading";
}

TEST(Metrics, EnergydDownServesOnlyUpZero) {
  CounterGuard guard;
  EnergydAnswers down;
  std::string t = render_metrics(down, guard, "x");
  EXPECT_TRUE(has_line(t, "energyd_up 0")) << t;
  EXPECT_EQ(t.find("energyd_energy_joules_total"), std::string::npos);
}

TEST(Metrics, RunNamesAreCapped) {
  EnergydAnswers a = board();
  a.status["open_runs"] = json::array();
  for (int i = 0; i < 100; ++i) a.status["open_runs"].push_back({{"name", "run" + std::to_string(1000 + i)}});
  CounterGuard guard;
  std::string t = render_metrics(a, guard, "x");
  size_t n = 0;
  for (size_t p = t.find("\nenergyd_open_runs_by_name{"); p != std::string::npos;
       p = t.find("\nenergyd_open_runs_by_name{", p + 1))
    ++n;
  EXPECT_EQ(n, kMaxRunNames);
  EXPECT_TRUE(has_line(t, "energyd_open_runs 100"));
}

TEST(Metrics, LastStoppedRunOfEachNameFromTheNewest) {
  EnergydAnswers a = board();
  a.stopped_runs = json::parse(R"({"runs": [
    {"name": "bert", "stop_wall_ns": 3000000000, "summary": {"energy_j": 30.5}},
    {"name": "resnet", "stop_wall_ns": 2000000000, "summary": {"energy_j": 20}},
    {"name": "bert", "stop_wall_ns": 1000000000, "summary": {"energy_j": 10}},
    {"name": "lost", "stop_wall_ns": 500000000, "summary": {"energy_j": null}}]})");
  CounterGuard guard;
  std::string t = render_metrics(a, guard, "x");
  EXPECT_TRUE(has_line(t, "energyd_last_run_energy_joules{run=\"bert\"} 30.5")) << t;
  EXPECT_TRUE(has_line(t, "energyd_last_run_energy_joules{run=\"resnet\"} 20")) << t;
  EXPECT_EQ(t.find("energyd_last_run_energy_joules{run=\"bert\"} 10"), std::string::npos) << t;
  EXPECT_EQ(t.find("energyd_last_run_energy_joules{run=\"lost\"}"), std::string::npos) << t;
  EXPECT_TRUE(has_line(t, "energyd_last_run_stop_timestamp_seconds{run=\"bert\"} 3")) << t;
}

// Whatever shape energyd's answers take, the page is served and nothing throws.
TEST(Metrics, MalformedAnswersLeaveTheirMetricsOut) {
  EnergydAnswers a;
  a.up = true;
  a.status = json::parse(R"({"rails": "x", "total": 5, "sampler": [1], "storage": {"healthy": "yes"},
                             "board": null, "open_runs": [7, "a"]})");
  a.counters = json::parse(R"({"counters_id": "0123456789abcdef", "rails": [3, {"label": 4}], "total": []})");
  a.clocks = json::parse(R"({"domains": [null, {"name": 5}], "thermal": {}})");
  a.leases = json::parse(R"({"leases": [1, {"domains": "gpu"}]})");
  a.stopped_runs = json::parse(R"({"runs": [2, {"summary": 3}]})");
  CounterGuard guard;
  std::string t;
  EXPECT_NO_THROW(t = render_metrics(a, guard, "x"));
  EXPECT_TRUE(has_line(t, "energyd_up 1")) << t;
  EXPECT_EQ(t.find("energyd_storage_healthy"), std::string::npos) << t;
}

TEST(CounterGuard, ALowerValueUnderTheSameIdIsHeldUntilPassed) {
  CounterGuard g;
  EXPECT_EQ(g.serve("rail:VDD_IN", "a", 100), 100);
  EXPECT_EQ(g.serve("rail:VDD_IN", "a", 99.5), 100);  // energyd restarted from its last save
  EXPECT_EQ(g.serve("rail:VDD_IN", "a", 101), 101);
}

TEST(CounterGuard, ANewCountersIdIsARealReset) {
  CounterGuard g;
  EXPECT_EQ(g.serve("total", "a", 100), 100);
  EXPECT_EQ(g.serve("total", "b", 2), 2);
}

TEST(Exposition, EscapesLabelValuesAndSpecialValues) {
  EXPECT_EQ(escape_label_value("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
  EXPECT_EQ(format_value(0.1), "0.10000000000000001");
  EXPECT_EQ(format_value(1.0 / 0.0), "+Inf");
}

// promtool (Debian package prometheus) is the format's reference checker.
TEST(Exposition, PromtoolFindsNothingToCorrect) {
  if (std::system("command -v promtool >/dev/null 2>&1") != 0) GTEST_SKIP() << "promtool is not installed";
  CounterGuard guard;
  std::string path = testing::TempDir() + "/metrics.prom";
  std::ofstream(path) << render_metrics(board(), guard, "x");
  std::string cmd = "promtool check metrics < " + path + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[256];
  while (std::fgets(buf, sizeof buf, p) != nullptr) out += buf;
  EXPECT_EQ(::pclose(p), 0) << out;
  EXPECT_EQ(out, "") << out;
}

// The shipped Grafana dashboard queries only families this page exports
// (tests/fleet/check_dashboard.py also checks the panels' structure).
TEST(Dashboard, EveryQueryNamesAnExportedMetric) {
  if (std::system("command -v python3 >/dev/null 2>&1") != 0) GTEST_SKIP() << "python3 is not installed";
  CounterGuard guard;
  std::string page = testing::TempDir() + "/dashboard-metrics.prom";
  std::ofstream(page) << render_metrics(board(), guard, "x");
  std::string src = ENERGY_SOURCE_DIR;
  std::string cmd =
      "python3 " + src + "/tests/fleet/check_dashboard.py " + src + "/etc/grafana/energyd-fleet.json " + page + " 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[256];
  while (std::fgets(buf, sizeof buf, p) != nullptr) out += buf;
  EXPECT_EQ(::pclose(p), 0) << out;
}

TEST(Options, DefaultsAndErrorsNameTheOption) {
  auto o = parse_options({});
  ASSERT_TRUE(o);
  EXPECT_EQ(o->listen.host, "127.0.0.1");
  EXPECT_EQ(o->listen.port, 9862);
  auto l = parse_options({"--listen", "[::1]:9100", "--timeout-ms", "500"});
  ASSERT_TRUE(l);
  EXPECT_EQ(l->listen.host, "::1");
  EXPECT_EQ(l->timeout.count(), 500);
  auto bad_port = parse_options({"--listen", "127.0.0.1:99999"});
  ASSERT_FALSE(bad_port);
  EXPECT_NE(bad_port.error().message.find("must be 0-65535, got \"99999\""), std::string::npos);
  auto bad_host = parse_options({"--listen", "example.org:80"});
  ASSERT_FALSE(bad_host);
  EXPECT_NE(bad_host.error().message.find("\"example.org\" is not an IPv4 or IPv6 address"), std::string::npos);
  auto bad_timeout = parse_options({"--timeout-ms", "0"});
  ASSERT_FALSE(bad_timeout);
  EXPECT_NE(bad_timeout.error().message.find("--timeout-ms must be an integer 1-60000, got \"0\""), std::string::npos);
  EXPECT_FALSE(parse_options({"--bogus"}));
  EXPECT_FALSE(parse_options({"--socket"}));
}

std::string http_get(int port, const std::string& path) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return "";
  }
  std::string req = "GET " + path + " HTTP/1.0\r\nHost: x\r\n\r\n";
  (void)!::write(fd, req.data(), req.size());
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return out;
}

TEST(HttpServer, ServesMetricsAndRefusesOtherPaths) {
  int calls = 0;
  auto s = HttpServer::start(ListenAddress{"127.0.0.1", 0}, [&calls] {
    ++calls;
    return std::string("energyd_up 1\n");
  });
  ASSERT_TRUE(s) << s.error().describe();
  std::string ok = http_get((*s)->port(), "/metrics");
  EXPECT_EQ(ok.rfind("HTTP/1.0 200", 0) == 0 || ok.rfind("HTTP/1.1 200", 0) == 0, true) << ok;
  EXPECT_NE(ok.find("text/plain; version=0.0.4"), std::string::npos) << ok;
  EXPECT_NE(ok.find("\r\n\r\nenergyd_up 1\n"), std::string::npos) << ok;
  EXPECT_NE(http_get((*s)->port(), "/other").find(" 404 "), std::string::npos);
  EXPECT_EQ(calls, 1);
}

// A fault while the page is built is a 500 naming it, and the server serves on.
TEST(HttpServer, AScrapeThatThrowsIsA500AndTheServerServesOn) {
  bool fail = true;
  auto s = HttpServer::start(ListenAddress{"127.0.0.1", 0}, [&fail]() -> std::string {
    if (fail) throw std::runtime_error("type_error in status");
    return "energyd_up 1\n";
  });
  ASSERT_TRUE(s) << s.error().describe();
  std::string bad = http_get((*s)->port(), "/metrics");
  EXPECT_NE(bad.find(" 500 "), std::string::npos) << bad;
  EXPECT_NE(bad.find("scrape failed: type_error in status"), std::string::npos) << bad;
  fail = false;
  EXPECT_NE(http_get((*s)->port(), "/metrics").find(" 200 "), std::string::npos);
}

}  // namespace
}  // namespace energy::exporter
