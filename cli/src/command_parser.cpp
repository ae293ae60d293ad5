// parse_args: getopt_long(3) behind the command table (command_table.h).
//
// Ordering: "+" (REQUIRE_ORDER) when options end at the first word, else
// "-" (RETURN_IN_ORDER: words come back as code 1, in order, whatever
// POSIXLY_CORRECT says). A leading ":" makes a missing value return ':'.
// getopt_long accepts unambiguous abbreviations of long options; energyctl
// does not (an abbreviation in a script breaks when an option is added), so
// each long option found is checked against its spelling in argv.
#include <algorithm>

#include <getopt.h>

#include "command_table.h"

namespace energy::cli {
namespace {

constexpr int kLongBase = 0x100;  // getopt's code for options[i] is kLongBase + i

struct GetoptTable {
  std::string optstring;
  std::vector<option> longopts;
};

GetoptTable getopt_table(const std::vector<OptionSpec>& options, bool stop_at_word) {
  GetoptTable t;
  t.optstring = stop_at_word ? "+:" : "-:";
  for (size_t i = 0; i < options.size(); ++i) {
    const OptionSpec& o = options[i];
    int has_arg = o.value.empty() ? no_argument : required_argument;
    t.longopts.push_back({o.name.c_str() + 2, has_arg, nullptr, kLongBase + static_cast<int>(i)});
    if (o.short_name != 0) t.optstring += std::string(1, o.short_name) + (o.value.empty() ? "" : ":");
  }
  t.longopts.push_back({nullptr, 0, nullptr, 0});
  return t;
}

// The index in `options` of getopt's code (a long code or a short letter).
size_t option_index(int code, const std::vector<OptionSpec>& options) {
  if (code >= kLongBase) return static_cast<size_t>(code - kLongBase);
  auto it = std::find_if(options.begin(), options.end(), [code](const OptionSpec& o) { return o.short_name == code; });
  return static_cast<size_t>(it - options.begin());
}

// The argument getopt just took the option from (the one before its value
// when the value was a separate argument).
std::string option_text(char** argv) {
  bool separate_value = optarg != nullptr && optind >= 2 && optarg == argv[optind - 1];
  return argv[optind - (separate_value ? 2 : 1)];
}

bool spelled_in_full(const std::string& name, const std::string& text) {
  return text == name || text.rfind(name + "=", 0) == 0;
}

std::string getopt_error(int code, const std::vector<OptionSpec>& options, char** argv, const std::string& suffix) {
  if (optopt >= kLongBase) {
    const OptionSpec& o = options[option_index(optopt, options)];
    if (code == ':') return "option '" + o.name + "' needs a value" + suffix;
    return "option '" + o.name + "' takes no value, got '" + std::string(argv[optind - 1]) + "'" + suffix;
  }
  if (optopt != 0) {
    if (code == ':') return "option '-" + std::string(1, static_cast<char>(optopt)) + "' needs a value" + suffix;
    return "unknown option '-" + std::string(1, static_cast<char>(optopt)) + "'" + suffix;
  }
  std::string text = argv[optind - 1];
  return "unknown option '" + text.substr(0, text.find('=')) + "'" + suffix;
}

// Takes one getopt result into `out`; false when the parse should stop (--help).
Result<bool> take(int code, const std::vector<OptionSpec>& options, char** argv, Args& out, const std::string& suffix) {
  if (code == 1) {
    out.words.emplace_back(optarg);
    return true;
  }
  if (code == '?' || code == ':') return make_error(ErrorCode::kInvalid, getopt_error(code, options, argv, suffix));
  const OptionSpec& o = options[option_index(code, options)];
  std::string text = option_text(argv);
  if (code >= kLongBase && !spelled_in_full(o.name, text))
    return make_error(ErrorCode::kInvalid, "unknown option '" + text.substr(0, text.find('=')) + "'" + suffix +
                                               " (did you mean '" + o.name + "'?)");
  if (o.name == "--help") {
    out.help = true;
    return false;
  }
  out.options.emplace_back(o.name, optarg != nullptr ? optarg : "");
  return true;
}

}  // namespace

Result<Args> parse_args(const std::vector<OptionSpec>& options, const std::vector<std::string>& args, bool stop_at_word,
                        const std::string& where) {
  std::vector<std::string> storage{"energyctl"};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  argv.reserve(storage.size() + 1);
  for (auto& s : storage) argv.push_back(s.data());
  argv.push_back(nullptr);
  const int argc = static_cast<int>(storage.size());
  GetoptTable table = getopt_table(options, stop_at_word);
  const std::string suffix = where.empty() ? "" : " " + where;
  Args out;
  optind = 0;  // glibc: start afresh (the ordering flag is read again)
  opterr = 0;
  for (int code;
       (code = getopt_long(argc, argv.data(), table.optstring.c_str(), table.longopts.data(), nullptr)) != -1;) {
    auto more = take(code, options, argv.data(), out, suffix);
    if (!more) return more.take_error();
    if (!*more) return out;
  }
  for (int i = optind; i < argc; ++i) out.words.emplace_back(argv[static_cast<size_t>(i)]);
  return out;
}

Result<Args> parse_command_args(const CommandSpec& command, const std::vector<std::string>& args) {
  auto parsed = parse_args(all_options(command), args, command.options_end_at_first_word, "for " + command.name);
  if (!parsed) return parsed;
  bool common_json = std::none_of(command.options.begin(), command.options.end(),
                                  [](const OptionSpec& o) { return o.name == "--json"; });
  if (!common_json) return parsed;
  auto& opts = parsed->options;
  auto json_end = std::remove_if(opts.begin(), opts.end(), [](const auto& o) { return o.first == "--json"; });
  parsed->json = json_end != opts.end();
  opts.erase(json_end, opts.end());
  return parsed;
}

}  // namespace energy::cli
