#include "energy/protocol.h"

#include <gtest/gtest.h>

namespace energy::protocol {
namespace {

TEST(FrameDecoder, YieldsMessagesSplitAcrossReads) {
  std::string bytes = encode_frame({{"a", 1}}) + encode_frame({{"b", 2}});
  FrameDecoder d(kMaxRequestBytes);
  d.feed(bytes.data(), 3);
  auto none = d.next();
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  d.feed(bytes.data() + 3, bytes.size() - 3);
  auto first = d.next();
  ASSERT_TRUE(first.ok() && first->has_value());
  EXPECT_EQ((**first)["a"], 1);
  auto second = d.next();
  ASSERT_TRUE(second.ok() && second->has_value());
  EXPECT_EQ((**second)["b"], 2);
}

TEST(FrameDecoder, RefusesOversizedFrameFromItsHeader) {
  std::string header("\x7f\xff\xff\xff", 4);
  FrameDecoder d(kMaxRequestBytes);
  d.feed(header.data(), header.size());
  auto r = d.next();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kProtocol);
  EXPECT_NE(r.error().message.find("exceeds the limit"), std::string::npos);
}

TEST(FrameDecoder, RefusesPayloadThatIsNotJson) {
  std::string payload = "not json";
  std::string frame = std::string("\0\0\0\x08", 4) + payload;
  FrameDecoder d(kMaxRequestBytes);
  d.feed(frame.data(), frame.size());
  EXPECT_FALSE(d.next().ok());
}

TEST(Request, EnvelopeIsValidated) {
  EXPECT_TRUE(parse_request(make_request(7, "status", nlohmann::json::object())).ok());
  auto wrong_version = parse_request({{"v", 99}, {"id", 1}, {"verb", "status"}});
  ASSERT_FALSE(wrong_version.ok());
  EXPECT_NE(wrong_version.error().message.find("version"), std::string::npos);
  EXPECT_FALSE(parse_request({{"v", 1}, {"verb", "status"}}).ok());
  EXPECT_FALSE(parse_request({{"v", 1}, {"id", 1}, {"verb", 3}}).ok());
  EXPECT_FALSE(parse_request({{"v", 1}, {"id", 1}, {"verb", "x"}, {"args", 3}}).ok());
}

TEST(Reply, ErrorRoundTripsWithItsCode) {
  auto reply = make_error_reply(5, make_error(ErrorCode::kNotFound, "no open run named 'x'"));
  auto r = parse_reply(reply, 5);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(r.error().message, "no open run named 'x'");
}

TEST(Reply, MismatchedIdIsAProtocolError) {
  auto r = parse_reply(make_ok(1, {}), 2);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kProtocol);
}

std::string frame_of(const std::string& payload) {
  std::string out;
  auto n = static_cast<uint32_t>(payload.size());
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((n >> shift) & 0xffu));
  return out + payload;
}

std::string nested_args(size_t depth) {
  return R"({"v":1,"id":1,"verb":"status","args":{"a":)" + std::string(depth, '[') + std::string(depth, ']') + "}}";
}

// Issue 19, item 3: a frame nested 10,000 deep overflowed the stack when
// parsed, copied or destroyed; it is refused before it is parsed.
TEST(FrameDecoder, RefusesAFrameNestedDeeperThanTheLimitBeforeParsingIt) {
  FrameDecoder d(kMaxRequestBytes);
  std::string frame = frame_of(nested_args(10000));
  d.feed(frame.data(), frame.size());
  auto r = d.next();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kProtocol);
  EXPECT_EQ(r.error().message, "frame payload is nested 10002 levels deep; the limit is 32");
}

TEST(FrameDecoder, AcceptsNestingUpToTheLimit) {
  FrameDecoder d(kMaxRequestBytes);
  std::string frame = frame_of(nested_args(kMaxNestingDepth - 2)) + frame_of(nested_args(kMaxNestingDepth - 1));
  d.feed(frame.data(), frame.size());
  auto at_limit = d.next();
  ASSERT_TRUE(at_limit.ok()) << at_limit.error().message;
  EXPECT_TRUE(at_limit->has_value());
  EXPECT_FALSE(d.next().ok()) << "one level more is refused";
}

TEST(NestingDepth, BracketsInsideStringsAndEscapesDoNotCount) {
  auto depth = [](const std::string& s) { return json_nesting_depth(s.data(), s.data() + s.size()); };
  EXPECT_EQ(depth("1"), 0u);
  EXPECT_EQ(depth(R"({"a":[1,{"b":2}]})"), 3u);
  EXPECT_EQ(depth(R"({"a":"[[[[{{{{"})"), 1u);
  EXPECT_EQ(depth(R"({"a":"\"[[[[","b":[]})"), 2u);
  EXPECT_EQ(depth(R"({"a":"\\\\","b":[[]]})"), 3u);
  EXPECT_EQ(depth("]]]]{"), 1u) << "unbalanced text does not underflow";
}

TEST(Reply, WrongTypedErrorFieldsAreAProtocolErrorNotAnException) {
  nlohmann::json reply = {{"v", 1}, {"id", 3}, {"ok", false}, {"error", {{"code", 5}, {"message", {1, 2}}}}};
  Result<nlohmann::json> r = make_error(ErrorCode::kInternal, "not run");
  EXPECT_NO_THROW(r = parse_reply(reply, 3));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kProtocol);
  reply["error"] = "broken";
  EXPECT_NO_THROW(r = parse_reply(reply, 3));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kProtocol);
}

}  // namespace
}  // namespace energy::protocol
