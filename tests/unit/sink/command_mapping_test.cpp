// SPDX-License-Identifier: Apache-2.0
// Mapping: rename, allow/deny lists, reserved names, null and nested policies, value
// rendering, correlation values, and the unknown-field policy. Bodies are compared as exact
// JSON text (member order included).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json/serialize.hpp>

#include "command_test_util.h"

namespace snowcar::sink {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::Record;
using testing::Settings;

// The mapped body of a CREATE with `value`, as JSON text; or the error message.
std::string MappedBody(const std::string& value, const SinkSettings& s = Settings()) {
  auto c = DecodeCommand(Record(value), s);
  if (!c.ok()) return "error: " + c.status().message();
  return boost::json::serialize(c->fields);
}

TEST(MappingTest, ScalarsBecomeStrings) {
  EXPECT_EQ(MappedBody(R"({"a":"text","b":2,"c":2.0,"d":2.5,"e":true,"f":false,"g":-0.50})"),
            R"({"a":"text","b":"2","c":"2","d":"2.5","e":"true","f":"false","g":"-0.5"})");
}

TEST(MappingTest, BigIntegersAndLongDecimalsStayExact) {
  EXPECT_EQ(MappedBody(R"({"big":123456789012345678901234567890,"u":18446744073709551615,)"
                       R"("neg":-9223372036854775809,"dec":0.30000000000000000001,"e":1E2})"),
            R"({"big":"123456789012345678901234567890","u":"18446744073709551615",)"
            R"("neg":"-9223372036854775809","dec":"0.30000000000000000001","e":"100"})");
}

TEST(MappingTest, RenameAppliesToTheRecordNamesAtOnce) {
  SinkSettings s = Settings();
  s.renames = {{"title", "short_description"}, {"a", "b"}, {"b", "a"}};
  EXPECT_EQ(MappedBody(R"({"title":"t","a":"1","b":"2","other":"o"})", s),
            R"({"short_description":"t","b":"1","a":"2","other":"o"})");
  EXPECT_THAT(MappedBody(R"({"title":"t","short_description":"s"})", s),
              HasSubstr("fields 'title' and 'short_description' both become 'short_description' "
                        "after snow.sink.field.rename"));
}

TEST(MappingTest, AllowlistUsesRenamedNames) {
  SinkSettings s = Settings();
  s.renames = {{"title", "short_description"}};
  s.field_allowlist = {"short_description", "priority"};
  EXPECT_EQ(MappedBody(R"({"title":"t","priority":1,"secret":"x"})", s),
            R"({"short_description":"t","priority":"1"})");
}

// Found by the sink_command fuzzer: no column has an empty name.
TEST(MappingTest, EmptyFieldNameIsRefused) {
  EXPECT_THAT(MappedBody(R"({"":"a","short_description":"b"})"),
              HasSubstr("error: the record value has a field with an empty name"));
}

TEST(MappingTest, Denylist) {
  SinkSettings s = Settings();
  s.field_denylist = {"internal", "title"};
  s.renames = {{"title", "short_description"}};
  EXPECT_EQ(MappedBody(R"({"title":"t","internal":"x","impact":2})", s),
            R"({"short_description":"t","impact":"2"})");
}

TEST(MappingTest, ReservedNamesAreDropped) {
  EXPECT_EQ(
      MappedBody(R"({"sys_id":null,"sys_created_on":"x","sys_created_by":"y",)"
                 R"("sys_updated_on":"z","sys_updated_by":"w","sys_mod_count":3,)"
                 R"("snow.table":"t","snow.operation":"o","sys_class_name":"incident","a":"1"})"),
      R"({"sys_class_name":"incident","a":"1"})");
  SinkSettings s = Settings();
  s.operation_header = "op";
  s.table_header = "tbl";
  EXPECT_EQ(MappedBody(R"({"op":"x","tbl":"y","snow.operation":"z"})", s),
            R"({"snow.operation":"z"})");
}

TEST(MappingTest, NullPolicies) {
  const std::string value = R"({"a":null,"b":"1"})";
  SinkSettings s = Settings();
  EXPECT_EQ(MappedBody(value, s), R"({"b":"1"})");
  s.null_behavior = NullBehavior::kClear;
  EXPECT_EQ(MappedBody(value, s), R"({"a":"","b":"1"})");
  s.null_behavior = NullBehavior::kReject;
  EXPECT_EQ(MappedBody(value, s),
            "error: field 'a' is null, and snow.sink.null.behavior is reject");
}

TEST(MappingTest, NestedReject) {
  EXPECT_EQ(MappedBody(R"({"caller":{"name":"x"}})"),
            "error: field 'caller' is an object, and snow.sink.nested.behavior is reject "
            "(flatten or stringify accept it)");
  EXPECT_THAT(MappedBody(R"({"list":[1,2]})"), HasSubstr("field 'list' is an array"));
}

TEST(MappingTest, NestedStringify) {
  SinkSettings s = Settings();
  s.nested = NestedBehavior::kStringify;
  EXPECT_EQ(MappedBody(R"({"caller":{"name":"x","n":1.0,"z":null}, "list":[1, "a", [true]]})", s),
            R"({"caller":"{\"name\":\"x\",\"n\":1,\"z\":null}","list":"[1,\"a\",[true]]"})");
}

TEST(MappingTest, NestedFlattenRecursively) {
  SinkSettings s = Settings();
  s.nested = NestedBehavior::kFlatten;
  EXPECT_EQ(MappedBody(R"({"a":{"b":1,"c":{"d":true,"e":"x"},"l":[1,2]},"f":"g","empty":{}})", s),
            R"({"a_b":"1","a_c_d":"true","a_c_e":"x","a_l":"[1,2]","f":"g"})");
  s.flatten_delimiter = ".";
  EXPECT_EQ(MappedBody(R"({"a":{"b":1}})", s), R"({"a.b":"1"})");
}

TEST(MappingTest, FlattenAppliesTheNullPolicyToLeaves) {
  SinkSettings s = Settings();
  s.nested = NestedBehavior::kFlatten;
  EXPECT_EQ(MappedBody(R"({"a":{"b":null,"c":"1"}})", s), R"({"a_c":"1"})");
  s.null_behavior = NullBehavior::kClear;
  EXPECT_EQ(MappedBody(R"({"a":{"b":null,"c":"1"}})", s), R"({"a_b":"","a_c":"1"})");
  s.null_behavior = NullBehavior::kReject;
  EXPECT_THAT(MappedBody(R"({"a":{"b":null}})", s), HasSubstr("field 'a_b' is null"));
}

TEST(MappingTest, FlattenCollisionIsAnError) {
  SinkSettings s = Settings();
  s.nested = NestedBehavior::kFlatten;
  EXPECT_THAT(MappedBody(R"({"a_b":"1","a":{"b":"2"}})", s),
              HasSubstr("field 'a_b' is produced twice"));
}

TEST(MappingTest, FlattenedReservedNamesAreDropped) {
  SinkSettings s = Settings();
  s.nested = NestedBehavior::kFlatten;
  EXPECT_EQ(MappedBody(R"({"sys":{"id":"x","updated_on":"y","class_name":"z"}})", s),
            R"({"sys_class_name":"z"})");
}

TEST(MappingTest, ValueMustBeAnObject) {
  EXPECT_EQ(MappedBody("[1,2]"),
            "error: the record value is an array; a command's value must be a JSON object of "
            "fields");
  EXPECT_THAT(MappedBody("\"text\""), HasSubstr("the record value is a string"));
  EXPECT_THAT(MappedBody("42"), HasSubstr("the record value is a number"));
  EXPECT_THAT(MappedBody("null"), HasSubstr("the record value is null"));
}

SinkSettings Correlation() {
  SinkSettings s = Settings();
  s.ambiguous_create = AmbiguousCreateBehavior::kCorrelationLookup;
  s.correlation_field = "u_ext_id";
  return s;
}

TEST(CorrelationTest, ValueTakenFromTheMappedBody) {
  SinkSettings s = Correlation();
  s.renames = {{"ext", "u_ext_id"}};
  auto c = DecodeCommand(Record(R"({"ext":"ORD-17","short_description":"x"})"), s);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->correlation_value, "ORD-17");
  c = DecodeCommand(Record(R"({"ext":12})"), s);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->correlation_value, "12");
}

TEST(CorrelationTest, OnlyForCreates) {
  auto c = DecodeCommand(Record(R"({"short_description":"x"})", testing::kId1), Correlation());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->operation, Operation::kPatch);
  EXPECT_EQ(c->correlation_value, "");
  SinkSettings s = Correlation();
  s.ambiguous_create = AmbiguousCreateBehavior::kRetry;
  EXPECT_TRUE(DecodeCommand(Record(R"({"short_description":"x"})"), s).ok());
}

TEST(CorrelationTest, MissingValueIsARecordError) {
  for (const char* value :
       {R"({"short_description":"x"})", R"({"u_ext_id":null})", R"({"u_ext_id":""})"}) {
    auto c = DecodeCommand(Record(value), Correlation());
    ASSERT_FALSE(c.ok()) << value;
    EXPECT_THAT(c.status().message(),
                HasSubstr("field 'u_ext_id' (snow.sink.correlation.field) is missing or empty"));
  }
}

TEST(CorrelationTest, ValuesThatWouldChangeTheQueryAreRefused) {
  auto c = DecodeCommand(Record(R"({"u_ext_id":"x^ORsys_id!=y"})"), Correlation());
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(),
              HasSubstr("field 'u_ext_id' value 'x^ORsys_id!=y' contains '^', which would "
                        "change the meaning of the correlation lookup query"));
  for (const char* value : {R"({"u_ext_id":"a\nb"})", R"({"u_ext_id":"a\r\nb"})"}) {
    c = DecodeCommand(Record(value), Correlation());
    ASSERT_FALSE(c.ok()) << value;
    EXPECT_THAT(c.status().message(), HasSubstr("contains a line break"));
  }
  // Upserts without a sys_id are creates, so they are checked too.
  c = DecodeCommand(
      Record(R"({"u_ext_id":"x^NQsys_id=1"})", std::nullopt, {{"snow.operation", "UPSERT"}}),
      Correlation());
  EXPECT_THAT(c.status().message(), HasSubstr("contains '^'"));
}

// The instance runs a query value that begins with "javascript:" instead of comparing it.
TEST(CorrelationTest, ScriptValuesAreRefused) {
  for (const char* value :
       {R"j({"u_ext_id":"javascript:gs.getUserID()"})j", R"({"u_ext_id":"JavaScript:1"})",
        R"({"u_ext_id":"  javascript:1"})", R"({"u_ext_id":"\tJAVASCRIPT:x"})"}) {
    auto c = DecodeCommand(Record(value), Correlation());
    ASSERT_FALSE(c.ok()) << value;
    EXPECT_THAT(c.status().message(), HasSubstr("starts with 'javascript:'")) << value;
  }
  // Only as a prefix: the same text later in the value is compared like any other.
  for (const char* value : {R"({"u_ext_id":"ext javascript:1"})", R"({"u_ext_id":"javascript"})"}) {
    auto c = DecodeCommand(Record(value), Correlation());
    ASSERT_TRUE(c.ok()) << value << ": " << c.status().ToString();
  }
}

TEST(UnknownFieldTest, Policies) {
  const std::set<std::string> columns = {"short_description", "priority"};
  auto decode = [] {
    return DecodeCommand(Record(R"({"short_description":"x","prio":"1","zzz":"2"})"), Settings())
        .value();
  };
  SinkSettings s = Settings();

  Command c = decode();
  Status st = ApplyUnknownFieldPolicy(c, columns, s, nullptr);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(st.message(), HasSubstr("table 'incident' has no column 'prio', 'zzz'"));
  EXPECT_THAT(st.message(), HasSubstr("snow.sink.unknown.field.behavior"));

  s.unknown_field = UnknownFieldBehavior::kDrop;
  c = decode();
  std::vector<std::string> reported;
  ASSERT_TRUE(ApplyUnknownFieldPolicy(c, columns, s, &reported).ok());
  EXPECT_EQ(boost::json::serialize(c.fields), R"({"short_description":"x"})");
  EXPECT_TRUE(reported.empty());

  s.unknown_field = UnknownFieldBehavior::kReport;
  c = decode();
  ASSERT_TRUE(ApplyUnknownFieldPolicy(c, columns, s, &reported).ok());
  EXPECT_EQ(boost::json::serialize(c.fields), R"({"short_description":"x"})");
  EXPECT_THAT(reported, ElementsAre("prio", "zzz"));

  s.unknown_field = UnknownFieldBehavior::kPassthrough;
  c = decode();
  ASSERT_TRUE(ApplyUnknownFieldPolicy(c, columns, s, nullptr).ok());
  EXPECT_EQ(c.fields.size(), 3U);
}

TEST(UnknownFieldTest, KnownFieldsPassAndLongListsAreCut) {
  SinkSettings s = Settings();
  Command c = DecodeCommand(Record(R"({"short_description":"x"})"), s).value();
  EXPECT_TRUE(ApplyUnknownFieldPolicy(c, {"short_description"}, s, nullptr).ok());
  std::string value = "{";
  for (int i = 0; i < 15; ++i) value += (i ? "," : "") + ("\"f" + std::to_string(i + 10) + "\":1");
  value += "}";
  c = DecodeCommand(Record(value), s).value();
  Status st = ApplyUnknownFieldPolicy(c, {}, s, nullptr);
  EXPECT_THAT(st.message(), HasSubstr("and 5 more"));
}

}  // namespace
}  // namespace snowcar::sink
