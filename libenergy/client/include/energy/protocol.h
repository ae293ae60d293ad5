// The energyd socket protocol, version 1 (specified in docs/PROTOCOL.md).
//
// Transport: a Unix stream socket. Each message is a frame: a 4-byte
// big-endian payload length, then that many bytes of UTF-8 JSON (an object).
// Requests:  {"v":1, "id":<int>, "verb":"<verb>", "args":{...}}
// Replies:   {"v":1, "id":<same>, "ok":true,  "result":{...}}
//            {"v":1, "id":<same>, "ok":false, "error":{"code":"<code>","message":"..."}}
// A frame longer than its limit is refused from its header, before its
// payload is read; a payload nested deeper than kMaxNestingDepth (arrays
// and objects) is refused before it is parsed, so neither parsing, copying
// nor destroying a message can exhaust the stack.
//
// Thread-safety: pure functions; a FrameDecoder belongs to one connection.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "energy/result.h"

namespace energy::protocol {

constexpr int kVersion = 1;
constexpr size_t kHeaderBytes = 4;
constexpr size_t kMaxRequestBytes = size_t{64} * 1024;       // requests are small
constexpr size_t kMaxReplyBytes = size_t{64} * 1024 * 1024;  // replies may carry exports
// Frames nest far less (the deepest reply, clocks.leases, 8 levels);
// nlohmann-json 3.9.1 parses, copies and destroys recursively.
constexpr size_t kMaxNestingDepth = 32;
// Run and sweep names and tag keys: energyd refuses longer ones (characters).
constexpr size_t kMaxNameChars = 200;

// The deepest nesting of arrays and objects in JSON text (0 for a scalar),
// found by scanning brackets outside strings; the text need not be valid.
size_t json_nesting_depth(const char* begin, const char* end);

std::string encode_frame(const nlohmann::json& message);
// The header of a frame whose payload is `payload_bytes` long: its length,
// 4 bytes big-endian (kHeaderBytes).
std::string frame_header(uint32_t payload_bytes);

// Accumulates bytes from a stream and yields complete messages.
class FrameDecoder {
 public:
  explicit FrameDecoder(size_t max_payload) : max_payload_(max_payload) {}
  void feed(const char* data, size_t n) { buffer_.append(data, n); }
  // A message, nothing yet (nullopt), or an error (oversized, nested deeper
  // than kMaxNestingDepth, or not JSON); after an error the stream is unusable.
  Result<std::optional<nlohmann::json>> next();
  size_t buffered() const { return buffer_.size(); }

 private:
  size_t max_payload_;
  std::string buffer_;
};

struct Request {
  int64_t id = 0;
  std::string verb;
  nlohmann::json args = nlohmann::json::object();
};

// Validates the envelope: version, integer id, string verb, object args.
Result<Request> parse_request(const nlohmann::json& message);
// The request's id when it is an integer, else 0 (for replies to a request
// whose envelope was refused).
int64_t request_id_or_zero(const nlohmann::json& message);
nlohmann::json make_request(int64_t id, const std::string& verb, const nlohmann::json& args);
nlohmann::json make_ok(int64_t id, nlohmann::json result);
nlohmann::json make_error_reply(int64_t id, const Error& error);
// The result of a reply, or its error turned back into an Error.
Result<nlohmann::json> parse_reply(const nlohmann::json& reply, int64_t expected_id);

// Typed accessors for request arguments; errors name the argument.
Result<std::string> arg_string(const nlohmann::json& args, const char* key);
Result<std::optional<int64_t>> arg_optional_int(const nlohmann::json& args, const char* key);

}  // namespace energy::protocol
