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

}  // namespace
}  // namespace energy
