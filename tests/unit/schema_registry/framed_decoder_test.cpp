// SPDX-License-Identifier: Apache-2.0
// FramedDecoder: payloads written by avro-c's own writer (avro_payload.h), schemas registered
// in the registry double over a real socket.
#include "snowcar/schema_registry/framed_decoder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cmath>

#include "avro_payload.h"
#include "snowcar/schema_registry/wire_format.h"
#include "snowcar/testbed/registry/registry_server.h"

namespace snowcar::schema_registry {
namespace {

using avro_test::AvroPayload;
using ::testing::HasSubstr;

constexpr char kCommand[] = R"({"type":"record","name":"Command","fields":[
    {"name":"short_description","type":"string"},
    {"name":"priority","type":["null","int"],"default":null},
    {"name":"active","type":"boolean"},
    {"name":"state","type":{"type":"enum","name":"State","symbols":["NEW","CLOSED"]}},
    {"name":"tags","type":{"type":"array","items":"string"}},
    {"name":"score","type":"double"}]})";

void Set(avro_value_t& record, const char* field, const std::function<void(avro_value_t&)>& f) {
  avro_value_t v;
  ASSERT_EQ(avro_value_get_by_name(&record, field, &v, nullptr), 0) << field;
  f(v);
}

std::string CommandPayload(bool with_priority) {
  return AvroPayload(kCommand, [&](avro_value_t& r) {
    Set(r, "short_description", [](avro_value_t& v) { avro_value_set_string(&v, "Printer ünd"); });
    Set(r, "priority", [&](avro_value_t& v) {
      avro_value_t branch;
      if (with_priority) {
        avro_value_set_branch(&v, 1, &branch);
        avro_value_set_int(&branch, 2);
      } else {
        avro_value_set_branch(&v, 0, &branch);
        avro_value_set_null(&branch);
      }
    });
    Set(r, "active", [](avro_value_t& v) { avro_value_set_boolean(&v, 1); });
    Set(r, "state", [](avro_value_t& v) { avro_value_set_enum(&v, 1); });
    Set(r, "tags", [](avro_value_t& v) {
      avro_value_t item;
      avro_value_append(&v, &item, nullptr);
      avro_value_set_string(&item, "a");
      avro_value_append(&v, &item, nullptr);
      avro_value_set_string(&item, "b");
    });
    Set(r, "score", [](avro_value_t& v) { avro_value_set_double(&v, 2.5); });
  });
}

class FramedDecoderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.Start().ok());
    RegistryOptions o;
    o.url = server_.base_url();
    o.retry.max_attempts = 1;
    client_ = std::move(SchemaRegistryClient::Create(o)).value();
  }
  registry::RegistryServer server_{{}};
  std::unique_ptr<SchemaRegistryClient> client_;
};

TEST_F(FramedDecoderTest, AvroRecordBecomesPlainJson) {
  const int32_t id = *client_->RegisterSchema("cmd-value", SchemaType::kAvro, kCommand);
  FramedDecoder decoder(*client_);
  auto json = decoder.ToJson(Frame(id, CommandPayload(true)));
  ASSERT_TRUE(json.ok()) << json.status().message();
  EXPECT_EQ(boost::json::parse(*json), boost::json::parse(R"({"short_description":"Printer ünd",
      "priority":2,"active":true,"state":"CLOSED","tags":["a","b"],"score":2.5})"));

  auto null_branch = decoder.ToJson(Frame(id, CommandPayload(false)));
  ASSERT_TRUE(null_branch.ok());
  EXPECT_TRUE(boost::json::parse(*null_branch).as_object().at("priority").is_null());
}

TEST_F(FramedDecoderTest, AvroStringDecodesToTheBareString) {
  const int32_t id = *client_->RegisterSchema("cmd-key", SchemaType::kAvro, R"("string")");
  const std::string payload =
      AvroPayload(R"("string")", [](avro_value_t& v) { avro_value_set_string(&v, "abc"); });
  EXPECT_EQ(*FramedDecoder(*client_).ToJson(Frame(id, payload)), "abc");
}

TEST_F(FramedDecoderTest, UnknownIdIsNotFound) {
  auto r = FramedDecoder(*client_).ToJson(Frame(999, "x"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(r.status().message(), HasSubstr("schema id 999"));
}

TEST_F(FramedDecoderTest, TruncatedOrOverlongPayloadIsRefused) {
  const int32_t id = *client_->RegisterSchema("cmd-value", SchemaType::kAvro, kCommand);
  FramedDecoder decoder(*client_);
  const std::string payload = CommandPayload(true);
  auto cut = decoder.ToJson(Frame(id, payload.substr(0, payload.size() - 3)));
  ASSERT_FALSE(cut.ok());
  EXPECT_EQ(cut.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(cut.status().message(), HasSubstr("does not decode"));
  auto longer = decoder.ToJson(Frame(id, payload + "zz"));
  ASSERT_FALSE(longer.ok());
  EXPECT_THAT(longer.status().message(), HasSubstr("left over"));
}

TEST(AvroHostileLengthTest, ClaimedLengthBeyondThePayloadIsRefused) {
  // A bytes value claiming 10^9 bytes (the varint of 2 * 10^9, zigzag) followed by three.
  // avro-c's reader would allocate the gigabyte before noticing, and leak it; the decoder
  // refuses it first (the fuzz target, under LeakSanitizer, is what sees the difference).
  auto r = AvroToJson(R"("bytes")", std::string("\x80\xa8\xd6\xb9\x07"
                                                "abc",
                                                8));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("does not decode"));
}

TEST(AvroHostileValueTest, StringsThatAreNotUtf8AreRefused) {
  // avro-c writes and reads any bytes as a string; the rendered JSON would not be JSON.
  auto string = AvroToJson(R"("string")", AvroPayload(R"("string")", [](avro_value_t& v) {
                             avro_value_set_string(&v, "caf\xe9");
                           }));
  ASSERT_FALSE(string.ok());
  EXPECT_THAT(string.status().message(), HasSubstr("not valid UTF-8"));
  constexpr char kMap[] = R"({"type":"map","values":"int"})";
  auto key = AvroToJson(kMap, AvroPayload(kMap, [](avro_value_t& m) {
                          avro_value_t item;
                          avro_value_add(&m, "\xed\xa0\x80", &item, nullptr, nullptr);  // surrogate
                          avro_value_set_int(&item, 1);
                        }));
  ASSERT_FALSE(key.ok());
  EXPECT_THAT(key.status().message(), HasSubstr("map key is not valid UTF-8"));
  auto fine = AvroToJson(kMap, AvroPayload(kMap, [](avro_value_t& m) {
                           avro_value_t item;
                           avro_value_add(&m, "\xf0\x9f\x98\x80", &item, nullptr, nullptr);
                           avro_value_set_int(&item, 1);
                         }));
  ASSERT_TRUE(fine.ok()) << fine.status().message();
  EXPECT_EQ(*fine, "{\"\xf0\x9f\x98\x80\":1}");
}

TEST(AvroHostileLengthTest, ArraysOfItemsThatTakeNoBytesAreRefusedByTheirSchema) {
  // One byte claiming 2^62 items of null: nothing in the payload bounds that count, and avro-c
  // would loop over it (skipping or reading) for as long as it takes.
  const std::string hostile("\xff\xff\xff\xff\xff\xff\xff\xff\x7f\x00", 10);
  auto top = AvroToJson(R"({"type":"array","items":"null"})", hostile);
  ASSERT_FALSE(top.ok());
  EXPECT_EQ(top.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(top.status().message(), HasSubstr("array whose items take no bytes"));
  EXPECT_THAT(top.status().message(), HasSubstr("the top-level array"));
  constexpr char kNested[] = R"({"type":"record","name":"c","fields":[
      {"name":"n","type":"int"},
      {"name":"lines","type":{"type":"map","values":{"type":"array","items":
        {"type":"record","name":"empty","fields":[{"name":"z","type":"null"}]}}}}]})";
  auto nested = AvroToJson(kNested, std::string("\x02\x00", 2));
  ASSERT_FALSE(nested.ok());
  EXPECT_THAT(nested.status().message(), HasSubstr("(lines{})"));
  // Items that take a byte each (a union's branch index, an int) are bounded by the payload.
  constexpr char kBounded[] = R"({"type":"array","items":["null","int"]})";
  auto bounded = AvroToJson(kBounded, AvroPayload(kBounded, [](avro_value_t& a) {
                              avro_value_t item;
                              avro_value_t branch;
                              avro_value_append(&a, &item, nullptr);
                              avro_value_set_branch(&item, 0, &branch);
                              avro_value_set_null(&branch);
                            }));
  ASSERT_TRUE(bounded.ok()) << bounded.status().message();
  EXPECT_EQ(*bounded, "[null]");
  EXPECT_TRUE(AvroToJson(R"({"type":"map","values":"null"})", std::string("\x00", 1)).ok());
}

TEST(AvroHostileValueTest, AnEnumIndexPastItsSymbolsIsRefused) {
  // An enum is written as its index (zigzag varint); avro-c reads any index and looks the
  // symbol up without a bound. -3 (0x05), 2 (0x04, one past "B") and 1 000 000 are refused by
  // name; the symbols that exist still read.
  constexpr char kEnum[] = R"({"type":"enum","name":"E","symbols":["A","B"]})";
  for (const std::string& payload :
       {std::string("\x05", 1), std::string("\x04", 1), std::string("\x80\x89\x7a", 3)}) {
    auto r = AvroToJson(kEnum, payload);
    ASSERT_FALSE(r.ok()) << *r;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(r.status().message(), HasSubstr("names no symbol of its schema"));
  }
  auto b = AvroToJson(kEnum, std::string("\x02", 1));
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(*b, "\"B\"");
}

TEST(AvroHostileValueTest, NanAndInfinityAreRefused) {
  auto nan = AvroToJson(R"("double")", AvroPayload(R"("double")", [](avro_value_t& v) {
                          avro_value_set_double(&v, std::nan(""));
                        }));
  ASSERT_FALSE(nan.ok());
  EXPECT_THAT(nan.status().message(), HasSubstr("double is NaN"));
  auto inf = AvroToJson(R"("float")", AvroPayload(R"("float")", [](avro_value_t& v) {
                          avro_value_set_float(&v, -HUGE_VALF);
                        }));
  ASSERT_FALSE(inf.ok());
  EXPECT_THAT(inf.status().message(), HasSubstr("float is -infinity"));
}

TEST_F(FramedDecoderTest, JsonSchemaPayloadIsTheJsonItself) {
  const int32_t id = *client_->RegisterSchema(
      "j-value", SchemaType::kJson, R"({"type":"object","properties":{"a":{"type":"string"}}})");
  FramedDecoder decoder(*client_);
  EXPECT_EQ(*decoder.ToJson(Frame(id, R"({"a":"x"})")), R"({"a":"x"})");
  auto bad = decoder.ToJson(Frame(id, "{not json"));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("not JSON"));
}

TEST_F(FramedDecoderTest, PlainJsonIsNotMistakenForAFrame) {
  auto r = FramedDecoder(*client_).ToJson(R"({"a":"x"})");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("magic byte"));
}

}  // namespace
}  // namespace snowcar::schema_registry
