// Durable small state files: the journals that let energyd put back what it
// changed on the board (clock leases, sensor averaging) after a stop, a crash
// or a power cut.
//
// Owns: the durable replacement. The new content goes to "<path>.tmp", is
// fsynced, renamed over the file and the directory is fsynced, so after a
// crash the file holds either the previous or the new content, never a mix.
//
// Thread-safety: reentrant functions; one writer per path.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "energy/result.h"

namespace energy {

// Errors name the file and the step that failed.
Status replace_file_durably(const std::string& path, const std::string& text);

// Journals are a few kilobytes; a larger file is refused rather than read.
inline constexpr size_t kMaxStateFileBytes = 16 << 20;

// The whole file; nullopt when it does not exist (a journal never written).
// Opened as sysroot.h's open_regular_file does: never blocking, and anything
// but a regular file (a FIFO, a socket, a device, a symlink) is a kInvalid
// error naming the path and what it is; more than kMaxStateFileBytes too.
Result<std::optional<std::string>> read_state_file(const std::string& path);

// A journal's JSON: {"format": format, "version": v, ...} checked, with v
// from oldest_version (0: only `version`) to `version`; the rest left to the
// caller. Errors (kParse) start with `what`; `kind` names the journal ("a
// lease journal").
Result<nlohmann::json> parse_journal(const std::string& text, const char* format, int version, const std::string& what,
                                     const char* kind, int oldest_version = 0);

}  // namespace energy
