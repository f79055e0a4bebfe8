// SPDX-License-Identifier: Apache-2.0
// Avro logical types rendered as the text the Table API takes: payloads written by avro-c
// (avro_payload.h) from schemas that carry each logical type, including the exact shapes
// Kafka Connect's AvroConverter registers.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>

#include "avro_payload.h"
#include "snowcar/schema_registry/framed_decoder.h"

namespace snowcar::schema_registry {
namespace {

using avro_test::AvroPayload;
using ::testing::HasSubstr;

void Field(avro_value_t& record, const char* name, const std::function<void(avro_value_t&)>& f) {
  avro_value_t v;
  ASSERT_EQ(avro_value_get_by_name(&record, name, &v, nullptr), 0) << name;
  f(v);
}

auto Long(int64_t i) {
  return [i](avro_value_t& v) { ASSERT_EQ(avro_value_set_long(&v, i), 0); };
}
auto Int(int32_t i) {
  return [i](avro_value_t& v) { ASSERT_EQ(avro_value_set_int(&v, i), 0); };
}
auto Bytes(std::string b) {
  return [b](avro_value_t& v) {
    ASSERT_EQ(avro_value_set_bytes(&v, const_cast<char*>(b.data()), b.size()), 0);
  };
}
std::string Hex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

boost::json::object Decode(std::string_view schema, const std::function<void(avro_value_t&)>& f) {
  const std::string payload = AvroPayload(schema, f);
  auto json = AvroToJson(schema, payload);
  EXPECT_TRUE(json.ok()) << json.status().message();
  if (!json.ok()) return {};
  return boost::json::parse(*json).as_object();
}

// Kafka Connect's AvroConverter, for a struct with Timestamp, Date, Time and Decimal(scale 2)
// fields, the optional ones as unions with null first.
constexpr char kConnectSchema[] = R"({"type":"record","name":"Command","namespace":"acme",
  "fields":[
    {"name":"opened_at","type":{"type":"long","connect.version":1,
      "connect.name":"org.apache.kafka.connect.data.Timestamp","logicalType":"timestamp-millis"}},
    {"name":"due","type":["null",{"type":"int","connect.version":1,
      "connect.name":"org.apache.kafka.connect.data.Date","logicalType":"date"}],"default":null},
    {"name":"at","type":{"type":"int","connect.version":1,
      "connect.name":"org.apache.kafka.connect.data.Time","logicalType":"time-millis"}},
    {"name":"cost","type":["null",{"type":"bytes","scale":2,"precision":64,"connect.version":1,
      "connect.parameters":{"scale":"2"},"connect.name":"org.apache.kafka.connect.data.Decimal",
      "logicalType":"decimal"}],"default":null},
    {"name":"short_description","type":"string"}]})";

void SetBranch(avro_value_t& u, int branch, const std::function<void(avro_value_t&)>& f) {
  avro_value_t b;
  ASSERT_EQ(avro_value_set_branch(&u, branch, &b), 0);
  f(b);
}

TEST(AvroLogicalTest, ConnectShapesBecomeTableApiText) {
  auto o = Decode(kConnectSchema, [](avro_value_t& r) {
    Field(r, "opened_at", Long(1733300000123));  // 2024-12-04 08:13:20.123 UTC
    Field(r, "due", [](avro_value_t& u) { SetBranch(u, 1, Int(20061)); });
    Field(r, "at", Int(((13 * 60 + 5) * 60 + 9) * 1000 + 999));
    Field(r, "cost", [](avro_value_t& u) { SetBranch(u, 1, Bytes(Hex("04d2"))); });  // 1234
    Field(r, "short_description", [](avro_value_t& v) { avro_value_set_string(&v, "x"); });
  });
  EXPECT_EQ(o.at("opened_at"), "2024-12-04 08:13:20") << "whole seconds: the millis are dropped";
  EXPECT_EQ(o.at("due"), "2024-12-04");
  EXPECT_EQ(o.at("at"), "13:05:09");
  EXPECT_EQ(o.at("cost"), "12.34");
  EXPECT_EQ(o.at("short_description"), "x");

  auto nulls = Decode(kConnectSchema, [](avro_value_t& r) {
    Field(r, "opened_at", Long(-1));
    Field(r, "due", [](avro_value_t& u) {
      SetBranch(u, 0, [](avro_value_t& n) { avro_value_set_null(&n); });
    });
    Field(r, "at", Int(0));
    Field(r, "cost", [](avro_value_t& u) {
      SetBranch(u, 0, [](avro_value_t& n) { avro_value_set_null(&n); });
    });
    Field(r, "short_description", [](avro_value_t& v) { avro_value_set_string(&v, ""); });
  });
  EXPECT_EQ(nulls.at("opened_at"), "1969-12-31 23:59:59") << "before the epoch rounds down";
  EXPECT_TRUE(nulls.at("due").is_null());
  EXPECT_EQ(nulls.at("at"), "00:00:00");
  EXPECT_TRUE(nulls.at("cost").is_null());
}

constexpr char kEveryType[] = R"({"type":"record","name":"R","fields":[
  {"name":"ts_us","type":{"type":"long","logicalType":"timestamp-micros"}},
  {"name":"local_ms","type":{"type":"long","logicalType":"local-timestamp-millis"}},
  {"name":"local_us","type":{"type":"long","logicalType":"local-timestamp-micros"}},
  {"name":"t_us","type":{"type":"long","logicalType":"time-micros"}},
  {"name":"id","type":{"type":"string","logicalType":"uuid"}},
  {"name":"money","type":{"type":"fixed","name":"Money","size":13,"logicalType":"decimal",
                          "precision":30,"scale":4}},
  {"name":"more_money","type":"Money"},
  {"name":"unknown","type":{"type":"long","logicalType":"not-a-type"}},
  {"name":"misplaced","type":{"type":"int","logicalType":"timestamp-millis"}},
  {"name":"bad_scale","type":{"type":"bytes","logicalType":"decimal","precision":2,"scale":3}}]})";

TEST(AvroLogicalTest, EveryLogicalTypeAndTheOnesToIgnore) {
  auto o = Decode(kEveryType, [](avro_value_t& r) {
    Field(r, "ts_us", Long(1733300000999999));
    Field(r, "local_ms", Long(86400000));
    Field(r, "local_us", Long(253402300799000000));  // 9999-12-31 23:59:59, the last second
    Field(r, "t_us", Long(86399999999));
    Field(r, "id", [](avro_value_t& v) {
      avro_value_set_string(&v, "1b4e28ba-2fa1-11d2-883f-0016d3cca427");
    });
    const std::string big = Hex("fe7116f0093c8c1f11b1c0f52e");  // -1234567890...67890
    Field(r, "money", [&](avro_value_t& v) {
      ASSERT_EQ(avro_value_set_fixed(&v, const_cast<char*>(big.data()), big.size()), 0);
    });
    const std::string small = Hex("fffffffffffffffffffffffffb");  // -5
    Field(r, "more_money", [&](avro_value_t& v) {
      ASSERT_EQ(avro_value_set_fixed(&v, const_cast<char*>(small.data()), small.size()), 0);
    });
    Field(r, "unknown", Long(42));
    Field(r, "misplaced", Int(7));
    Field(r, "bad_scale", Bytes("AB"));
  });
  EXPECT_EQ(o.at("ts_us"), "2024-12-04 08:13:20");
  EXPECT_EQ(o.at("local_ms"), "1970-01-02 00:00:00") << "a local date-time is not converted";
  EXPECT_EQ(o.at("local_us"), "9999-12-31 23:59:59");
  EXPECT_EQ(o.at("t_us"), "23:59:59");
  EXPECT_EQ(o.at("id"), "1b4e28ba-2fa1-11d2-883f-0016d3cca427");
  EXPECT_EQ(o.at("money"), "-12345678901234567890123456.7890") << "beyond 64 bits, exact";
  EXPECT_EQ(o.at("more_money"), "-0.0005") << "a reference to a named decimal fixed";
  EXPECT_EQ(o.at("unknown"), 42) << "an unknown logical type reads as its physical type";
  EXPECT_EQ(o.at("misplaced"), 7) << "a logical type on the wrong type is ignored";
  EXPECT_EQ(o.at("bad_scale"), "AB") << "a decimal with scale > precision is ignored";
}

TEST(AvroLogicalTest, DecimalDigits) {
  constexpr char kSchema[] = R"({"type":"record","name":"D","fields":[
    {"name":"s2","type":{"type":"bytes","logicalType":"decimal","precision":9,"scale":2}},
    {"name":"s0","type":{"type":"bytes","logicalType":"decimal","precision":9}}]})";
  auto decimal = [&](std::string s2, std::string s0) {
    return Decode(kSchema, [&](avro_value_t& r) {
      Field(r, "s2", Bytes(Hex(s2)));
      Field(r, "s0", Bytes(Hex(s0)));
    });
  };
  auto a = decimal("fffb", "80");
  EXPECT_EQ(a.at("s2"), "-0.05");
  EXPECT_EQ(a.at("s0"), "-128");
  auto b = decimal("00", "7f");
  EXPECT_EQ(b.at("s2"), "0.00");
  EXPECT_EQ(b.at("s0"), "127");
  auto c = decimal("0186a0", "ff");  // 100000
  EXPECT_EQ(c.at("s2"), "1000.00");
  EXPECT_EQ(c.at("s0"), "-1");
}

// A record with nested and repeated places for logical values, to check the walk follows
// arrays, maps, named records (also recursive) and namespaces.
constexpr char kNested[] = R"({"type":"record","name":"Order","namespace":"shop","fields":[
  {"name":"lines","type":{"type":"array","items":{"type":"record","name":"Line","fields":[
    {"name":"day","type":{"type":"int","logicalType":"date"}},
    {"name":"next","type":["null","Line"],"default":null}]}}},
  {"name":"prices","type":{"type":"map","values":{"type":"bytes","logicalType":"decimal",
                                                  "precision":5,"scale":1}}},
  {"name":"first","type":"shop.Line"}]})";

void SetLine(avro_value_t& line, int32_t day, std::optional<int32_t> next_day) {
  Field(line, "day", Int(day));
  Field(line, "next", [&](avro_value_t& u) {
    if (!next_day.has_value()) {
      SetBranch(u, 0, [](avro_value_t& n) { avro_value_set_null(&n); });
    } else {
      SetBranch(u, 1, [&](avro_value_t& n) { SetLine(n, *next_day, std::nullopt); });
    }
  });
}

std::string NestedPayload(int32_t second_day) {
  return AvroPayload(kNested, [&](avro_value_t& r) {
    Field(r, "lines", [&](avro_value_t& a) {
      avro_value_t item;
      avro_value_append(&a, &item, nullptr);
      SetLine(item, 0, std::nullopt);
      avro_value_append(&a, &item, nullptr);
      SetLine(item, 1, second_day);
    });
    Field(r, "prices", [](avro_value_t& m) {
      avro_value_t item;
      avro_value_add(&m, "tea", &item, nullptr, nullptr);
      std::string fifteen = Hex("0f");
      avro_value_set_bytes(&item, fifteen.data(), fifteen.size());
    });
    Field(r, "first", [](avro_value_t& l) { SetLine(l, 365, std::nullopt); });
  });
}

TEST(AvroLogicalTest, ArraysMapsRecursiveAndNamespacedReferences) {
  auto json = AvroToJson(kNested, NestedPayload(-1));
  ASSERT_TRUE(json.ok()) << json.status().message();
  EXPECT_EQ(boost::json::parse(*json), boost::json::parse(R"({
      "lines":[{"day":"1970-01-01","next":null},
               {"day":"1970-01-02","next":{"day":"1969-12-31","next":null}}],
      "prices":{"tea":"1.5"},
      "first":{"day":"1971-01-01","next":null}})"));
}

TEST(AvroLogicalTest, ValueWithoutTableApiTextIsRefusedNamingFieldAndValue) {
  auto far = AvroToJson(kNested, NestedPayload(2932897));  // 10000-01-01
  ASSERT_FALSE(far.ok());
  EXPECT_EQ(far.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(far.status().message(), HasSubstr("field 'lines[1].next.day'"));
  EXPECT_THAT(far.status().message(), HasSubstr("date value 2932897"));
  EXPECT_THAT(far.status().message(), HasSubstr("0001-9999"));

  auto before = AvroToJson(kConnectSchema, AvroPayload(kConnectSchema, [](avro_value_t& r) {
                             Field(r, "opened_at", Long(0));
                             Field(r, "due", [](avro_value_t& u) {
                               SetBranch(u, 0, [](avro_value_t& n) { avro_value_set_null(&n); });
                             });
                             Field(r, "at", Int(-1));
                             Field(r, "cost", [](avro_value_t& u) { SetBranch(u, 1, Bytes("")); });
                             Field(r, "short_description",
                                   [](avro_value_t& v) { avro_value_set_string(&v, ""); });
                           }));
  ASSERT_FALSE(before.ok());
  EXPECT_THAT(before.status().message(), HasSubstr("field 'at'"));
  EXPECT_THAT(before.status().message(), HasSubstr("time-millis value -1"));

  constexpr char kBytesOnly[] =
      R"({"type":"bytes","logicalType":"decimal","precision":4,"scale":2})";
  auto empty = AvroToJson(kBytesOnly, AvroPayload(kBytesOnly, Bytes("")));
  ASSERT_FALSE(empty.ok());
  EXPECT_THAT(empty.status().message(), HasSubstr("decimal has no bytes"));
  auto huge = AvroToJson(kBytesOnly, AvroPayload(kBytesOnly, Bytes(std::string(2000, '\1'))));
  ASSERT_FALSE(huge.ok());
  EXPECT_THAT(huge.status().message(), HasSubstr("2000 bytes"));
}

TEST(AvroLogicalTest, TopLevelLogicalValueAndOversizedScale) {
  constexpr char kTs[] = R"({"type":"long","logicalType":"timestamp-millis"})";
  auto ts = AvroToJson(kTs, AvroPayload(kTs, Long(0)));
  ASSERT_TRUE(ts.ok()) << ts.status().message();
  EXPECT_EQ(*ts, R"("1970-01-01 00:00:00")");

  constexpr char kScale[] = R"({"type":"bytes","logicalType":"decimal","scale":100000})";
  auto scale = AvroToJson(kScale, AvroPayload(kScale, Bytes("\1")));
  ASSERT_FALSE(scale.ok());
  EXPECT_THAT(scale.status().message(), HasSubstr("scale 100000"));
}

}  // namespace
}  // namespace snowcar::schema_registry
