// Text that came from energyd (run names, tags, rail labels, notes, error
// messages: much of it read from sysfs or chosen by other users) made safe
// to print on a terminal, so that no such string can move the cursor,
// retitle the window or rewrite what energyctl printed.
//
// Every string from the daemon goes through terminal_safe() before text
// output (tables do it for every cell). JSON output needs nothing: JSON
// escapes control characters itself. CSV fields go through csv_field().
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace energy::cli {

// `text` with every control character shown as an escape: TAB, LF and CR as
// \t, \n and \r; other C0 controls and DEL as \xNN (ESC is \x1b); C1
// controls (U+0080..U+009F) as \u0080..\u009f; bytes that are not valid
// UTF-8 as \xNN. Everything else (printable ASCII, valid UTF-8, and the
// backslash itself) is unchanged.
std::string terminal_safe(std::string_view text);

// One CSV field (RFC 4180): terminal_safe(text), in double quotes with
// quotes doubled when it holds a comma or a double quote. So a CSV file
// holds no raw control character (not even a line break) and is safe to cat.
std::string csv_field(std::string_view text);

}  // namespace energy::cli
