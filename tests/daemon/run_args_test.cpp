// Arguments of the run verbs: every bad argument is `invalid` and named.
#include "run_args.h"

#include <gtest/gtest.h>

namespace energy::daemon {
namespace {

using nlohmann::json;

void expect_invalid(const Result<RunFilter>& r, const std::string& words) {
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kInvalid);
  EXPECT_NE(r.error().message.find(words), std::string::npos) << r.error().message;
}

TEST(RunsListArgs, DefaultsToTheNewestHundredOfEveryRun) {
  auto f = parse_runs_list_args(json::object());
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->limit, 100);
  EXPECT_FALSE(f->name || f->state || f->since_wall_ns || f->until_wall_ns || f->before_id);
  EXPECT_TRUE(f->tags.empty());
}

TEST(RunsListArgs, EveryFilterIsRead) {
  auto f = parse_runs_list_args({{"name", "x"},
                                 {"tags", {{"batch", "8"}}},
                                 {"since_wall_ns", 5},
                                 {"until_wall_ns", 9},
                                 {"state", "interrupted"},
                                 {"limit", 10000},
                                 {"before_id", "42"}});
  ASSERT_TRUE(f.ok()) << f.error().message;
  EXPECT_EQ(*f->name, "x");
  EXPECT_EQ(f->tags.at("batch"), "8");
  EXPECT_EQ(*f->since_wall_ns, 5);
  EXPECT_EQ(*f->until_wall_ns, 9);
  EXPECT_EQ(*f->state, RunState::kInterrupted);
  EXPECT_EQ(f->limit, 10000);
  EXPECT_EQ(*f->before_id, 42);
}

TEST(RunsListArgs, BadArgumentsNameThemselves) {
  expect_invalid(parse_runs_list_args({{"limit", 0}}), "\"limit\" must be 1..10000");
  expect_invalid(parse_runs_list_args({{"limit", 10001}}), "\"limit\"");
  expect_invalid(parse_runs_list_args({{"limit", "ten"}}), "\"limit\" must be an integer");
  expect_invalid(parse_runs_list_args({{"state", "paused"}}), "\"state\" must be");
  expect_invalid(parse_runs_list_args({{"tags", {{"batch", 8}}}}), "value of \"batch\" must be a string");
  expect_invalid(parse_runs_list_args({{"tags", "batch=8"}}), "\"tags\" must be an object");
  expect_invalid(parse_runs_list_args({{"before_id", -3}}), "\"before_id\" must be a run id");
  expect_invalid(parse_runs_list_args({{"since_wall_ns", 9}, {"until_wall_ns", 5}}), "before \"since_wall_ns\"");
  expect_invalid(parse_runs_list_args({{"nmae", "x"}}), "unknown argument \"nmae\"");
  expect_invalid(parse_runs_list_args({{"name", 3}}), "\"name\" must be a string");
}

TEST(RunRefArgs, DigitsAreAnIdThatMayAlsoBeAName) {
  auto by_int = parse_run_ref({{"run", 7}}, "run");
  ASSERT_TRUE(by_int.ok());
  EXPECT_EQ(*by_int->id, 7);
  EXPECT_TRUE(by_int->name.empty());
  auto digits = parse_run_ref({{"run", "7"}}, "run");
  ASSERT_TRUE(digits.ok());
  EXPECT_EQ(*digits->id, 7);
  EXPECT_EQ(digits->name, "7");
  auto name = parse_run_ref({{"run", "resnet"}}, "run");
  ASSERT_TRUE(name.ok());
  EXPECT_FALSE(name->id.has_value());
  for (const json& bad : {json{{"run", ""}}, json{{"run", 0}}, json{{"run", true}}, json::object()}) {
    auto r = parse_run_ref(bad, "run");
    ASSERT_FALSE(r.ok()) << bad.dump();
    EXPECT_NE(r.error().message.find("\"run\""), std::string::npos) << r.error().message;
  }
}

TEST(RunExportArgs, ARunIdWithOptionalPageStartAndRail) {
  auto a = parse_run_export_args({{"run", "12"}, {"since_ns", 100}, {"rail", "VDD_IN"}});
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->run_id, 12);
  EXPECT_EQ(*a->since_ns, 100);
  EXPECT_EQ(a->rail, "VDD_IN");
  auto mixed = parse_run_export_args({{"run", 12}, {"since_wall_ns", 5}});
  ASSERT_FALSE(mixed.ok());
  EXPECT_NE(mixed.error().message.find("unknown argument \"since_wall_ns\""), std::string::npos);
  auto bad = parse_run_export_args({{"run", "twelve"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("\"run\" must be a run id"), std::string::npos);
}

TEST(MarkArgs, StopTagsMustBeStringsAndBaselineAnId) {
  EXPECT_TRUE(parse_string_object(json::object(), "tags").ok());
  auto ok = parse_string_object({{"tags", {{"exit_status", "0"}}}}, "tags");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ((*ok)["exit_status"], "0");
  auto bad = parse_string_object({{"tags", {{"exit_status", 0}}}}, "tags");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("value of \"exit_status\" must be a string"), std::string::npos);
  auto empty_key = parse_string_object({{"tags", {{"", "x"}}}}, "tags");
  EXPECT_FALSE(empty_key.ok());
  EXPECT_FALSE(parse_baseline_arg(json::object())->has_value());
  EXPECT_EQ(**parse_baseline_arg({{"baseline", 4}}), 4);
  auto not_id = parse_baseline_arg({{"baseline", "latest"}});
  ASSERT_FALSE(not_id.ok());
  EXPECT_NE(not_id.error().message.find("\"baseline\" must be a run id"), std::string::npos);
}

}  // namespace
}  // namespace energy::daemon
