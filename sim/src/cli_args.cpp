#include <charconv>

#include "cli_internal.h"
#include "energysim/data_file.h"

namespace energy::sim {
namespace {

Error invalid(std::string message) { return make_error(ErrorCode::kInvalid, std::move(message)); }

bool is_option(const std::string& arg) { return arg.size() > 2 && arg.compare(0, 2, "--") == 0; }

}  // namespace

int CliContext::usage_error(const std::string& command, const Error& error) const {
  const std::string who = command.empty() ? "energyd-sim" : "energyd-sim " + command;
  err << who << ": " << error.message << "\nTry '"
      << (command.empty() ? "energyd-sim help" : "energyd-sim help " + command) << "'.\n";
  return kExitUsage;
}

int CliContext::failure(const std::string& command, const Error& error) const {
  err << "energyd-sim " << command << ": " << error.describe() << "\n";
  return kExitFailure;
}

void ArgParser::option(std::string name, std::optional<std::string>* value) {
  specs_.push_back(Spec{std::move(name), value, nullptr, nullptr});
}

void ArgParser::repeated(std::string name, std::vector<std::string>* values) {
  specs_.push_back(Spec{std::move(name), nullptr, values, nullptr});
}

void ArgParser::flag(std::string name, bool* value) {
  specs_.push_back(Spec{std::move(name), nullptr, nullptr, value});
}

const ArgParser::Spec* ArgParser::find(std::string_view name) const {
  for (const Spec& spec : specs_) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

Status ArgParser::store(const Spec& spec, const std::string& value) {
  if (value.empty()) return invalid("option '" + spec.name + "' needs a non-empty value");
  if (spec.list != nullptr) {
    spec.list->push_back(value);
    return ok_status();
  }
  if (spec.single->has_value()) return invalid("option '" + spec.name + "' is given twice");
  *spec.single = value;
  return ok_status();
}

Status ArgParser::parse(const std::vector<std::string>& args) const {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (!is_option(arg)) return invalid("unexpected argument '" + arg + "'");
    const std::size_t eq = arg.find('=');
    const std::string name = arg.substr(0, eq);
    const Spec* spec = find(name);
    if (spec == nullptr) return invalid("unknown option '" + name + "'");
    if (spec->flag != nullptr) {
      if (eq != std::string::npos) return invalid("option '" + name + "' takes no value");
      *spec->flag = true;
      continue;
    }
    const bool next_is_value = i + 1 < args.size() && !is_option(args[i + 1]);
    if (eq == std::string::npos && !next_is_value) return invalid("option '" + name + "' needs a value");
    Status stored = store(*spec, eq != std::string::npos ? arg.substr(eq + 1) : args[++i]);
    if (!stored) return stored;
  }
  return ok_status();
}

bool wants_help(const std::vector<std::string>& args) {
  for (const std::string& arg : args) {
    if (arg == "--help" || arg == "-h") return true;
  }
  return false;
}

Result<std::int64_t> parse_integer(std::string_view text, const std::string& what) {
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) {
    return invalid(what + ": '" + std::string(text) + "' is not an integer");
  }
  return value;
}

// "NAME=MV:MA", e.g. "VDD_IN=5000:1000".
Result<RailOverride> parse_rail_override(const std::string& text) {
  const std::size_t eq = text.find('=');
  const std::size_t colon = eq == std::string::npos ? std::string::npos : text.find(':', eq);
  if (eq == 0 || colon == std::string::npos) {
    return make_error(ErrorCode::kInvalid, "--rail '" + text + "' is not NAME=MV:MA (e.g. VDD_IN=5000:1000)");
  }
  Result<std::int64_t> mv = parse_integer(text.substr(eq + 1, colon - eq - 1), "--rail " + text + " millivolts");
  Result<std::int64_t> ma = parse_integer(text.substr(colon + 1), "--rail " + text + " milliamps");
  if (!mv) return mv.take_error();
  if (!ma) return ma.take_error();
  constexpr std::int64_t kLimit = 1000000;  // 1 kV / 1 kA: far beyond any Jetson rail
  if (*mv < 0 || *mv > kLimit || *ma < -kLimit || *ma > kLimit) {
    return make_error(ErrorCode::kInvalid, "--rail '" + text + "' is out of range (0..1000000 mV, +-1000000 mA)");
  }
  return RailOverride{text.substr(0, eq), RailState{static_cast<std::int32_t>(*mv), static_cast<std::int32_t>(*ma)}};
}

Result<int> parse_offset(const std::optional<std::string>& text, const char* option) {
  if (!text) return 0;
  Result<std::int64_t> value = parse_integer(*text, option);
  if (!value) return value.take_error();
  if (*value < 0 || *value > 10000) return make_error(ErrorCode::kInvalid, std::string(option) + " must be 0..10000");
  return static_cast<int>(*value);
}

LoadedCatalog load_catalog(const CliContext& cli, const std::string& command,
                           const std::optional<std::string>& data_flag) {
  Result<std::string> path = locate_data_file(DataFileSearch{data_flag, cli.env.data_file});
  Result<Catalog> catalog = path ? Catalog::load(*path) : Result<Catalog>(path.error());
  if (catalog) return LoadedCatalog{std::move(catalog).value(), kExitOk};
  const int code = data_flag ? cli.usage_error(command, catalog.error()) : cli.failure(command, catalog.error());
  return LoadedCatalog{std::nullopt, code};
}

BoardLookup find_board(const CliContext& cli, const std::string& command, const std::optional<std::string>& data_flag,
                       const std::string& board, int l4t) {
  LoadedCatalog loaded = load_catalog(cli, command, data_flag);
  if (!loaded.catalog) return BoardLookup{std::nullopt, loaded.exit_code};
  Result<BoardSpec> spec = loaded.catalog->find(board, l4t);
  if (!spec) return BoardLookup{std::nullopt, cli.usage_error(command, spec.error())};
  return BoardLookup{std::move(spec).value(), kExitOk};
}

}  // namespace energy::sim
