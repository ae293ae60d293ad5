// The simulator's control protocol: requests and replies are JSON objects,
// framed on the socket as energyd frames them (energy/protocol.h: a 4-byte
// big-endian length, then the JSON). A request is {"cmd": "<name>", ...
// arguments..., "id"?: any}; the reply echoes "id" and is
//   {"ok": true, ...results...}
//   {"ok": false, "error": {"code": "<energy::ErrorCode name>", "message": "..."}}
// Every command, argument and reply field is documented in sim/README.md
// ("Control protocol"); control.cpp's table is the one list of commands.
//
// Thread-safety: handle_control() may run on any thread (LiveBoard and
// LiveFs synchronise themselves).
#pragma once

#include <nlohmann/json.hpp>

#include "live_board.h"
#include "live_fs.h"

namespace energy::sim {

// Never throws; a malformed request gets an error reply naming the field.
nlohmann::json handle_control(LiveBoard& board, LiveFs& fs, const nlohmann::json& request);

// The reply for an error (used by the server for undecodable frames too).
nlohmann::json control_error_reply(const Error& error);

}  // namespace energy::sim
