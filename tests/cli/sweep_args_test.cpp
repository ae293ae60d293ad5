// energyctl sweep's arguments (every bad value named), the stored spec's
// round trip, the clock tables a pin of "cpu" can use, progress lines and
// reading a stored sweep back for --resume.
#include "sweep_args.h"

#include <gtest/gtest.h>

#include "command_table.h"
#include "sweep_cooldown.h"
#include "sweep_progress.h"
#include "sweep_run.h"

namespace energy::cli {
namespace {

Result<SweepArgs> parse(const std::vector<std::string>& words) {
  auto args = parse_command_args(*find_command("sweep"), words);
  if (!args) return args.take_error();
  return parse_sweep_args(*args);
}

std::string error_of(const std::vector<std::string>& words) {
  auto r = parse(words);
  return r ? std::string("(accepted)") : r.error().message;
}

TEST(SweepArgs, OptionsFillTheArguments) {
  auto a =
      parse({"--gpu",    "min,max", "--cpu",      "all",   "--param",    "batch=1,8", "--dvfs",  "--repeat", "2",
             "--warmup", "1",       "--cooldown", "500ms", "--baseline", "2s",        "--items", "{batch}",  "--seed",
             "42",       "--name",  "study",      "--",    "infer",      "--batch",   "{batch}"});
  ASSERT_TRUE(a) << a.error().message;
  ASSERT_EQ(a->clocks.size(), 2u);
  EXPECT_EQ(a->clocks[0].first, "cpu") << "clock axes in cpu, gpu, emc order";
  EXPECT_EQ(a->clocks[1].second, "min,max");
  ASSERT_EQ(a->params.size(), 1u);
  EXPECT_EQ(a->params[0].values, (std::vector<std::string>{"1", "8"}));
  EXPECT_TRUE(a->dvfs);
  EXPECT_EQ(a->repeat, 2);
  EXPECT_EQ(a->warmup, 1);
  EXPECT_EQ(a->cooldown.mode, CooldownMode::kFixed);
  EXPECT_EQ(a->cooldown.ms, 500);
  EXPECT_EQ(a->baseline_ms, 2000);
  EXPECT_EQ(a->items.param, "batch");
  EXPECT_EQ(a->seed, 42u);
  EXPECT_EQ(a->name, "study");
  EXPECT_EQ(a->command, (std::vector<std::string>{"infer", "--batch", "{batch}"}));
}

TEST(SweepArgs, DefaultsAreThreeRepeatsAndAutoCooldown) {
  auto a = parse({"--gpu", "max", "--", "true"});
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_EQ(a->repeat, 3);
  EXPECT_EQ(a->cooldown.mode, CooldownMode::kAuto);
  EXPECT_EQ(a->cooldown.ms, kAutoCooldownTimeoutMs);
  EXPECT_FALSE(a->seed);
  EXPECT_FALSE(a->resume);
  EXPECT_FALSE(a->json);
  auto resume = parse({"--resume", "4", "--json"});
  ASSERT_TRUE(resume) << resume.error().message;
  EXPECT_EQ(resume->resume, 4);
  EXPECT_TRUE(resume->json) << "--json: the results at the end as JSON";
}

TEST(SweepArgs, EveryBadValueIsNamed) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--repeat", "0", "--gpu", "max", "--", "x"}, "--repeat must be a whole number from 1 to 1000, got '0'"},
      {{"--warmup", "101", "--gpu", "max", "--", "x"}, "--warmup must be a whole number from 0 to 100, got '101'"},
      {{"--ci", "0", "--gpu", "max", "--", "x"}, "--ci"},
      {{"--ci", "150", "--gpu", "max", "--", "x"}, "--ci must be a percentage above 0 and at most 100, got '150'"},
      {{"--ci", "2", "--max-repeat", "1", "--gpu", "max", "--", "x"}, "--max-repeat must be a whole number from 2"},
      {{"--cooldown", "soon", "--gpu", "max", "--", "x"}, "--cooldown must be auto, off or a duration"},
      {{"--cooldown", "2h", "--gpu", "max", "--", "x"}, "--cooldown must be at most 1h, got '2h'"},
      {{"--baseline", "0s", "--gpu", "max", "--", "x"}, "--baseline: "},
      {{"--items", "-3", "--gpu", "max", "--", "x"}, "--items"},
      {{"--items", "{9x}", "--gpu", "max", "--", "x"}, "--items: '{9x}' names no valid parameter"},
      {{"--items", "{n}", "--gpu", "max", "--", "x"}, "--items {n}: no --param n"},
      {{"--items", "{n}", "--param", "n=4,many", "--", "x"}, "--items {n}: value 'many' is not a number above 0"},
      {{"--seed", "-1", "--gpu", "max", "--", "x"}, "--seed must be a whole number from 0 to 18446744073709551615"},
      {{"--seed", "18446744073709551616", "--gpu", "max", "--", "x"}, "--seed must be a whole number"},
      {{"--name", "", "--gpu", "max", "--", "x"}, "--name must be 1 to 200 characters, got 0"},
      {{"--resume", "0"}, "--resume must be a whole number of at least 1, got '0'"},
      {{"--resume", "3", "--gpu", "max"}, "--resume ID takes no other option and no command"},
      {{"--resume", "3", "--", "x"}, "--resume ID takes no other option and no command"},
      {{"--gpu", "max", "--gpu", "min", "--", "x"}, "--gpu given twice"},
      {{"--gpu", "", "--", "x"}, "--gpu needs a list of frequencies, got ''"},
      {{"--param", "n=1", "--param", "n=2", "--", "x"}, "--param n given twice"},
      {{"--param", "1n=1", "--", "x"}, "--param '1n=1'"},
      {{"--gpu", "max"}, "sweep needs a command"},
      {{"--", "x"}, "sweep needs at least one axis"},
      {{"--ci", "2", "--repeat", "3", "--gpu", "max", "--", "x"}, "--repeat and --ci exclude each other"},
      {{"--max-repeat", "4", "--gpu", "max", "--", "x"}, "--max-repeat needs --ci"},
      {{"--param", "cpu=1,2", "--", "x"}, "--param cpu: energyctl tags each run with 'cpu' itself"},
      {{"--param", "v=" + std::string(1001, 'a'), "--", "x"}, "--param v: a value is longer than 1000 characters"},
      {{"--csv", "--gpu", "max", "--", "x"}, "--csv goes with sweep export ID, not with running a sweep"},
  };
  for (const auto& [words, expected] : cases) {
    std::string message = error_of(words);
    EXPECT_NE(message.find(expected), std::string::npos) << "got: " << message << "\nexpected: " << expected;
  }
}

nlohmann::json board_clocks() {
  return {{"domains",
           {{{"kind", "cpu"}, {"name", "cpu0"}, {"available_hz", {115200000, 729600000, 1510400000}}},
            {{"kind", "cpu"}, {"name", "cpu4"}, {"available_hz", {115200000, 1510400000, 1984000000}}},
            {{"kind", "gpu"}, {"name", "gpu"}, {"available_hz", {306000000, 624750000, 918000000}}}}}};
}

TEST(SweepArgs, AtMostTwentyParameters) {
  std::vector<std::string> words;
  for (int i = 0; i < 21; ++i) {
    words.push_back("--param");
    words.push_back("p" + std::to_string(i) + "=1");
  }
  words.insert(words.end(), {"--", "x"});
  EXPECT_EQ(error_of(words), "--param: at most 20 parameters (a run holds at most 32 tags)");
  words.erase(words.begin(), words.begin() + 2);
  EXPECT_EQ(error_of(words), "(accepted)");
}

TEST(SweepArgs, ClockListsResolveAgainstWhatEveryDomainOfTheKindLists) {
  auto a = parse({"--gpu", "624.75M,max", "--cpu", "all", "--", "x"});
  ASSERT_TRUE(a);
  auto axes = resolve_clock_axes(*a, board_clocks());
  ASSERT_TRUE(axes) << axes.error().message;
  ASSERT_EQ(axes->size(), 2u);
  EXPECT_EQ((*axes)[0].hz, (std::vector<int64_t>{115200000, 1510400000})) << "only what cpu0 and cpu4 both list";
  EXPECT_EQ((*axes)[1].hz, (std::vector<int64_t>{624750000, 918000000}));
  auto emc = parse({"--emc", "max", "--", "x"});
  auto none = resolve_clock_axes(*emc, board_clocks());
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().message, "--emc: this board has no emc clock domain");
  auto unlisted = resolve_clock_axes(*parse({"--gpu", "600M", "--", "x"}), board_clocks());
  ASSERT_FALSE(unlisted);
  EXPECT_NE(unlisted.error().message.find("600 MHz"), std::string::npos) << unlisted.error().message;
}

TEST(SweepSpec, RoundTripsThroughJson) {
  auto a = parse({"--gpu", "min,max", "--param", "batch=2,8", "--dvfs", "--ci", "2.5", "--max-repeat", "6",
                  "--cooldown", "off", "--baseline", "1s", "--items", "{batch}", "--", "run", "{batch}"});
  ASSERT_TRUE(a) << a.error().message;
  auto axes = resolve_clock_axes(*a, board_clocks());
  ASSERT_TRUE(axes);
  SweepSpec spec = make_spec(*a, *axes, 18446744073709551615ULL);
  auto back = spec_from_json(nlohmann::json::parse(spec_to_json(spec).dump()));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->command, spec.command);
  EXPECT_EQ(back->axes.clocks[0].hz, spec.axes.clocks[0].hz);
  EXPECT_EQ(back->axes.params[0].values, spec.axes.params[0].values);
  EXPECT_TRUE(back->dvfs);
  EXPECT_EQ(back->repeat, 6) << "with --ci the most rounds are --max-repeat";
  EXPECT_EQ(back->ci_pct, 2.5);
  EXPECT_EQ(back->cooldown.mode, CooldownMode::kOff);
  EXPECT_EQ(back->baseline_ms, 1000);
  EXPECT_EQ(back->items.param, "batch");
  EXPECT_EQ(back->seed, 18446744073709551615ULL);
  SweepPoint p;
  p.param = {1};
  EXPECT_EQ(point_items(*back, p), 8.0);
}

TEST(SweepSpec, ASpecThisEnergyctlDidNotWriteIsRefusedByField) {
  auto j = spec_to_json(make_spec(*parse({"--gpu", "max", "--", "x"}), {}, 1));
  auto no_format = j;
  no_format.erase("format");
  EXPECT_NE(spec_from_json(no_format).error().message.find("\"format\""), std::string::npos);
  auto bad_seed = j;
  bad_seed["seed"] = 7;
  EXPECT_NE(spec_from_json(bad_seed).error().message.find("\"seed\""), std::string::npos);
  auto bad_repeat = j;
  bad_repeat["repeat"] = 0;
  EXPECT_NE(spec_from_json(bad_repeat).error().message.find("\"repeat\""), std::string::npos);
  auto bad_dvfs = j;
  bad_dvfs["dvfs"] = "yes";
  EXPECT_NE(spec_from_json(bad_dvfs).error().message.find("\"dvfs\""), std::string::npos);
  auto bad_mode = j;
  bad_mode["cooldown"]["mode"] = 3;
  EXPECT_NE(spec_from_json(bad_mode).error().message.find("cooldown mode"), std::string::npos);
  auto no_command = j;
  no_command["command"] = nlohmann::json::array();
  EXPECT_NE(spec_from_json(no_command).error().message.find("\"command\""), std::string::npos);
}

TEST(SweepCommandResume, StoredRunsGiveTheFinishedPairsAndTheGoodSamples) {
  auto run = [](const char* exit_status, double energy, double items) {
    return nlohmann::json{
        {"tags", {{"exit_status", exit_status}}}, {"items", items}, {"summary", {{"energy_j", energy}}}};
  };
  nlohmann::json sweep = {
      {"runs",
       {{{"run_id", 10}, {"point", 0}, {"repeat", 0}, {"role", "baseline"}, {"run", run("0", 1, 1)}},
        {{"run_id", 11}, {"point", 1}, {"repeat", -1}, {"role", "warmup"}, {"run", run("0", 9, 1)}},
        {{"run_id", 12}, {"point", 1}, {"repeat", 0}, {"role", "measure"}, {"run", run("0", 8.0, 4)}},
        {{"run_id", 13}, {"point", 2}, {"repeat", 0}, {"role", "measure"}, {"run", run("3", 5.0, 4)}}}}};
  auto store = progress_from_show(sweep);
  EXPECT_EQ(store.finished, (FinishedRuns{{1, 0}, {2, 0}})) << "a failed run is recorded and not run again";
  ASSERT_EQ(store.samples.count(1), 1u);
  EXPECT_EQ(store.samples[1], std::vector<double>{2.0});
  EXPECT_EQ(store.samples.count(2), 0u) << "a failed run gives no sample";
  EXPECT_EQ(store.baseline_run, 10);
}

TEST(SweepArgs, SearchDefaultsToAllCpuAndGpuClocksAndChecksItsOptions) {
  auto a = parse({"--search", "--repeat", "2", "--max-runs", "40", "--", "x"});
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_TRUE(a->search);
  EXPECT_EQ(a->clocks, (std::vector<std::pair<std::string, std::string>>{{"cpu", "all"}, {"gpu", "all"}}));
  EXPECT_EQ(a->max_repeat, 6) << "max(--repeat, 6) unless given";
  EXPECT_EQ(a->max_runs, 40u);
  auto own = parse({"--search", "--gpu", "min,max", "--max-repeat", "3", "--", "x"});
  ASSERT_TRUE(own) << own.error().message;
  EXPECT_EQ(own->clocks.size(), 1u) << "axes given: only those";
  EXPECT_EQ(own->max_repeat, 3);
  auto per_value = parse({"--search", "--param", "n=1,2", "--items", "{n}", "--", "x"});
  ASSERT_TRUE(per_value) << per_value.error().message << " (one search per parameter value)";
  EXPECT_EQ(per_value->params.size(), 1u);
  EXPECT_NE(error_of({"--search", "--ci", "2", "--", "x"}).find("--ci does not go with --search"), std::string::npos);
  EXPECT_NE(error_of({"--search", "--repeat", "1", "--", "x"}).find("at least 2"), std::string::npos);
  EXPECT_NE(error_of({"--search", "--repeat", "4", "--max-repeat", "3", "--", "x"}).find("at least --repeat"),
            std::string::npos);
  EXPECT_NE(error_of({"--search", "--warmup", "1", "--", "x"}).find("--warmup"), std::string::npos);
  EXPECT_NE(error_of({"--gpu", "max", "--max-runs", "5", "--", "x"}).find("--max-runs needs --search"),
            std::string::npos);
  EXPECT_NE(error_of({"--search", "--max-runs", "0", "--", "x"}).find("--max-runs"), std::string::npos);
  EXPECT_NE(error_of({"--resume", "3", "--search"}).find("--resume ID takes no other option"), std::string::npos);
}

TEST(SweepArgs, SearchOptionsRoundTripThroughTheStoredSpec) {
  auto a = parse({"--search", "--gpu", "max", "--repeat", "3", "--max-repeat", "5", "--max-runs", "9", "--", "x"});
  ASSERT_TRUE(a) << a.error().message;
  auto back = spec_from_json(nlohmann::json::parse(spec_to_json(make_spec(*a, {}, 1)).dump()));
  ASSERT_TRUE(back) << back.error().message;
  ASSERT_TRUE(back->search);
  EXPECT_EQ(back->search->repeats, 3);
  EXPECT_EQ(back->search->max_repeats, 5);
  EXPECT_EQ(back->search->max_runs, 9u);
  auto grid = spec_from_json(spec_to_json(make_spec(*parse({"--gpu", "max", "--", "x"}), {}, 1)));
  ASSERT_TRUE(grid) << grid.error().message;
  EXPECT_FALSE(grid->search) << "a grid stores \"search\": null";
  auto bad = spec_to_json(make_spec(*a, {}, 1));
  bad["search"]["max_repeats"] = 2;
  EXPECT_NE(spec_from_json(bad).error().message.find("\"search\""), std::string::npos) << "max_repeats < repeats";
}

TEST(SweepProgress, TheLineSaysPointRepeatElapsedFinishAndLast) {
  ProgressState s;
  s.done = 3;
  s.total = 10;
  s.point = 1;  // 0-based
  s.points = 5;
  s.repeat = 1;
  s.repeats = 2;
  s.label = "gpu 624.75MHz";
  s.elapsed_s = 6;
  s.eta_s = 14;
  s.last = "1.000 J in 2.0 s";
  std::string line = progress_text(s);
  for (const char* part :
       {"run 3/10", "point 2/5 (gpu 624.75MHz)", "repeat 1/2", "elapsed", "finish in", "last: 1.000 J"})
    EXPECT_NE(line.find(part), std::string::npos) << part << " missing from " << line;
  s.repeat = 0;
  EXPECT_NE(progress_text(s).find("warm-up"), std::string::npos);
}

TEST(SweepArgs, ProgressIsTextOrJsonAlsoOnResume) {
  EXPECT_FALSE(parse({"--gpu", "max", "--", "x"})->progress_json) << "text by default";
  auto a = parse({"--gpu", "max", "--progress", "json", "--", "x"});
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_TRUE(a->progress_json);
  auto resume = parse({"--resume", "3", "--progress", "json"});
  ASSERT_TRUE(resume) << resume.error().message;
  EXPECT_TRUE(resume->progress_json);
  EXPECT_EQ(error_of({"--gpu", "max", "--progress", "xml", "--", "x"}), "--progress must be text or json, got 'xml'");
}

TEST(SweepProgress, JsonEventCarriesTheLinesFigures) {
  ProgressState s;
  s.done = 3;
  s.total = 10;
  s.point = 1;
  s.points = 5;
  s.repeat = 2;
  s.repeats = 3;
  s.label = "gpu 624.75MHz";
  s.elapsed_s = 6;
  s.eta_s = 14;
  s.last = "1.000 J in 2.0 s";
  auto j = progress_json(s);
  EXPECT_EQ(j["event"], "run");
  EXPECT_EQ(j["run"], 3);
  EXPECT_EQ(j["runs"], 10);
  EXPECT_EQ(j["runs_estimated"], false);
  EXPECT_EQ(j["point"], 1) << "0-based, as sweep export numbers points";
  EXPECT_EQ(j["points"], 5);
  EXPECT_EQ(j["repeat"], 2);
  EXPECT_EQ(j["repeats"], 3);
  EXPECT_EQ(j["label"], "gpu 624.75MHz");
  EXPECT_EQ(j["elapsed_s"], 6.0);
  EXPECT_EQ(j["eta_s"], 14.0);
  EXPECT_EQ(j["last"], "1.000 J in 2.0 s");
  s.eta_s.reset();
  s.last.clear();
  s.points = 0;
  s.repeats = 0;
  j = progress_json(s);
  for (const char* absent : {"eta_s", "last", "points", "repeats"}) EXPECT_FALSE(j.contains(absent)) << absent;
}

TEST(SweepCooldown, NearIdleWithinTheStatedMargins) {
  IdleReference idle{5.0, 40.0};
  EXPECT_TRUE(near_idle({5.6, 41.9}, idle));
  EXPECT_FALSE(near_idle({5.7, 40.0}, idle)) << "10% + 0.1 W above 5 W is 5.6 W";
  EXPECT_FALSE(near_idle({5.0, 42.5}, idle)) << "2 C above";
  EXPECT_TRUE(near_idle({5.0, std::nullopt}, idle)) << "no temperature: power alone";
}

}  // namespace
}  // namespace energy::cli
