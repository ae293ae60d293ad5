#include "energy/config.h"

#include <gtest/gtest.h>

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

TEST(Config, AccessKeysTakeNamesOrNumbersAndLimitsAreChecked) {
  auto c = apply_config_yaml("read_group: \"4242\"\nclock_group: wheel\nmax_connections_per_user: 3\n"
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
  auto typed = apply_config_yaml("max_connections_per_user: many\n", "t.yaml", DaemonConfig{});
  ASSERT_FALSE(typed.ok());
  EXPECT_NE(typed.error().message.find("many"), std::string::npos);
}

}  // namespace
}  // namespace energy
