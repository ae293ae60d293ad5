// energyctl's command table: the parser, the help texts and usage errors it
// drives (through main_entry, as the binary runs them), and the man page and
// bash completion checked against it.
#include "command_table.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <stdlib.h>

namespace energy::cli {
int main_entry(int argc, char** argv);
namespace {

struct Captured {
  int exit_code = 0;
  std::string out, err;
};

std::string read_back(FILE* f) {
  std::string text;
  std::rewind(f);
  for (int c; (c = std::fgetc(f)) != EOF;) text += static_cast<char>(c);
  std::fclose(f);
  return text;
}

// Runs `energyctl ARGS...` in process with stdout and stderr captured.
Captured energyctl(std::vector<std::string> args) {
  args.insert(args.begin(), "energyctl");
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  FILE* out = std::tmpfile();
  FILE* err = std::tmpfile();
  int saved_out = ::dup(STDOUT_FILENO), saved_err = ::dup(STDERR_FILENO);
  ::dup2(::fileno(out), STDOUT_FILENO);
  ::dup2(::fileno(err), STDERR_FILENO);
  Captured p;
  p.exit_code = main_entry(static_cast<int>(args.size()), argv.data());
  std::fflush(stdout);
  std::fflush(stderr);
  ::dup2(saved_out, STDOUT_FILENO);
  ::dup2(saved_err, STDERR_FILENO);
  ::close(saved_out);
  ::close(saved_err);
  p.out = read_back(out);
  p.err = read_back(err);
  return p;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(CommandTable, EveryCommandsHelpExitsZeroAndListsItsOptions) {
  for (const auto& command : command_table()) {
    auto p = energyctl({command.name, "--help"});
    EXPECT_EQ(p.exit_code, kExitOk) << command.name << ": " << p.err;
    EXPECT_TRUE(p.err.empty()) << command.name << ": " << p.err;
    EXPECT_TRUE(has(p.out, "Usage: energyctl " + command.name)) << p.out;
    for (const auto& o : all_options(command)) EXPECT_TRUE(has(p.out, o.name)) << command.name << " " << o.name;
    EXPECT_EQ(energyctl({command.name, "-h"}).out, p.out) << command.name;
  }
}

TEST(CommandTable, HelpCommandPrintsWhatDashDashHelpPrints) {
  for (const auto& command : command_table()) {
    auto help = energyctl({"help", command.name});
    EXPECT_EQ(help.exit_code, kExitOk) << help.err;
    EXPECT_EQ(help.out, energyctl({command.name, "--help"}).out) << command.name;
  }
  auto main = energyctl({"help"});
  EXPECT_EQ(main.exit_code, kExitOk);
  EXPECT_EQ(main.out, energyctl({"--help"}).out);
  auto unknown = energyctl({"help", "frobnicate"});
  EXPECT_EQ(unknown.exit_code, kExitUsage);
  EXPECT_TRUE(has(unknown.err, "unknown command 'frobnicate'")) << unknown.err;
}

TEST(CommandTable, MainHelpListsEveryCommandAndGlobalOption) {
  auto p = energyctl({"--help"});
  EXPECT_EQ(p.exit_code, kExitOk);
  for (const auto& command : command_table()) EXPECT_TRUE(has(p.out, "  " + command.name + " ")) << command.name;
  for (const auto& o : global_options()) EXPECT_TRUE(has(p.out, o.name)) << o.name;
}

// The two reports of issue 20: --help was an unknown option or a missing value.
TEST(CommandTable, HelpWinsOverTheRestOfTheLine) {
  EXPECT_EQ(energyctl({"run", "--help"}).exit_code, kExitOk);
  EXPECT_EQ(energyctl({"pin", "--help"}).exit_code, kExitOk);
  auto later = energyctl({"runs", "--limit", "5", "--help", "--bogus"});
  EXPECT_EQ(later.exit_code, kExitOk) << later.err;
  EXPECT_TRUE(has(later.out, "Usage: energyctl runs")) << later.out;
}

TEST(CommandTable, UnknownOptionNamesItAndShowsTheCommandsUsage) {
  auto p = energyctl({"runs", "--colour", "red"});
  EXPECT_EQ(p.exit_code, kExitUsage);
  EXPECT_TRUE(has(p.err, "unknown option '--colour' for runs")) << p.err;
  EXPECT_TRUE(has(p.err, "\nUsage: energyctl runs [--name N]")) << p.err;
  EXPECT_TRUE(has(p.err, "Try 'energyctl runs --help'.")) << p.err;
  EXPECT_TRUE(p.out.empty());
}

TEST(CommandTable, UnknownCommandAndGlobalOptionShowTheMainUsage) {
  auto command = energyctl({"frobnicate"});
  EXPECT_EQ(command.exit_code, kExitUsage);
  EXPECT_TRUE(has(command.err, "unknown command 'frobnicate'")) << command.err;
  EXPECT_TRUE(has(command.err, "Usage: energyctl [--socket PATH]")) << command.err;
  EXPECT_TRUE(has(command.err, "Try 'energyctl --help'.")) << command.err;
  auto global = energyctl({"--colour", "status"});
  EXPECT_EQ(global.exit_code, kExitUsage);
  EXPECT_TRUE(has(global.err, "unknown option '--colour'")) << global.err;
}

TEST(CommandTable, ValidatorErrorsAlsoShowTheCommandsUsage) {
  auto p = energyctl({"live", "--interval", "10ms"});
  EXPECT_EQ(p.exit_code, kExitUsage);
  EXPECT_TRUE(has(p.err, "--interval must be 100ms..1h, got '10ms'")) << p.err;
  EXPECT_TRUE(has(p.err, "Usage: energyctl live")) << p.err;
}

Result<Args> parse(const std::string& command, const std::vector<std::string>& args) {
  return parse_command_args(*find_command(command), args);
}

TEST(CommandParser, MissingValueAndValueOnAFlagAreErrorsNamingTheOption) {
  auto missing = parse("pin", {"--gpu", "max", "--for"});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, "option '--for' needs a value for pin");
  auto valued = parse("pin", {"--hold=yes"});
  ASSERT_FALSE(valued.ok());
  EXPECT_EQ(valued.error().message, "option '--hold' takes no value, got '--hold=yes' for pin");
  auto short_missing = parse("run", {"-o"});
  ASSERT_FALSE(short_missing.ok());
  EXPECT_EQ(short_missing.error().message, "option '-o' needs a value for run");
  auto unknown_short = parse("run", {"-x", "true"});
  ASSERT_FALSE(unknown_short.ok());
  EXPECT_EQ(unknown_short.error().message, "unknown option '-x' for run");
}

TEST(CommandParser, AbbreviationsAreUnknownOptions) {
  auto p = parse("run", {"--rep", "3", "true"});
  ASSERT_FALSE(p.ok());
  EXPECT_TRUE(has(p.error().message, "unknown option '--rep' for run")) << p.error().message;
  EXPECT_FALSE(parse("runs", {"--lim=3"}).ok());
}

TEST(CommandParser, OptionsKeepTheirOrderAndBothSpellings) {
  auto p = parse("run", {"--tag", "a=1", "--name=x", "-o", "-", "--tag=b=2", "--json", "true"});
  ASSERT_TRUE(p.ok()) << p.error().message;
  std::vector<std::pair<std::string, std::string>> expected = {
      {"--tag", "a=1"}, {"--name", "x"}, {"--output", "-"}, {"--tag", "b=2"}};
  EXPECT_EQ(p->options, expected);
  EXPECT_TRUE(p->json);
  EXPECT_EQ(p->words, std::vector<std::string>{"true"});
}

TEST(CommandParser, RunPassesEverythingFromCmdOnUntouched) {
  auto bare = parse("run", {"--name", "n", "ls", "-la", "--json", "--help", "--", "x"});
  ASSERT_TRUE(bare.ok());
  EXPECT_EQ(bare->words, (std::vector<std::string>{"ls", "-la", "--json", "--help", "--", "x"}));
  EXPECT_FALSE(bare->json);
  EXPECT_FALSE(bare->help);
  auto dashed = parse("run", {"--", "--weird-cmd", "--name", "--"});
  ASSERT_TRUE(dashed.ok());
  EXPECT_TRUE(dashed->options.empty());
  EXPECT_EQ(dashed->words, (std::vector<std::string>{"--weird-cmd", "--name", "--"}));
}

TEST(CommandParser, OtherCommandsTakeOptionsAnywhereAndWordsInOrder) {
  auto p = parse("mark", {"start", "--tag", "k=v", "name", "--json"});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->words, (std::vector<std::string>{"start", "name"}));
  EXPECT_EQ(p->options.size(), 1u);
  EXPECT_TRUE(p->json);
  auto after = parse("show", {"--", "--odd-name"});
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->words, std::vector<std::string>{"--odd-name"});
}

TEST(CommandParser, PosixlyCorrectDoesNotChangeTheParse) {
  ::setenv("POSIXLY_CORRECT", "1", 1);
  auto p = parse("mark", {"start", "name", "--tag", "k=v"});
  ::unsetenv("POSIXLY_CORRECT");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->options.size(), 1u);
  EXPECT_EQ(p->words.size(), 2u);
}

TEST(CommandParser, ExportKeepsItsOwnJsonInOrder) {
  auto p = parse("export", {"1", "--json", "--csv"});
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(p->json);
  ASSERT_EQ(p->options.size(), 2u);
  EXPECT_EQ(p->options[0].first, "--json");
  EXPECT_EQ(p->options[1].first, "--csv");
}

// --- the man page and the completion against the table ---------------------

using OptionSets = std::map<std::string, std::set<std::string>>;

std::string read_source(const std::string& relative) {
  std::ifstream in(std::string(ENERGY_SOURCE_DIR) + "/" + relative);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The long options a line of roff or shell names ("\-\-name" or "--name").
std::set<std::string> options_in(std::string line) {
  line = std::regex_replace(line, std::regex(R"(\\-)"), "-");
  std::set<std::string> out;
  std::regex option(R"(--[a-z][a-z-]*)");
  for (std::sregex_iterator it(line.begin(), line.end(), option), end; it != end; ++it) out.insert(it->str());
  return out;
}

// Per command, the options of the table without the common ones when `own_only`.
OptionSets table_options(bool own_only) {
  OptionSets out;
  for (const auto& c : command_table()) {
    out[c.name];
    for (const auto& o : own_only ? c.options : all_options(c)) out[c.name].insert(o.name);
    if (own_only) out[c.name].erase("--json");
  }
  return out;
}

std::set<std::string> global_names(bool with_help_and_version) {
  std::set<std::string> out;
  for (const auto& o : global_options()) out.insert(o.name);
  if (!with_help_and_version) {
    out.erase("--help");
    out.erase("--version");
  }
  return out;
}

// The lines of section `name` of the man page (up to the next .SH).
std::vector<std::string> man_section(const std::string& page, const std::string& name) {
  std::vector<std::string> lines;
  std::istringstream in(page);
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(".SH ", 0) == 0)
      inside = line == ".SH " + name;
    else if (inside)
      lines.push_back(line);
  }
  return lines;
}

// The tag line after each .TP of a section.
std::vector<std::string> tags(const std::vector<std::string>& section) {
  std::vector<std::string> out;
  for (size_t i = 0; i + 1 < section.size(); ++i) {
    if (section[i] == ".TP") out.push_back(section[i + 1]);
  }
  return out;
}

// The command a COMMANDS tag names: its first word without roff.
std::string tag_command(std::string tag) {
  tag = std::regex_replace(tag, std::regex(R"(^\.[A-Z]+\s+)"), "");
  tag = std::regex_replace(tag, std::regex(R"(\\f[BIRP]|")"), "");
  return tag.substr(0, tag.find_first_of(" ["));
}

TEST(CommandTableDocs, ManPageCommandsListExactlyTheTablesOptions) {
  std::string page = read_source("docs/man/energyctl.1");
  ASSERT_FALSE(page.empty()) << "cannot read docs/man/energyctl.1 under " << ENERGY_SOURCE_DIR;
  OptionSets man;
  for (const auto& tag : tags(man_section(page, "COMMANDS"))) {
    auto& set = man[tag_command(tag)];
    for (const auto& o : options_in(tag)) set.insert(o);
  }
  for (auto& [command, set] : man) set.erase("--json");
  EXPECT_EQ(man, table_options(true));
}

TEST(CommandTableDocs, ManPageSynopsisAndOptionsListTheGlobalOptions) {
  std::string page = read_source("docs/man/energyctl.1");
  std::set<std::string> synopsis;
  for (const auto& line : man_section(page, "SYNOPSIS")) {
    for (const auto& o : options_in(line)) synopsis.insert(o);
  }
  EXPECT_EQ(synopsis, global_names(false));
  std::set<std::string> options;
  for (const auto& tag : tags(man_section(page, "OPTIONS"))) {
    for (const auto& o : options_in(tag)) options.insert(o);
  }
  EXPECT_EQ(options, global_names(true));
}

TEST(CommandTableDocs, CompletionListsExactlyTheTablesCommandsAndOptions) {
  std::string script = read_source("completion/energyctl.bash");
  ASSERT_FALSE(script.empty());
  std::smatch m;
  ASSERT_TRUE(std::regex_search(script, m, std::regex("_energyctl_commands=\"([^\"]*)\"")));
  std::istringstream words(m[1].str());
  std::set<std::string> commands{std::istream_iterator<std::string>(words), {}};
  std::set<std::string> expected_commands;
  for (const auto& c : command_table()) expected_commands.insert(c.name);
  EXPECT_EQ(commands, expected_commands);
  ASSERT_TRUE(std::regex_search(script, m, std::regex("_energyctl_global_options=\"([^\"]*)\"")));
  EXPECT_EQ(options_in(m[1].str()), global_names(true));
  OptionSets completion;
  std::regex entry(R"re(\n\s*([a-z]+)\) echo "([^"]*)" ;;)re");
  for (std::sregex_iterator it(script.begin(), script.end(), entry), end; it != end; ++it)
    completion[(*it)[1].str()] = options_in((*it)[2].str());
  EXPECT_EQ(completion, table_options(false));
}

TEST(CommandTableDocs, FormsNameOnlyTheCommandsOptions) {
  for (const auto& c : command_table()) {
    auto own = table_options(false)[c.name];
    for (const auto& form : c.forms) {
      for (const auto& o : options_in(form)) EXPECT_TRUE(own.count(o) == 1) << c.name << " form names " << o;
    }
  }
}

}  // namespace
}  // namespace energy::cli
