// A blocking socket client for integration tests that send exact bytes
// (hostile frames) or run inside a forked child as another uid: no
// energyctl, no energy::Client.
#pragma once

#include <chrono>
#include <string>

#include <nlohmann/json.hpp>

#include "energy/protocol.h"

namespace energy::testing {

// A connected fd, or -errno.
int connect_to(const std::string& path);
bool send_all(int fd, const std::string& data);

// Reads reply frames from one connection (keeping bytes past a frame for the next).
class Replies {
 public:
  explicit Replies(int fd) : fd_(fd) {}
  // One reply frame, "eof" when the daemon closed the connection, or "timeout".
  std::string next(std::chrono::milliseconds timeout = std::chrono::seconds(20));

 private:
  int fd_;
  protocol::FrameDecoder dec_{protocol::kMaxReplyBytes};
};

std::string read_reply(int fd, std::chrono::milliseconds timeout = std::chrono::seconds(20));
// Sends one request (id 1) and returns the reply frame's text.
std::string call(int fd, const std::string& verb, const nlohmann::json& args = nlohmann::json::object());
// "ok", or the error code, from a reply's JSON text (the text itself when it is not JSON).
std::string outcome(const std::string& reply_text);
// A frame around raw payload bytes (which need not be JSON).
std::string raw_frame(const std::string& payload);

}  // namespace energy::testing
