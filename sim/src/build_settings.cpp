// Plain writable settings (nvgpu flags, devfreq polling interval, podgov
// tunables, fan modes): files that read back what was written and have no
// effect on the power model.
#include "build.h"
#include "sysfs_write.h"

namespace energy::sim {

void add_setting(Tree& tree, const std::string& path, const std::string& key, const std::string& initial,
                 SettingCheck accept) {
  tree.add_file(
      path, kModeReadWrite,
      [key, initial](const BoardState& state) -> Result<std::string> {
        const auto it = state.settings.find(key);
        return line(it == state.settings.end() ? initial : it->second);
      },
      [key, accept = std::move(accept)](BoardState& state, std::string_view text) -> Status {
        Result<std::string> value = accept(text);
        if (!value) return value.take_error();
        state.settings[key] = std::move(value).value();
        return ok_status();
      });
}

Result<std::string> accept_flag(std::string_view written) {
  Result<std::uint64_t> value = parse_written_unsigned(written);
  if (!value || *value > 1) return rejected_write("'" + written_word(written) + "' is not 0 or 1");
  return std::to_string(*value);
}

Result<std::string> accept_unsigned(std::string_view written) {
  Result<std::uint64_t> value = parse_written_unsigned(written);
  if (!value) return value.take_error();
  return std::to_string(*value);
}

SettingCheck accept_up_to(std::uint64_t max) {
  return [max](std::string_view written) -> Result<std::string> {
    Result<std::uint64_t> value = parse_written_unsigned(written);
    if (!value || *value > max)
      return rejected_write("'" + written_word(written) + "' is not 0.." + std::to_string(max));
    return std::to_string(*value);
  };
}

SettingCheck accept_words(std::vector<std::string> words) {
  return [words = std::move(words)](std::string_view written) -> Result<std::string> {
    const std::string word = written_word(written);
    for (const std::string& allowed : words) {
      if (word == allowed) return word;
    }
    return rejected_write("'" + word + "' is not an accepted value");
  };
}

}  // namespace energy::sim
