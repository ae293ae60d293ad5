#include "energy/protocol.h"

#include <algorithm>

namespace energy::protocol {
namespace {

uint32_t read_be32(const std::string& b) {
  auto byte = [&](size_t i) { return static_cast<uint32_t>(static_cast<unsigned char>(b[i])); };
  return (byte(0) << 24) | (byte(1) << 16) | (byte(2) << 8) | byte(3);
}

ErrorCode code_from_name(const std::string& name) {
  for (auto c : {ErrorCode::kIo, ErrorCode::kParse, ErrorCode::kNotFound, ErrorCode::kInvalid, ErrorCode::kUnsupported,
                 ErrorCode::kProtocol, ErrorCode::kState, ErrorCode::kDenied, ErrorCode::kStorage, ErrorCode::kCorrupt,
                 ErrorCode::kTimeout, ErrorCode::kInternal}) {
    if (name == error_code_name(c)) return c;
  }
  return ErrorCode::kProtocol;
}

Error protocol_error(std::string msg) { return make_error(ErrorCode::kProtocol, std::move(msg)); }

}  // namespace

size_t json_nesting_depth(const char* begin, const char* end) {
  size_t depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (const char* p = begin; p != end; ++p) {
    char c = *p;
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    if (c == '[' || c == '{') deepest = std::max(deepest, ++depth);
    if ((c == ']' || c == '}') && depth > 0) --depth;
  }
  return deepest;
}

std::string encode_frame(const nlohmann::json& message) {
  std::string payload = message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out = frame_header(static_cast<uint32_t>(payload.size()));
  out.reserve(kHeaderBytes + payload.size());
  out += payload;
  return out;
}

std::string frame_header(uint32_t payload_bytes) {
  std::string out;
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((payload_bytes >> shift) & 0xffu));
  return out;
}

Result<std::optional<nlohmann::json>> FrameDecoder::next() {
  if (buffer_.size() < kHeaderBytes) return std::optional<nlohmann::json>();
  size_t len = read_be32(buffer_);
  if (len > max_payload_) {
    return protocol_error("frame of " + std::to_string(len) + " bytes exceeds the limit of " +
                          std::to_string(max_payload_) + " bytes");
  }
  if (buffer_.size() < kHeaderBytes + len) return std::optional<nlohmann::json>();
  const char* payload = buffer_.data() + kHeaderBytes;
  size_t depth = json_nesting_depth(payload, payload + len);
  if (depth > kMaxNestingDepth) {
    buffer_.erase(0, kHeaderBytes + len);
    return protocol_error("frame payload is nested " + std::to_string(depth) + " levels deep; the limit is " +
                          std::to_string(kMaxNestingDepth));
  }
  auto msg = nlohmann::json::parse(payload, payload + len, nullptr, false);
  buffer_.erase(0, kHeaderBytes + len);
  if (msg.is_discarded()) return protocol_error("frame payload is not valid JSON");
  if (!msg.is_object()) return protocol_error("frame payload is not a JSON object");
  return std::optional<nlohmann::json>(std::move(msg));
}

Result<Request> parse_request(const nlohmann::json& m) {
  auto v = m.find("v");
  if (v == m.end() || !v->is_number_integer()) return protocol_error("request has no integer field \"v\"");
  if (v->get<int64_t>() != kVersion) {
    return protocol_error("protocol version " + v->dump() + " not supported (this energyd speaks " +
                          std::to_string(kVersion) + ")");
  }
  auto id = m.find("id");
  if (id == m.end() || !id->is_number_integer()) return protocol_error("request has no integer field \"id\"");
  auto verb = m.find("verb");
  if (verb == m.end() || !verb->is_string()) return protocol_error("request has no string field \"verb\"");
  Request r{id->get<int64_t>(), verb->get<std::string>(), nlohmann::json::object()};
  auto args = m.find("args");
  if (args != m.end() && !args->is_object()) return protocol_error("request field \"args\" is not an object");
  if (args != m.end()) r.args = *args;
  return r;
}

int64_t request_id_or_zero(const nlohmann::json& message) {
  if (!message.is_object()) return 0;
  auto id = message.find("id");
  return id != message.end() && id->is_number_integer() ? id->get<int64_t>() : 0;
}

nlohmann::json make_request(int64_t id, const std::string& verb, const nlohmann::json& args) {
  return {{"v", kVersion}, {"id", id}, {"verb", verb}, {"args", args}};
}

nlohmann::json make_ok(int64_t id, nlohmann::json result) {
  return {{"v", kVersion}, {"id", id}, {"ok", true}, {"result", std::move(result)}};
}

nlohmann::json make_error_reply(int64_t id, const Error& e) {
  nlohmann::json err = {{"code", error_code_name(e.code)}, {"message", e.describe()}};
  if (e.sys_errno != 0) err["errno"] = e.sys_errno;
  return {{"v", kVersion}, {"id", id}, {"ok", false}, {"error", std::move(err)}};
}

Result<nlohmann::json> parse_reply(const nlohmann::json& reply, int64_t expected_id) {
  auto id = reply.find("id");
  if (id == reply.end() || !id->is_number_integer() || id->get<int64_t>() != expected_id) {
    return protocol_error("reply does not answer request " + std::to_string(expected_id));
  }
  auto ok = reply.find("ok");
  if (ok == reply.end() || !ok->is_boolean()) return protocol_error("reply has no boolean field \"ok\"");
  if (ok->get<bool>()) {
    auto result = reply.find("result");
    return result != reply.end() ? *result : nlohmann::json::object();
  }
  auto err = reply.find("error");
  if (err == reply.end() || !err->is_object()) return protocol_error("error reply has no object field \"error\"");
  auto msg = err->find("message");
  auto code = err->find("code");
  std::string text = msg != err->end() && msg->is_string() ? msg->get<std::string>() : "unspecified error";
  return make_error(
      code != err->end() && code->is_string() ? code_from_name(code->get<std::string>()) : ErrorCode::kProtocol, text);
}

Result<std::string> arg_string(const nlohmann::json& args, const char* key) {
  auto it = args.find(key);
  if (it == args.end()) return make_error(ErrorCode::kInvalid, std::string("argument \"") + key + "\" is missing");
  if (!it->is_string())
    return make_error(ErrorCode::kInvalid, std::string("argument \"") + key + "\" must be a string");
  return it->get<std::string>();
}

Result<std::optional<int64_t>> arg_optional_int(const nlohmann::json& args, const char* key) {
  auto it = args.find(key);
  if (it == args.end() || it->is_null()) return std::optional<int64_t>();
  if (!it->is_number_integer()) {
    return make_error(ErrorCode::kInvalid, std::string("argument \"") + key + "\" must be an integer");
  }
  return std::optional<int64_t>(it->get<int64_t>());
}

}  // namespace energy::protocol
