#include "energy/config.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "energy/store.h"

namespace energy {
namespace {

TEST(Config, EmptyDocumentKeepsDefaults) {
  auto c = apply_config_yaml("", "test.yaml", DaemonConfig{});
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->sample_period_ms, 100);
  EXPECT_EQ(c->socket_path, "/run/energyd/energyd.sock");
}

TEST(Config, KeysOverrideDefaults) {
  auto c = apply_config_yaml("sample_period_ms: 50\nstate_dir: /tmp/x\nsocket: /tmp/s\n", "t.yaml", DaemonConfig{});
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->sample_period_ms, 50);
  EXPECT_EQ(c->state_dir, "/tmp/x");
  EXPECT_EQ(c->socket_path, "/tmp/s");
}

// Unset, energyd derives the period from the monitors at start (daemon period_check.h).
TEST(Config, ThePeriodIsMarkedGivenOnlyWhenTheFileSetsIt) {
  auto unset = apply_config_yaml("log_level: debug\n", "t.yaml", DaemonConfig{});
  ASSERT_TRUE(unset.ok());
  EXPECT_FALSE(unset->sample_period_given);
  auto set = apply_config_yaml("sample_period_ms: 100\n", "t.yaml", DaemonConfig{});
  ASSERT_TRUE(set.ok());
  EXPECT_TRUE(set->sample_period_given);
  EXPECT_EQ(set->sample_period_ms, 100);
}

TEST(Config, UnknownKeyIsNamed) {
  auto c = apply_config_yaml("sample_perod_ms: 50\n", "t.yaml", DaemonConfig{});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("'sample_perod_ms'"), std::string::npos);
  EXPECT_NE(c.error().message.find("t.yaml"), std::string::npos);
}

TEST(Config, WrongTypeNamesKeyAndValue) {
  auto c = apply_config_yaml("sample_period_ms: fast\n", "t.yaml", DaemonConfig{});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("sample_period_ms"), std::string::npos);
  EXPECT_NE(c.error().message.find("fast"), std::string::npos);
}

TEST(Config, SensorAveragingIsPeriodByDefaultAndAcceptsKeep) {
  auto d = apply_config_yaml("", "t.yaml", DaemonConfig{});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->sensor_averaging, SensorAveraging::kPeriod);
  auto keep = apply_config_yaml("sensor_averaging: keep\n", "t.yaml", DaemonConfig{});
  ASSERT_TRUE(keep.ok()) << keep.error().message;
  EXPECT_EQ(keep->sensor_averaging, SensorAveraging::kKeep);
  auto period = apply_config_yaml("sensor_averaging: period\n", "t.yaml", *keep);
  ASSERT_TRUE(period.ok()) << period.error().message;
  EXPECT_EQ(period->sensor_averaging, SensorAveraging::kPeriod);
}

TEST(Config, BadSensorAveragingNamesTheKeyTheValueAndTheChoices) {
  for (const char* bad : {"sensor_averaging: sometimes\n", "sensor_averaging: 16\n", "sensor_averaging: Keep\n"}) {
    auto c = apply_config_yaml(bad, "t.yaml", DaemonConfig{});
    ASSERT_FALSE(c.ok()) << bad;
    EXPECT_EQ(c.error().code, ErrorCode::kInvalid);
    const std::string& m = c.error().message;
    EXPECT_NE(m.find("t.yaml: key 'sensor_averaging'"), std::string::npos) << m;
    EXPECT_NE(m.find("expected period or keep"), std::string::npos) << m;
    std::string value = std::string(bad).substr(18);
    value.pop_back();
    EXPECT_NE(m.find("got '" + value + "'"), std::string::npos) << m;
  }
  auto list = apply_config_yaml("sensor_averaging: [period]\n", "t.yaml", DaemonConfig{});
  ASSERT_FALSE(list.ok());
  EXPECT_NE(list.error().message.find("got 'a non-scalar'"), std::string::npos) << list.error().message;
}

TEST(Config, SyntaxErrorIsAParseError) {
  auto c = apply_config_yaml("a: [1, 2\n", "t.yaml", DaemonConfig{});
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, ErrorCode::kParse);
}

TEST(Config, ValidationRejectsOutOfRangeValues) {
  DaemonConfig c;
  c.sample_period_ms = 0;
  EXPECT_FALSE(validate_config(c).ok());
  c.sample_period_ms = 100;
  c.flush_interval_ms = 10;
  EXPECT_FALSE(validate_config(c).ok());
  c.flush_interval_ms = 1000;
  c.log_level = "loud";
  auto st = validate_config(c);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("loud"), std::string::npos);
}

TEST(Config, SealChunksIsReadAndBounded) {
  EXPECT_EQ(DaemonConfig{}.seal_chunks, 15);
  auto c = apply_config_yaml("seal_chunks: 12\n", "t.yaml", DaemonConfig{});
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->seal_chunks, 12);
  EXPECT_TRUE(validate_config(*c).ok());
  for (int64_t bad : {0, -1, 61}) {
    DaemonConfig d;
    d.seal_chunks = bad;
    auto st = validate_config(d);
    ASSERT_FALSE(st.ok()) << bad;
    EXPECT_NE(st.error().message.find("seal_chunks must be between 1 and 60, got " + std::to_string(bad)),
              std::string::npos)
        << st.error().message;
  }
  auto text = apply_config_yaml("seal_chunks: five\n", "t.yaml", DaemonConfig{});
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.error().message.find("key 'seal_chunks'"), std::string::npos) << text.error().message;
}

TEST(Config, RetentionKeysHaveDefaultsAndBecomeAPolicy) {
  auto c = apply_config_yaml(
      "raw_retention_hours: 48\nsecond_retention_days: 30\nminute_retention_days: 365\n"
      "disk_budget_mb: 256\n",
      "t.yaml", DaemonConfig{});
  ASSERT_TRUE(c.ok()) << c.error().message;
  ASSERT_TRUE(validate_config(*c).ok());
  RetentionPolicy p = retention_policy(*c);
  EXPECT_EQ(p.raw_retention_ns, 48 * 3'600'000'000'000);
  EXPECT_EQ(p.second_retention_ns, 30 * 86'400'000'000'000);
  EXPECT_EQ(p.minute_retention_ns, 365 * 86'400'000'000'000);
  EXPECT_EQ(p.disk_budget_bytes, 256LL * 1024 * 1024);
  DaemonConfig d;
  EXPECT_TRUE(validate_config(d).ok());
  EXPECT_EQ(retention_policy(d).minute_retention_ns, 0);  // kept while the budget allows
  EXPECT_EQ(retention_policy(d).disk_budget_bytes, 1024LL * 1024 * 1024);
}

TEST(Config, RetentionValuesOutOfRangeNameTheirKey) {
  struct Case {
    const char* yaml;
    const char* key;
  };
  for (const Case& k :
       {Case{"raw_retention_hours: 0", "raw_retention_hours"},
        Case{"raw_retention_hours: 100\nsecond_retention_days: 2", "second_retention_days"},
        // Values whose hours overflow int64 (a fuzzer's find; UBSan flags the overflow).
        Case{"second_retention_days: 905555555555555555", "second_retention_days"},
        Case{"second_retention_days: -905555555555555555", "second_retention_days"},
        Case{"minute_retention_days: 7", "minute_retention_days"}, Case{"disk_budget_mb: 4", "disk_budget_mb"}}) {
    auto c = apply_config_yaml(k.yaml, "t.yaml", DaemonConfig{});
    ASSERT_TRUE(c.ok()) << k.yaml;
    auto st = validate_config(*c);
    ASSERT_FALSE(st.ok()) << k.yaml;
    EXPECT_NE(st.error().message.find(k.key), std::string::npos) << st.error().message;
  }
  auto bad = apply_config_yaml("disk_budget_mb: lots", "t.yaml", DaemonConfig{});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("'disk_budget_mb'"), std::string::npos);
  EXPECT_NE(bad.error().message.find("MiB"), std::string::npos);
}

TEST(Config, AccessKeysTakeNamesOrNumbersAndLimitsAreChecked) {
  auto c = apply_config_yaml(
      "read_group: \"4242\"\nclock_group: wheel\nmax_connections_per_user: 3\n"
      "client_deadline_ms: 500\nclient_output_limit_bytes: 70000\n",
      "t.yaml", DaemonConfig{});
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->read_group, "4242");
  EXPECT_EQ(c->clock_group, "wheel");
  EXPECT_EQ(c->max_connections_per_user, 3);
  EXPECT_TRUE(validate_config(*c).ok());
  DaemonConfig bad = *c;
  bad.max_connections_per_user = 0;
  auto st = validate_config(bad);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("max_connections_per_user"), std::string::npos);
  bad = *c;
  bad.client_deadline_ms = 5;
  EXPECT_FALSE(validate_config(bad).ok());
  EXPECT_EQ(DaemonConfig{}.max_open_runs_per_user, 64);
  auto runs = apply_config_yaml("max_open_runs_per_user: 5\n", "t.yaml", DaemonConfig{});
  ASSERT_TRUE(runs.ok());
  EXPECT_EQ(runs->max_open_runs_per_user, 5);
  bad = *c;
  bad.max_open_runs_per_user = 0;
  st = validate_config(bad);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("max_open_runs_per_user must be between 1 and 4096, got 0"), std::string::npos);
  auto typed = apply_config_yaml("max_connections_per_user: many\n", "t.yaml", DaemonConfig{});
  ASSERT_FALSE(typed.ok());
  EXPECT_NE(typed.error().message.find("many"), std::string::npos);
}

TEST(Config, ContextPollPeriodsAreZeroForOffOrInTheirRange) {
  DaemonConfig defaults;
  EXPECT_EQ(defaults.clock_poll_ms, 100);
  EXPECT_EQ(defaults.thermal_poll_ms, 1000);
  auto off = apply_config_yaml("clock_poll_ms: 0\nthermal_poll_ms: 0", "t.yaml", DaemonConfig{});
  ASSERT_TRUE(off.ok());
  EXPECT_EQ(off->clock_poll_ms, 0);
  EXPECT_TRUE(validate_config(*off).ok());
  struct Case {
    const char* yaml;
    const char* key;
  };
  for (const Case& k :
       {Case{"clock_poll_ms: 5", "clock_poll_ms"}, Case{"clock_poll_ms: -100", "clock_poll_ms"},
        Case{"clock_poll_ms: 60001", "clock_poll_ms"}, Case{"thermal_poll_ms: 50", "thermal_poll_ms"}}) {
    auto c = apply_config_yaml(k.yaml, "t.yaml", DaemonConfig{});
    ASSERT_TRUE(c.ok()) << k.yaml;
    auto st = validate_config(*c);
    ASSERT_FALSE(st.ok()) << k.yaml;
    EXPECT_NE(st.error().message.find(k.key), std::string::npos) << st.error().message;
    EXPECT_NE(st.error().message.find("0 (off)"), std::string::npos) << st.error().message;
  }
  auto typed = apply_config_yaml("thermal_poll_ms: 1s", "t.yaml", DaemonConfig{});
  ASSERT_FALSE(typed.ok());
  EXPECT_NE(typed.error().message.find("'thermal_poll_ms'"), std::string::npos);
  EXPECT_NE(typed.error().message.find("milliseconds"), std::string::npos);
}

// Issue 19 item 11: YAML 1.1 reads 0100 as octal 64 and 0x40 as 64; a quoted
// number, a float or a boolean is not an integer either.
TEST(Config, IntegersMustBePlainDecimal) {
  for (const char* bad :
       {"0100", "0x40", "0o100", "+100", "100.0", "1e2", "true", "\"100\"", "--1", "", "99999999999999999999"}) {
    auto c = apply_config_yaml(std::string("sample_period_ms: ") + bad + "\n", "t.yaml", DaemonConfig{});
    ASSERT_FALSE(c.ok()) << bad;
    const std::string& m = c.error().message;
    EXPECT_NE(m.find("t.yaml: key 'sample_period_ms'"), std::string::npos) << m;
    EXPECT_NE(m.find("expected a decimal integer"), std::string::npos) << m;
  }
  auto ok = apply_config_yaml("sample_period_ms: 100\nclock_poll_ms: 0\n", "t.yaml", DaemonConfig{});
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->sample_period_ms, 100);
  auto octal = apply_config_yaml("sample_period_ms: 0100\n", "t.yaml", DaemonConfig{});
  ASSERT_FALSE(octal.ok());
  EXPECT_NE(octal.error().message.find("got '0100'"), std::string::npos) << octal.error().message;
}

TEST(Config, ParseDecimalIntTakesOnlyDecimal) {
  EXPECT_EQ(*parse_decimal_int("0"), 0);
  EXPECT_EQ(*parse_decimal_int("-25"), -25);
  EXPECT_EQ(*parse_decimal_int("9223372036854775807"), INT64_MAX);
  for (const char* bad : {"", "-", "007", "-0x1", " 1", "1 ", "9223372036854775808", "1_000"}) {
    EXPECT_FALSE(parse_decimal_int(bad).ok()) << bad;
  }
}

TEST(Config, DuplicateKeyIsRefusedNamingBothLines) {
  auto c = apply_config_yaml("sample_period_ms: 100\nstate_dir: /a\nsample_period_ms: 50\n", "t.yaml", DaemonConfig{});
  ASSERT_FALSE(c.ok());
  const std::string& m = c.error().message;
  EXPECT_NE(m.find("key 'sample_period_ms'"), std::string::npos) << m;
  EXPECT_NE(m.find("lines 1 and 3"), std::string::npos) << m;
}

TEST(Config, SecondYamlDocumentIsRefused) {
  auto c = apply_config_yaml("sample_period_ms: 100\n---\nsample_period_ms: 50\n", "t.yaml", DaemonConfig{});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("more than one YAML document"), std::string::npos) << c.error().message;
  EXPECT_NE(c.error().message.find("line 2"), std::string::npos) << c.error().message;
  EXPECT_NE(c.error().message.find("expected one"), std::string::npos) << c.error().message;
}

// fuzz_config: yaml-cpp 0.7's LoadAll never returned on this text.
TEST(Config, AMalformedTextOnWhichYamlLoadAllHangsIsAnswered) {
  auto c = apply_config_yaml(",inuteer_tetin_dnoays:01\n", "t.yaml", DaemonConfig{});
  EXPECT_FALSE(c.ok());
}

TEST(Config, PathsMustBeAbsoluteAndNonEmpty) {
  struct Case {
    const char* yaml;
    const char* key;
  };
  for (const Case& k : {Case{"socket: ''", "socket"}, Case{"state_dir: ''", "state_dir"}, Case{"root: ''", "root"},
                        Case{"socket: run/s.sock", "socket"}, Case{"state_dir: var/lib", "state_dir"},
                        Case{"socket: \"\\0abstract\"", "socket"}}) {
    auto c = apply_config_yaml(k.yaml, "t.yaml", DaemonConfig{});
    ASSERT_TRUE(c.ok()) << k.yaml;
    auto st = validate_config(*c);
    ASSERT_FALSE(st.ok()) << k.yaml;
    EXPECT_NE(st.error().message.find(std::string(k.key) + " must be an absolute path"), std::string::npos)
        << st.error().message;
  }
  DaemonConfig long_socket;
  long_socket.socket_path = "/" + std::string(107, 's');
  EXPECT_FALSE(validate_config(long_socket).ok());
  long_socket.socket_path = "/" + std::string(106, 's');
  EXPECT_TRUE(validate_config(long_socket).ok());
}

class ConfigFile : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/energy-config-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(ConfigFile, RegularFileIsRead) {
  std::ofstream(dir_ + "/e.yaml") << "sample_period_ms: 50\n";
  auto c = load_config_file(dir_ + "/e.yaml", DaemonConfig{});
  ASSERT_TRUE(c.ok()) << c.error().describe();
  EXPECT_EQ(c->sample_period_ms, 50);
}

TEST_F(ConfigFile, DirectoryDeviceAndFifoAreRefused) {
  ASSERT_EQ(::mkfifo((dir_ + "/fifo").c_str(), 0600), 0);
  for (const std::string& path : {dir_, std::string("/dev/zero"), dir_ + "/fifo"}) {
    auto c = load_config_file(path, DaemonConfig{});  // a FIFO must not block
    ASSERT_FALSE(c.ok()) << path;
    EXPECT_EQ(c.error().code, ErrorCode::kInvalid) << c.error().describe();
    EXPECT_NE(c.error().message.find("'" + path + "'"), std::string::npos) << c.error().message;
    EXPECT_NE(c.error().message.find("expected a regular file"), std::string::npos) << c.error().message;
  }
}

TEST_F(ConfigFile, OversizedFileIsRefused) {
  std::ofstream(dir_ + "/big.yaml") << "# " << std::string(size_t{1} << 20, 'x') << "\n";
  auto c = load_config_file(dir_ + "/big.yaml", DaemonConfig{});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("larger than 1048576 bytes"), std::string::npos) << c.error().message;
}

TEST_F(ConfigFile, MissingOrEmptyPathIsAnError) {
  EXPECT_FALSE(load_config_file(dir_ + "/none.yaml", DaemonConfig{}).ok());
  EXPECT_FALSE(load_config_file("", DaemonConfig{}).ok());
}

}  // namespace
}  // namespace energy
