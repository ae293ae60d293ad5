// The typed argument reader of every verb (verb_args.h): each bad argument
// is `invalid` and named, and no value of any declared argument throws.
#include "verb_args.h"

#include <gtest/gtest.h>

#include <limits>

namespace energy::daemon {
namespace {

using nlohmann::json;

Result<VerbCall> read(const std::string& verb, const json& args) {
  return read_verb_args(protocol::Request{1, verb, args});
}

template <typename T>
T read_ok(const std::string& verb, const json& args) {
  auto r = read(verb, args);
  EXPECT_TRUE(r.ok()) << verb << " " << args.dump() << ": " << (r.ok() ? "" : r.error().message);
  if (!r.ok()) return T{};
  const T* v = std::get_if<T>(&r->args);
  EXPECT_NE(v, nullptr) << verb;
  return v != nullptr ? *v : T{};
}

// Fails unless `verb` refuses `args` as kInvalid with every one of `words` in the message.
void expect_invalid(const std::string& verb, const json& args, const std::vector<std::string>& words) {
  auto r = read(verb, args);
  ASSERT_FALSE(r.ok()) << verb << " " << args.dump();
  EXPECT_EQ(r.error().code, ErrorCode::kInvalid) << r.error().message;
  for (const auto& w : words) EXPECT_NE(r.error().message.find(w), std::string::npos) << r.error().message;
}

// ---- runs.list, runs.show, export --------------------------------------------

TEST(RunsListArgs, DefaultsToTheNewestHundredOfEveryRun) {
  auto f = read_ok<RunFilter>("runs.list", json::object());
  EXPECT_EQ(f.limit, 100);
  EXPECT_FALSE(f.name || f.state || f.since_wall_ns || f.until_wall_ns || f.before_id);
  EXPECT_TRUE(f.tags.empty());
}

TEST(RunsListArgs, EveryFilterIsRead) {
  auto f = read_ok<RunFilter>("runs.list", {{"name", "x"},
                                            {"tags", {{"batch", "8"}, {"energyd.kind", "baseline"}}},
                                            {"since_wall_ns", 5},
                                            {"until_wall_ns", 9},
                                            {"state", "interrupted"},
                                            {"limit", 10000},
                                            {"before_id", "42"}});
  EXPECT_EQ(*f.name, "x");
  EXPECT_EQ(f.tags.at("batch"), "8");
  EXPECT_EQ(f.tags.at("energyd.kind"), "baseline") << "filtering on reserved tags is allowed";
  EXPECT_EQ(*f.since_wall_ns, 5);
  EXPECT_EQ(*f.until_wall_ns, 9);
  EXPECT_EQ(*f.state, RunState::kInterrupted);
  EXPECT_EQ(f.limit, 10000);
  EXPECT_EQ(*f.before_id, 42);
}

TEST(RunsListArgs, BadArgumentsNameThemselves) {
  expect_invalid("runs.list", {{"limit", 0}}, {"runs.list", "\"limit\" must be an integer 1..10000", "got integer 0"});
  expect_invalid("runs.list", {{"limit", 10001}}, {"\"limit\""});
  expect_invalid("runs.list", {{"limit", "ten"}}, {"\"limit\" must be an integer", "got string \"ten\""});
  expect_invalid("runs.list", {{"limit", 2.5}}, {"\"limit\"", "got number 2.5"});
  expect_invalid("runs.list", {{"state", "paused"}}, {"\"state\" must be one of \"open\""});
  expect_invalid("runs.list", {{"tags", {{"batch", 8}}}}, {"value of \"batch\" must be a string", "got integer 8"});
  expect_invalid("runs.list", {{"tags", "batch=8"}}, {"\"tags\" must be an object"});
  expect_invalid("runs.list", {{"before_id", -3}}, {"\"before_id\" must be a run id"});
  expect_invalid("runs.list", {{"since_wall_ns", 9}, {"until_wall_ns", 5}}, {"before \"since_wall_ns\""});
  expect_invalid("runs.list", {{"nmae", "x"}}, {"unknown argument \"nmae\"", "expected name, tags"});
  expect_invalid("runs.list", {{"name", 3}}, {"\"name\" must be a string"});
}

TEST(RunRefArgs, DigitsAreAnIdThatMayAlsoBeAName) {
  auto by_int = read_ok<RunRef>("runs.show", {{"run", 7}});
  EXPECT_EQ(*by_int.id, 7);
  EXPECT_TRUE(by_int.name.empty());
  auto digits = read_ok<RunRef>("runs.show", {{"run", "7"}});
  EXPECT_EQ(*digits.id, 7);
  EXPECT_EQ(digits.name, "7");
  auto name = read_ok<RunRef>("runs.show", {{"run", "resnet"}});
  EXPECT_FALSE(name.id.has_value());
  for (const json& bad : {json{{"run", ""}}, json{{"run", 0}}, json{{"run", true}}, json::object()}) {
    expect_invalid("runs.show", bad, {"\"run\""});
  }
  expect_invalid("runs.show", json::object(), {"\"run\" is missing"});
  expect_invalid("runs.show", {{"run", 1}, {"verbose", true}}, {"unknown argument \"verbose\"", "expected run"});
}

TEST(RunExportArgs, ARunIdWithOptionalPageStartAndRail) {
  auto a = read_ok<RunExportArgs>("export", {{"run", "12"}, {"since_ns", 100}, {"rail", "VDD_IN"}});
  EXPECT_EQ(a.run_id, 12);
  EXPECT_EQ(*a.since_ns, 100);
  EXPECT_EQ(a.rail, "VDD_IN");
  expect_invalid("export", {{"run", 12}, {"since_wall_ns", 5}}, {"unknown argument \"since_wall_ns\""});
  expect_invalid("export", {{"run", "twelve"}}, {"\"run\" must be a run id"});
}

TEST(ExportArgs, WallClockWindowDefaultsToAllOfTime) {
  auto a = read_ok<ExportArgs>("export", json::object());
  EXPECT_EQ(a.since_wall_ns, 0);
  EXPECT_EQ(a.until_wall_ns, INT64_MAX);
  EXPECT_TRUE(a.rail.empty());
  auto b = read_ok<ExportArgs>("export", {{"since_wall_ns", 5}, {"until_wall_ns", 9}, {"rail", "VDD_IN"}});
  EXPECT_EQ(b.since_wall_ns, 5);
  EXPECT_EQ(b.until_wall_ns, 9);
  EXPECT_EQ(b.rail, "VDD_IN");
  expect_invalid("export", {{"since_wall_ns", 9}, {"until_wall_ns", 5}}, {"before"});
}

// Issue 19, item 2: these crashed energyd (nlohmann value()/get threw).
TEST(VerbArgs, Issue19WrongTypesAreInvalidAndNamed) {
  expect_invalid("export", {{"rail", 1}}, {"export: argument \"rail\" must be a string", "got integer 1"});
  expect_invalid("clocks.unpin", {{"all", 1}},
                 {"clocks.unpin: argument \"all\" must be true or false", "got integer 1"});
  expect_invalid("export", {{"since_wall_ns", json(std::numeric_limits<uint64_t>::max())}},
                 {"\"since_wall_ns\"", "18446744073709551615"});
  expect_invalid("export", {{"since_wall_ns", 1.0}}, {"\"since_wall_ns\"", "got number 1.0"});
  expect_invalid("clocks.pin", {{"domains", {{"gpu", "max"}}}, {"lease", 1}}, {"\"lease\" must be one of"});
  expect_invalid("clocks.pin", {{"domains", {{"gpu", "max"}}}, {"allow_offline_cpus", "yes"}},
                 {"\"allow_offline_cpus\" must be true or false"});
  expect_invalid("status", {{"verbose", true}}, {"status: unknown argument \"verbose\"", "takes no arguments"});
  expect_invalid("clocks.leases", {{"x", 1}}, {"clocks.leases: unknown argument \"x\""});
  expect_invalid("no.such.verb", json::object(), {"unknown verb \"no.such.verb\""});
}

// ---- clocks.pin, clocks.unpin --------------------------------------------------

TEST(PinArgs, LeaseKindsTakeTheirOwnArguments) {
  auto conn =
      read_ok<PinArgs>("clocks.pin", {{"domains", {{"gpu", "612MHz"}, {"cpu", "max"}}}, {"governor", "userspace"}});
  EXPECT_EQ(conn.order.kind, LeaseKind::kConnection);
  ASSERT_EQ(conn.order.requests.size(), 2u);
  EXPECT_EQ(conn.order.requests[0].governor, "userspace");
  auto dur =
      read_ok<PinArgs>("clocks.pin", {{"domains", {{"gpu", "max"}}}, {"lease", "duration"}, {"duration_ms", 2000}});
  EXPECT_EQ(dur.order.duration_ns, int64_t{2000} * kNsPerMs);
  auto longest = read_ok<PinArgs>(
      "clocks.pin", {{"domains", {{"gpu", "max"}}}, {"lease", "duration"}, {"duration_ms", kMaxDurationMs}});
  EXPECT_EQ(longest.order.duration_ns, kMaxDurationMs * kNsPerMs);
  auto run = read_ok<PinArgs>("clocks.pin", {{"domains", {{"gpu", "max"}}}, {"lease", "run"}, {"run", 5}});
  EXPECT_EQ(run.run_key, "5");
  expect_invalid("clocks.pin", {{"domains", {{"gpu", "max"}}}, {"lease", "duration"}}, {"needs \"duration_ms\""});
  expect_invalid("clocks.pin",
                 {{"domains", {{"gpu", "max"}}}, {"lease", "duration"}, {"duration_ms", kMaxDurationMs + 1}},
                 {"\"duration_ms\""});
  expect_invalid("clocks.pin", {{"domains", {{"gpu", "max"}}}, {"duration_ms", 5}},
                 {"only for \"lease\": \"duration\""});
  expect_invalid("clocks.pin", {{"domains", {{"gpu", "max"}}}, {"lease", "run"}}, {"needs \"run\""});
  expect_invalid("clocks.pin", {{"domains", json::object()}}, {"\"domains\" must be an object naming 1-"});
  expect_invalid("clocks.pin", {{"domains", {{"gpu", 612}}}}, {"\"gpu\"", "must be a string"});
  expect_invalid("clocks.pin", {{"domains", {{"gpu", "fast"}}}}, {"\"gpu\"", "fast"});
}

TEST(MarkStartArgs, APinTakesClocksPinArgumentsWithoutALease) {
  auto a = read_ok<MarkStartArgs>(
      "mark.start", {{"name", "r"}, {"pin", {{"domains", {{"gpu", "612MHz"}}}, {"governor", "userspace"}}}});
  ASSERT_TRUE(a.pin.has_value());
  ASSERT_EQ(a.pin->requests.size(), 1u);
  EXPECT_EQ(a.pin->requests[0].domain, "gpu");
  EXPECT_EQ(a.pin->requests[0].governor, "userspace");
  EXPECT_EQ(a.pin->offline, OfflineCpus::kRefuse);
  EXPECT_FALSE(read_ok<MarkStartArgs>("mark.start", {{"name", "r"}}).pin.has_value());
  expect_invalid("mark.start", {{"name", "r"}, {"pin", "gpu=max"}}, {"\"pin\" must be an object"});
  expect_invalid("mark.start", {{"name", "r"}, {"pin", {{"domains", {{"gpu", "max"}}}, {"lease", "run"}}}},
                 {"argument \"pin\": unknown argument \"lease\""});
  expect_invalid("mark.start", {{"name", "r"}, {"pin", json::object()}}, {"\"pin\"", "\"domains\" is missing"});
  expect_invalid("mark.start", {{"name", "r"}, {"pin", {{"domains", {{"gpu", "fast"}}}}}}, {"\"gpu\"", "fast"});
}

TEST(MarkArgs, ItemsArePositiveFiniteNumbers) {
  EXPECT_EQ(*read_ok<MarkStartArgs>("mark.start", {{"name", "r"}, {"items", 64}}).items, 64.0);
  EXPECT_EQ(*read_ok<MarkStopArgs>("mark.stop", {{"run", 3}, {"items", 0.5}}).items, 0.5);
  EXPECT_FALSE(read_ok<MarkStopArgs>("mark.stop", {{"run", 3}}).items.has_value());
  for (const json& bad : {json(0), json(-2), json("64"), json(1e300), json(true)}) {
    expect_invalid("mark.start", {{"name", "r"}, {"items", bad}}, {"argument \"items\" must be a number above 0"});
    expect_invalid("mark.stop", {{"run", 3}, {"items", bad}}, {"argument \"items\""});
  }
}

// Issue 15: energyctl run gives the command's span, which the run becomes.
TEST(MarkArgs, TheCommandSpanComesWholeAndInOrder) {
  auto span = read_ok<MarkStopArgs>("mark.stop", {{"run", 3}, {"command_start_ns", 100}, {"command_end_ns", 250}});
  ASSERT_TRUE(span.command.has_value());
  EXPECT_EQ(span.command->start_ns, 100);
  EXPECT_EQ(span.command->end_ns, 250);
  EXPECT_FALSE(read_ok<MarkStopArgs>("mark.stop", {{"run", 3}}).command.has_value());
  expect_invalid("mark.stop", {{"run", 3}, {"command_start_ns", 100}}, {"come together"});
  expect_invalid("mark.stop", {{"run", 3}, {"command_end_ns", 100}}, {"come together"});
  expect_invalid("mark.stop", {{"run", 3}, {"command_start_ns", 300}, {"command_end_ns", 250}},
                 {"\"command_start_ns\" (300) is after \"command_end_ns\" (250)"});
  for (const json& bad : {json(0), json(-5), json("100"), json(1.5), json(true)}) {
    expect_invalid("mark.stop", {{"run", 3}, {"command_start_ns", bad}, {"command_end_ns", 250}},
                   {"argument \"command_start_ns\""});
    expect_invalid("mark.stop", {{"run", 3}, {"command_start_ns", 1}, {"command_end_ns", bad}},
                   {"argument \"command_end_ns\""});
  }
}

TEST(UnpinArgs, IdsOrAllButNotBoth) {
  auto one = read_ok<UnpinArgs>("clocks.unpin", {{"lease", 3}});
  EXPECT_EQ(one.leases, std::vector<int64_t>({3}));
  auto many = read_ok<UnpinArgs>("clocks.unpin", {{"leases", {1, 2}}});
  EXPECT_EQ(many.leases, std::vector<int64_t>({1, 2}));
  auto all = read_ok<UnpinArgs>("clocks.unpin", {{"all", true}});
  EXPECT_TRUE(all.all);
  EXPECT_TRUE(all.leases.empty());
  expect_invalid("clocks.unpin", json::object(), {"needs \"lease\", \"leases\" or \"all\": true"});
  expect_invalid("clocks.unpin", {{"all", false}}, {"needs"});
  expect_invalid("clocks.unpin", {{"all", true}, {"lease", 2}}, {"not both"});
  expect_invalid("clocks.unpin", {{"leases", {1, "2"}}}, {"a lease id must be a positive integer", "got string \"2\""});
  expect_invalid("clocks.unpin", {{"leases", json::array({-1})}}, {"a lease id must be a positive integer"});
}

// ---- issue 19, item 12: reserved tags -------------------------------------------

TEST(ReservedTags, ClientsCannotSetThemButAskForABaselineByArgument) {
  expect_invalid("mark.start", {{"name", "w"}, {"tags", {{"energyd.kind", "baseline"}}}},
                 {"\"energyd.kind\" is reserved", "\"baseline_run\": true"});
  expect_invalid("mark.start", {{"name", "w"}, {"tags", {{"energyd.baseline", "3"}}}},
                 {"\"energyd.baseline\" is reserved"});
  expect_invalid("mark.start", {{"name", "w"}, {"tags", {{"energyd.uid", "0"}}}}, {"\"energyd.uid\" is reserved"});
  expect_invalid("mark.stop", {{"run", "w"}, {"tags", {{"energyd.kind", "baseline"}}}},
                 {"\"energyd.kind\" is reserved"});
  auto start = read_ok<MarkStartArgs>("mark.start", {{"name", "idle"}, {"baseline_run", true}});
  EXPECT_TRUE(start.baseline_run);
  EXPECT_TRUE(start.tags.empty());
  auto stop = read_ok<MarkStopArgs>("mark.stop", {{"run", 9}, {"baseline_interrupted", true}});
  EXPECT_EQ(stop.run, "9");
  EXPECT_TRUE(stop.baseline_interrupted);
  auto ordinary = read_ok<MarkStartArgs>("mark.start", {{"name", "w"}, {"tags", {{"energyd", "x"}, {"kind", "y"}}}});
  EXPECT_EQ(ordinary.tags.size(), 2u) << "only the prefix \"energyd.\" is reserved";
  expect_invalid("mark.start", {{"name", "w"}, {"baseline_run", true}, {"baseline", 3}},
                 {"cannot itself use a baseline"});
}

TEST(MarkStartArgs, EndWithConnectionIsABoolDefaultingToFalse) {
  EXPECT_FALSE(read_ok<MarkStartArgs>("mark.start", {{"name", "w"}}).end_with_connection);
  EXPECT_TRUE(read_ok<MarkStartArgs>("mark.start", {{"name", "w"}, {"end_with_connection", true}}).end_with_connection);
  expect_invalid("mark.start", {{"name", "w"}, {"end_with_connection", "yes"}}, {"end_with_connection"});
}

// ---- issue 19, item 14: characters, not bytes; control characters; tag counts ---

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

TEST(TextArgs, NamesAreCountedInCharactersNotBytes) {
  std::string accented = repeat("\xc3\xa9", 200);  // 200 x U+00E9: 400 bytes
  EXPECT_EQ(read_ok<MarkStartArgs>("mark.start", {{"name", accented}}).name, accented);
  std::string cjk = repeat("\xe6\xb8\xac", 200);  // 200 x U+6E2C: 600 bytes
  EXPECT_EQ(read_ok<MarkStartArgs>("mark.start", {{"name", cjk}}).name, cjk);
  expect_invalid("mark.start", {{"name", accented + "x"}}, {"\"name\" must be 1-200 characters, got 201"});
  expect_invalid("mark.start", {{"name", ""}}, {"\"name\" must be"});
  auto tagged = read_ok<MarkStartArgs>("mark.start", {{"name", "w"}, {"tags", {{accented, cjk}}}});
  EXPECT_EQ(tagged.tags.at(accented), cjk);
}

TEST(TextArgs, ControlCharactersAndBadUtf8AreRefusedWithTheirPosition) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {std::string("ab\x1b[31m"), "U+001B at character 3"}, {std::string("a\rb"), "U+000D at character 2"},
      {std::string("\nb"), "U+000A at character 1"},        {std::string("ab\0c", 4), "U+0000 at character 3"},
      {std::string("abc\x7f"), "U+007F at character 4"},    {std::string("\xc3\xa9\xc2\x85"), "U+0085 at character 2"},
  };
  for (const auto& [text, where] : cases) {
    expect_invalid("mark.start", {{"name", text}},
                   {"mark.start: argument \"name\" contains the control character", where});
    expect_invalid("mark.start", {{"name", "w"}, {"tags", {{text, "v"}}}}, {"argument \"tags\": key", where});
    expect_invalid("mark.start", {{"name", "w"}, {"tags", {{"k", text}}}}, {"the value of \"k\"", where});
    expect_invalid("mark.stop", {{"run", "w"}, {"tags", {{"k", text}}}}, {"the value of \"k\"", where});
  }
  for (const std::string& bad : {std::string("a\xff"), std::string("\xc0\xaf"), std::string("\xed\xa0\x80"),
                                 std::string("\xe6\xb8"), std::string("\xf5\x80\x80\x80")}) {
    expect_invalid("mark.start", {{"name", bad}}, {"\"name\" is not valid UTF-8 (byte"});
  }
  expect_invalid("mark.start", {{"name", std::string("a\xff")}}, {"byte 2 of 2"});
}

TEST(TagArgs, TooManyTagsOrTagFiltersAreInvalidNotAStorageError) {
  json filters = json::object();
  for (int i = 0; i < 1000; ++i) filters["k" + std::to_string(i)] = "v";
  expect_invalid("runs.list", {{"tags", filters}}, {"\"tags\" has 1000 tags; at most 32 are allowed"});
  json tags = json::object();
  for (int i = 0; i < kMaxTags; ++i) tags["k" + std::to_string(i)] = "v";
  EXPECT_EQ(read_ok<RunFilter>("runs.list", {{"tags", tags}}).tags.size(), static_cast<size_t>(kMaxTags));
  EXPECT_EQ(read_ok<MarkStartArgs>("mark.start", {{"name", "w"}, {"tags", tags}}).tags.size(),
            static_cast<size_t>(kMaxTags));
  tags["one-more"] = "v";
  expect_invalid("mark.start", {{"name", "w"}, {"tags", tags}}, {"at most 32"});
  expect_invalid("mark.stop", {{"run", "w"}, {"tags", tags}}, {"at most 32"});
}

// ---- type confusion over every declared argument ------------------------------

json nested(int depth) {
  json v = json::array();
  for (int i = 0; i < depth; ++i) v = json::array({std::move(v)});
  return v;
}

std::vector<json> hostile_values() {
  json deep_object = json::object();
  for (int i = 0; i < 64; ++i) deep_object = json{{"k", std::move(deep_object)}};
  return {json(),
          json(true),
          json(false),
          json(0),
          json(-1),
          json(std::numeric_limits<int64_t>::min()),
          json(std::numeric_limits<int64_t>::max()),
          json(std::numeric_limits<uint64_t>::max()),
          json(uint64_t{1} << 63),
          json(1.5),
          json(-0.0),
          json(1e300),
          json(""),
          json("x"),
          json("7"),
          json("-7"),
          json("99999999999999999999999"),
          json(std::string("a\x1b")),
          json(std::string("\xff\xfe")),
          json(std::string(5000, 'a')),
          json::array(),
          json::array({1, "a", nullptr}),
          json::object(),
          json{{"a", 1}},
          json{{"a", "b"}},
          json{{"gpu", json::array()}},
          nested(100),
          deep_object};
}

// A valid value of each type, for the required arguments around the one under test.
json valid_value(const ArgSpec& a) {
  switch (a.type) {
    case ArgType::kBool: return true;
    case ArgType::kInt: return a.min;
    case ArgType::kText: return "x";
    case ArgType::kChoice: return a.choices.front();
    case ArgType::kRunRef: return "7";
    case ArgType::kRunId: return 7;
    case ArgType::kTags: return json::object();
    case ArgType::kLeaseIds: return json::array({1});
    case ArgType::kDomains: return json{{"gpu", "max"}};
    case ArgType::kPin: return json{{"domains", {{"gpu", "max"}}}};
    case ArgType::kPositive: return 1;
    case ArgType::kObject: return json::object();
  }
  return nullptr;
}

json required_args(const VerbSpec& spec) {
  json args = json::object();
  for (const auto& a : spec.args) {
    if (a.required) args[a.name] = valid_value(a);
  }
  return args;
}

TEST(VerbArgs, EveryVerbAcceptsItsRequiredArgumentsAlone) {
  for (const auto& spec : verb_specs()) {
    auto r = read(spec.verb, required_args(spec));
    if (spec.id == Verb::kClocksUnpin) continue;  // needs one of its optional arguments
    EXPECT_TRUE(r.ok()) << spec.label << ": " << (r.ok() ? "" : r.error().message);
    if (r.ok()) {
      EXPECT_EQ(r->verb, spec.id) << spec.label;
    }
  }
}

TEST(VerbArgs, NoJsonTypeInAnyArgumentThrowsOrFailsOtherThanInvalid) {
  size_t cases = 0;
  for (const auto& spec : verb_specs()) {
    for (const auto& a : spec.args) {
      for (const auto& v : hostile_values()) {
        json args = required_args(spec);
        args[a.name] = v;
        std::string what = std::string(spec.label) + " " + a.name + "=" +
                           (v.is_structured() ? "<container>" : v.dump(-1, ' ', true, json::error_handler_t::replace));
        Result<VerbCall> r = make_error(ErrorCode::kInternal, "not run");
        EXPECT_NO_THROW(r = read(spec.verb, args)) << what;
        if (!r.ok()) {
          EXPECT_EQ(r.error().code, ErrorCode::kInvalid) << what << ": " << r.error().message;
          EXPECT_NE(r.error().message.find(spec.label), std::string::npos) << what << ": " << r.error().message;
        }
        ++cases;
      }
    }
    for (const auto& v : hostile_values()) {  // an undeclared key, and args that are not an object
      json args = required_args(spec);
      args["undeclared"] = v;
      EXPECT_NO_THROW((void)read(spec.verb, args));
      EXPECT_FALSE(read(spec.verb, args).ok()) << spec.label;
      if (!v.is_object()) {
        EXPECT_NO_THROW((void)read(spec.verb, v));
      }
    }
  }
  EXPECT_GT(cases, 500u);
}

}  // namespace
}  // namespace energy::daemon

namespace energy::daemon {
namespace {

TEST(EnergyCountersArgs, TakesNoArguments) {
  auto r = read("energy.counters", json::object());
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verb, Verb::kEnergyCounters);
  expect_invalid("energy.counters", {{"rail", "VDD_IN"}}, {"energy.counters", "rail"});
}

}  // namespace
}  // namespace energy::daemon

namespace energy::daemon {
namespace {

// ---- sweep.* -------------------------------------------------------------------

json add_run_args() { return {{"sweep", 3}, {"run", 17}, {"point", 2}, {"repeat", 1}, {"role", "measure"}}; }

TEST(SweepArgs, CreateKeepsTheSpecAsCompactJson) {
  auto a = read_ok<SweepCreateArgs>("sweep.create", {{"name", "grid"}, {"spec", {{"seed", 7}, {"axes", {1, 2}}}}});
  EXPECT_EQ(a.name, "grid");
  EXPECT_EQ(json::parse(a.spec_json), (json{{"seed", 7}, {"axes", {1, 2}}}));
  EXPECT_EQ(a.spec_json.find(' '), std::string::npos);
}

TEST(SweepArgs, CreateRefusesEachBadArgumentByName) {
  json spec = json::object();
  expect_invalid("sweep.create", {{"spec", spec}}, {"sweep.create", "\"name\"", "missing"});
  expect_invalid("sweep.create", {{"name", "g"}}, {"sweep.create", "\"spec\"", "missing"});
  expect_invalid("sweep.create", {{"name", ""}, {"spec", spec}}, {"\"name\"", "1-200 characters"});
  expect_invalid("sweep.create", {{"name", std::string(201, 'n')}, {"spec", spec}}, {"\"name\""});
  expect_invalid("sweep.create", {{"name", "a\nb"}, {"spec", spec}}, {"\"name\"", "control character"});
  expect_invalid("sweep.create", {{"name", 5}, {"spec", spec}}, {"\"name\"", "integer 5"});
  expect_invalid("sweep.create", {{"name", "g"}, {"spec", json::array()}}, {"\"spec\"", "JSON object"});
  expect_invalid("sweep.create", {{"name", "g"}, {"spec", "{}"}}, {"\"spec\"", "JSON object"});
}

TEST(SweepArgs, CreateTakesASpecUpTo60KiBAndNoMore) {
  // {"x":"aaa..."} is 8 bytes around the string.
  json fits = {{"x", std::string(kMaxSweepSpecBytes - 8, 'a')}};
  EXPECT_EQ(static_cast<int64_t>(fits.dump().size()), kMaxSweepSpecBytes);
  read_ok<SweepCreateArgs>("sweep.create", {{"name", "g"}, {"spec", fits}});
  json over = {{"x", std::string(kMaxSweepSpecBytes - 7, 'a')}};
  expect_invalid("sweep.create", {{"name", "g"}, {"spec", over}}, {"\"spec\"", "61441 bytes", "at most 61440"});
}

TEST(SweepArgs, ListDefaultsAndRefusals) {
  auto f = read_ok<SweepFilter>("sweep.list", json::object());
  EXPECT_EQ(f.limit, 100);
  EXPECT_FALSE(f.state.has_value());
  f = read_ok<SweepFilter>("sweep.list", {{"state", "interrupted"}, {"limit", 1000}, {"before_id", 9}});
  EXPECT_EQ(f.state, SweepState::kInterrupted);
  EXPECT_EQ(f.limit, 1000);
  EXPECT_EQ(f.before_id, 9);
  expect_invalid("sweep.list", {{"state", "open"}}, {"sweep.list", "\"state\"", "\"complete\""});
  expect_invalid("sweep.list", {{"limit", 0}}, {"\"limit\"", "1..1000"});
  expect_invalid("sweep.list", {{"limit", 1001}}, {"\"limit\"", "1..1000"});
  expect_invalid("sweep.list", {{"before_id", 0}}, {"\"before_id\""});
  expect_invalid("sweep.list", {{"before_id", "9"}}, {"\"before_id\"", "string"});
}

TEST(SweepArgs, ShowAndSetStateNameTheSweep) {
  EXPECT_EQ(read_ok<SweepRef>("sweep.show", {{"sweep", 4}}).id, 4);
  expect_invalid("sweep.show", json::object(), {"sweep.show", "\"sweep\"", "missing"});
  expect_invalid("sweep.show", {{"sweep", -1}}, {"\"sweep\"", "integer -1"});
  expect_invalid("sweep.show", {{"sweep", 1.5}}, {"\"sweep\"", "number 1.5"});
  auto s = read_ok<SweepStateArgs>("sweep.set_state", {{"sweep", 4}, {"state", "complete"}});
  EXPECT_EQ(s.sweep, 4);
  EXPECT_EQ(s.state, SweepState::kComplete);
  expect_invalid("sweep.set_state", {{"sweep", 4}}, {"sweep.set_state", "\"state\"", "missing"});
  expect_invalid("sweep.set_state", {{"sweep", 4}, {"state", "stopped"}}, {"\"state\"", "\"running\""});
  expect_invalid("sweep.set_state", {{"sweep", 0}, {"state", "complete"}}, {"\"sweep\""});
}

TEST(SweepArgs, AddRunReadsEveryArgument) {
  json args = add_run_args();
  args["run"] = "17";
  args["role"] = "baseline";
  args["cooldown_ms"] = 86'400'000;
  auto r = read_ok<SweepRunRecord>("sweep.add_run", args);
  EXPECT_EQ(r.sweep_id, 3);
  EXPECT_EQ(r.run_id, 17);
  EXPECT_EQ(r.point, 2);
  EXPECT_EQ(r.repeat, 1);
  EXPECT_EQ(r.role, SweepRole::kBaseline);
  EXPECT_EQ(r.cooldown_ms, 86'400'000);
  EXPECT_FALSE(read_ok<SweepRunRecord>("sweep.add_run", add_run_args()).cooldown_ms.has_value());
}

TEST(SweepArgs, AddRunRefusesEachBadArgumentByName) {
  const std::vector<std::pair<std::string, json>> bad = {
      {"sweep", 0},        {"sweep", "3"},     {"run", 0},          {"run", "x"},
      {"point", -1},       {"point", 1000001}, {"repeat", -1},      {"repeat", 1000001},
      {"role", "idle"},    {"role", 1},        {"cooldown_ms", -1}, {"cooldown_ms", 86'400'001},
      {"cooldown_ms", 1.5}};
  for (const auto& [name, value] : bad) {
    json args = add_run_args();
    args[name] = value;
    expect_invalid("sweep.add_run", args, {"sweep.add_run", "\"" + name + "\""});
  }
  for (const char* name : {"sweep", "run", "point", "repeat", "role"}) {
    json args = add_run_args();
    args.erase(name);
    expect_invalid("sweep.add_run", args, {"sweep.add_run", "\"" + std::string(name) + "\"", "missing"});
  }
}

}  // namespace
}  // namespace energy::daemon
