// fuzz_frames: bytes -> the socket protocol as energyd reads it.
//
// Input: [piece seed byte][stream]. The stream is fed to a
// protocol::FrameDecoder (request limit) in pieces whose sizes come from the
// seed, as recv() may split it; every message goes through
// protocol::parse_request (an envelope error is answered as the server
// does) and then the daemon's argument validation for its verb.
// Properties: no crash, no sanitizer report, no exception escaping a
// function that returns Result<T>; the messages do not depend on how the
// stream was split; a decoded message re-encodes to a frame that decodes to
// the same message.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "energy/protocol.h"
#include "fuzz_common.h"
#include "verb_args.h"

namespace {

using energy::fuzz::require;
namespace protocol = energy::protocol;
namespace daemon = energy::daemon;

// The daemon's verb argument reader, as DaemonImpl::handle calls it before
// any handler: a typed call or an error value, never an exception.
void validate_verb_args(const protocol::Request& req) {
  auto call = daemon::read_verb_args(req);
  require(call.ok() || !call.error().message.empty(), "a refused request has no message");
}

void handle_message(const nlohmann::json& message) {
  require(message.is_object(), "the decoder yielded a message that is not an object");
  auto again = protocol::FrameDecoder(protocol::kMaxReplyBytes);
  std::string frame = protocol::encode_frame(message);
  again.feed(frame.data(), frame.size());
  auto back = again.next();
  require(back.ok() && back->has_value() && **back == message, "a message does not survive re-encoding");
  auto req = protocol::parse_request(message);
  if (!req) {
    (void)protocol::encode_frame(protocol::make_error_reply(protocol::request_id_or_zero(message), req.error()));
    return;
  }
  validate_verb_args(*req);
}

// Piece sizes from the seed: 1 to 2^(seed % 12) bytes (xorshift).
class Pieces {
 public:
  explicit Pieces(uint8_t seed) : state_(seed | 0x100u), max_(size_t{1} << (seed % 12)) {}
  size_t next() {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 17;
    state_ ^= state_ << 5;
    return 1 + state_ % max_;
  }

 private:
  uint32_t state_;
  size_t max_;
};

struct Decoded {
  std::vector<nlohmann::json> messages;
  bool failed = false;
};

// Drains the decoder as Server::dispatch does; false once the stream failed.
bool drain(protocol::FrameDecoder& decoder, Decoded& out) {
  for (;;) {
    auto msg = decoder.next();
    if (!msg) {
      out.failed = true;
      return false;
    }
    if (!msg->has_value()) return true;
    out.messages.push_back(std::move(**msg));
  }
}

Decoded decode_stream(const std::string& stream, Pieces pieces) {
  protocol::FrameDecoder decoder(protocol::kMaxRequestBytes);
  Decoded out;
  for (size_t pos = 0; pos < stream.size();) {
    size_t n = std::min(pieces.next(), stream.size() - pos);
    decoder.feed(stream.data() + pos, n);
    pos += n;
    if (!drain(decoder, out)) break;
  }
  return out;
}

Decoded decode_whole(const std::string& stream) {
  protocol::FrameDecoder decoder(protocol::kMaxRequestBytes);
  decoder.feed(stream.data(), stream.size());
  Decoded out;
  drain(decoder, out);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string stream(reinterpret_cast<const char*>(data + 1), size - 1);
  Decoded split = decode_stream(stream, Pieces(data[0]));
  Decoded whole = decode_whole(stream);
  require(split.failed == whole.failed && split.messages == whole.messages, "messages depend on the split");
  for (const auto& m : split.messages) handle_message(m);
  return 0;
}
