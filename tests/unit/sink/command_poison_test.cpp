// SPDX-License-Identifier: Apache-2.0
// Poison records: each hostile input ends in a clear InvalidArgument, never a crash, a hang or
// a message that carries raw control bytes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "command_test_util.h"

namespace snowcar::sink {
namespace {

using ::testing::HasSubstr;
using testing::kId1;
using ::testing::Not;
using testing::Record;
using testing::Settings;

Status Decode(const kafka::InRecord& r, const SinkSettings& s = Settings()) {
  auto c = DecodeCommand(r, s);
  return c.ok() ? Status::Ok() : c.status();
}

TEST(PoisonTest, NonJsonValue) {
  Status st = Decode(Record("short_description=x"));
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("the record value is not valid JSON (syntax error at byte"));
  EXPECT_THAT(Decode(Record("")).message(), HasSubstr("the record value is not valid JSON"));
  EXPECT_THAT(Decode(Record("{\"a\":1")).message(), HasSubstr("not valid JSON"));
}

TEST(PoisonTest, ArrayValue) {
  EXPECT_THAT(Decode(Record(R"([{"a":1}])")).message(),
              HasSubstr("the record value is an array; a command's value must be a JSON object"));
}

TEST(PoisonTest, BigStringBelowTheLimitIsMappedWithoutTrouble) {
  const std::string big(3 << 20, 'x');
  auto c = DecodeCommand(Record(R"({"description":")" + big + R"("})"), Settings());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->fields.at("description").as_string().size(), big.size());
}

TEST(PoisonTest, ValueOverTheLimitIsRefusedNamingBothSizes) {
  const std::string value = R"({"description":")" + std::string(8 << 20, 'x') + R"("})";
  Status st = Decode(Record(value));
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("the record value is " + std::to_string(value.size()) +
                                      " bytes, more than the 4194304 bytes"));
}

TEST(PoisonTest, HugeValuesInMessagesAreCut) {
  const std::string big(100000, 'z');
  Status st =
      Decode(Record(R"({"short_description":"x"})", std::nullopt, {{"snow.operation", big}}));
  EXPECT_THAT(st.message(), HasSubstr("(first 64 of 100000 bytes)"));
  EXPECT_LT(st.message().size(), 400U);
}

TEST(PoisonTest, DeepNestingIsBounded) {
  std::string deep;
  for (int i = 0; i < 10000; ++i) deep += "{\"a\":";
  deep += "1";
  deep += std::string(10000, '}');
  EXPECT_THAT(Decode(Record(deep)).message(),
              HasSubstr("the record value is nested deeper than 64 levels"));
  SinkSettings flatten = Settings();
  flatten.nested = NestedBehavior::kFlatten;
  EXPECT_THAT(Decode(Record(deep), flatten).message(), HasSubstr("nested deeper than 64"));
  // The same depth in the key.
  EXPECT_THAT(Decode(Record(R"({"a":1})", deep)).message(),
              HasSubstr("the record key looks like a JSON object but is nested deeper"));
}

TEST(PoisonTest, InvalidUtf8) {
  EXPECT_THAT(Decode(Record("{\"short_description\":\"\xc3\x28\"}")).message(),
              HasSubstr("not valid JSON"));
  // In a key: not a sys_id, and the message shows the bytes escaped.
  Status st = Decode(Record(R"({"a":1})", "\xff\xfe\n"));
  EXPECT_THAT(st.message(), HasSubstr("'\\xff\\xfe'"));
  EXPECT_THAT(st.message(), Not(HasSubstr("\xff")));
}

TEST(PoisonTest, InvalidSysIds) {
  for (const char* key :
       {"12345", "0123456789abcdef0123456789abcdeX", "0123456789abcdef 0123456789abcde",
        "../../sys_user", "0123456789abcdef0123456789abcdef^ORactive=true"}) {
    Status st = Decode(Record(R"({"a":1})", key));
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << key;
    EXPECT_THAT(st.message(), HasSubstr("is not a sys_id (32 hexadecimal digits)")) << key;
  }
}

TEST(PoisonTest, TableNameInjectionViaHeader) {
  SinkSettings s = Settings();
  s.routing = RoutingMode::kHeader;
  s.table_allowlist = {"incident"};
  for (const char* table : {"../sys_user", "incident/../sys_user", "incident?sysparm_query=x",
                            "incident%2F..", "sys_user\n"}) {
    Status st = Decode(Record(R"({"a":1})", kId1, {{"snow.table", table}}), s);
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << table;
    EXPECT_THAT(st.message(), HasSubstr("is not a table name")) << table;
  }
}

TEST(PoisonTest, RepeatedFieldNames) {
  EXPECT_THAT(Decode(Record(R"({"a":"1","a":"2"})")).message(),
              HasSubstr("the member name 'a' appears twice in one object"));
}

TEST(PoisonTest, ManyFieldsAreFine) {
  std::string value = "{";
  for (int i = 0; i < 50000; ++i) value += (i ? ",\"f" : "\"f") + std::to_string(i) + "\":1";
  value += "}";
  auto c = DecodeCommand(Record(value), Settings());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->fields.size(), 50000U);
}

// Random damage to valid records (flipped, inserted and dropped bytes, in the value, the key and
// the headers) under every nested and null policy: the decoder answers each one with a value
// or an InvalidArgument that has a message. Fixed seed, so a failure is reproducible.
TEST(PoisonTest, RandomlyDamagedRecordsNeverCrash) {
  const std::vector<std::string> values = {
      R"({"short_description":"x","n":1.5e3,"b":true,"z":null,"o":{"p":[1,{"q":"r"}]}})",
      R"({"sys_id":"0123456789abcdef0123456789abcdef","u_ext_id":"A-1","big":123456789012345678901})",
      R"([1,2,{"a":"\u00e9\n"}])"};
  const std::vector<std::string> keys = {kId1, R"({"sys_id":"0123456789abcdef0123456789abcdef"})",
                                         R"("0123456789abcdef0123456789abcdef")"};
  static constexpr char kNoise[] = {'{', '}',  '[',    ']', '"', ':', ',',
                                    '^', '\n', '\xff', '0', 'e', '-'};
  std::mt19937 rng(20261202);
  const auto damage = [&rng](std::string text) {
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      const size_t at = rng() % text.size();
      switch (rng() % 3) {
        case 0:
          text[at] = static_cast<char>(rng() % 256);
          break;
        case 1:
          text.insert(at, 1, kNoise[rng() % sizeof(kNoise)]);
          break;
        default:
          text.erase(at, 1 + rng() % 3);
      }
    }
    return text;
  };
  SinkSettings s = Settings();
  s.ambiguous_create = AmbiguousCreateBehavior::kCorrelationLookup;
  s.correlation_field = "u_ext_id";
  int accepted = 0;
  for (int i = 0; i < 20000; ++i) {
    s.nested = static_cast<NestedBehavior>(i % 3);
    s.null_behavior = static_cast<NullBehavior>((i / 3) % 3);
    s.sys_id_precedence = static_cast<SysIdPrecedence>((i / 9) % 3);
    kafka::InRecord r = Record(damage(values[rng() % values.size()]));
    if (rng() % 2 == 0) r.key = damage(keys[rng() % keys.size()]);
    if (rng() % 4 == 0) r.headers.push_back({"snow.operation", damage("UPSERT")});
    if (rng() % 4 == 0) r.headers.push_back({"snow.sys_id", damage(kId1)});
    auto c = DecodeCommand(r, s);
    if (c.ok()) {
      ++accepted;
      for (const auto& member : c->fields) ASSERT_TRUE(member.value().is_string());
    } else {
      ASSERT_EQ(c.status().code(), StatusCode::kInvalidArgument);
      ASSERT_FALSE(c.status().message().empty());
    }
  }
  // Some damage is harmless (inside a string); the test must exercise both outcomes.
  EXPECT_GT(accepted, 100);
  EXPECT_LT(accepted, 19000);
}

}  // namespace
}  // namespace snowcar::sink
