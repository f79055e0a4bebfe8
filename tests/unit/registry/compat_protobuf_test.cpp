// SPDX-License-Identifier: Apache-2.0
// The registry double's Protobuf rule (registry/compatibility.h), and its Protobuf answers
// through the store: PROTOBUF accepted, normalised, returned with its type, BACKWARD applied.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "testbed/registry/compatibility.h"
#include "testbed/registry/registry_store.h"

namespace snowcar::registry {
namespace {

using ::testing::HasSubstr;

std::shared_ptr<const protobuf::ProtoSchema> ParsedProto(const std::string& text) {
  auto s = protobuf::ProtoSchema::Parse(text);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? *s : nullptr;
}

// BACKWARD: the new schema reads what the old one wrote.
std::string ProtoBackward(const std::string& new_text, const std::string& old_text) {
  return ProtobufIncompatibilities(*ParsedProto(new_text), *ParsedProto(old_text));
}

constexpr const char* kProtoV1 = R"(syntax = "proto3"; package servicenow;
message incident { optional string number = 1; optional int64 priority = 3; })";

TEST(ProtobufCompatibilityTest, AddedAndRemovedOptionalFieldsAreCompatible) {
  EXPECT_EQ(ProtoBackward(kProtoV1, kProtoV1), "");
  EXPECT_EQ(ProtoBackward(R"(syntax = "proto3"; package servicenow;
      message incident { optional string number = 1; optional int64 priority = 3;
                         optional bool active = 5; })",
                          kProtoV1),
            "");
  EXPECT_EQ(ProtoBackward(R"(syntax = "proto3"; package servicenow;
      message incident { optional string number = 1; })",
                          kProtoV1),
            "");
}

TEST(ProtobufCompatibilityTest, ANumberReusedWithAnotherTypeIsRefused) {
  const std::string found = ProtoBackward(R"(syntax = "proto3"; package servicenow;
      message incident { optional string number = 1; optional string state = 3; })",
                                          kProtoV1);
  EXPECT_THAT(found, HasSubstr("servicenow.incident: field number 3 (state) changed type from "
                               "int64 to string"));
  // Wire-compatible integers read as each other; a name change alone is no change.
  EXPECT_EQ(ProtoBackward(R"(syntax = "proto3"; package servicenow;
      message incident { optional bytes num = 1; optional int32 priority = 3; })",
                          kProtoV1),
            "");
  EXPECT_THAT(ProtoBackward(R"(syntax = "proto3"; package servicenow;
      message incident { optional string number = 1; repeated int64 priority = 3; })",
                            kProtoV1),
              HasSubstr("field number 3 (priority) changed between repeated and singular"));
}

TEST(ProtobufCompatibilityTest, RequiredFieldsMayNeitherComeNorGoAndMessagesStay) {
  constexpr const char* kProtoOld = R"(syntax = "proto2"; message t { required string a = 1; })";
  EXPECT_THAT(
      ProtoBackward(R"(syntax = "proto2"; message t { optional string b = 2; })", kProtoOld),
      HasSubstr("required field a (field number 1) was removed"));
  EXPECT_THAT(ProtoBackward(R"(syntax = "proto2"; message t { required string a = 1;
                                                         required int32 c = 3; })",
                            kProtoOld),
              HasSubstr("required field c (field number 3) was added"));
  EXPECT_THAT(ProtoBackward(R"(syntax = "proto3"; message u { string a = 1; })",
                            R"(syntax = "proto3"; message t { string a = 1; })"),
              HasSubstr("message t was removed"));
}

boost::json::value ProtoRequest(const std::string& text) {
  return boost::json::value{{"schemaType", "PROTOBUF"}, {"schema", text}};
}

TEST(ProtobufRegistryStoreTest, StoresReturnsAndChecksProtobufSchemas) {
  RegistryStore store;
  Answer a = store.Register("t-value", ProtoRequest(kProtoV1));
  ASSERT_EQ(a.status, 200) << boost::json::serialize(a.body);
  const int64_t id = a.body.at("id").as_int64();
  // The same file with other spacing is the same schema.
  Answer again = store.Register(
      "t-value",
      ProtoRequest("syntax = \"proto3\";\npackage servicenow;\n\nmessage incident {\n"
                   "  optional string number = 1;\n  optional int64 priority = 3;\n}\n"));
  EXPECT_EQ(again.body.at("id").as_int64(), id);
  Answer got = store.SchemaById(id);
  EXPECT_EQ(got.body.at("schemaType").as_string(), "PROTOBUF");
  EXPECT_EQ(got.body.at("schema").as_string(), kProtoV1);
  Answer refused = store.Register("t-value", ProtoRequest(R"(syntax = "proto3"; package servicenow;
      message incident { optional string number = 1; optional bool priority = 3; })"));
  // bool and int64 share the varint wire type, so that one passes; a string does not.
  EXPECT_EQ(refused.status, 200);
  refused = store.Register("t-value", ProtoRequest(R"(syntax = "proto3"; package servicenow;
      message incident { optional string number = 1; optional double priority = 3; })"));
  EXPECT_EQ(refused.status, 409);
  EXPECT_THAT(std::string(refused.body.at("message").as_string()),
              HasSubstr("field number 3 (priority) changed type from bool to double"));
  Answer bad = store.Register("t-value", ProtoRequest("message {"));
  EXPECT_EQ(bad.status, 422);
  EXPECT_THAT(std::string(bad.body.at("message").as_string()),
              HasSubstr("Invalid schema: the Protobuf schema does not parse"));
  Answer import = store.Register("u-value", ProtoRequest(R"(syntax = "proto3";
      import "confluent/type/decimal.proto"; message m { string a = 1; })"));
  EXPECT_EQ(import.status, 422);
  EXPECT_THAT(std::string(import.body.at("message").as_string()),
              HasSubstr("schema references are not followed"));
}

}  // namespace
}  // namespace snowcar::registry
