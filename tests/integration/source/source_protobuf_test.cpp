// SPDX-License-Identifier: Apache-2.0
// value.format=protobuf and key.format=protobuf end to end: emulator -> `snowcar run` ->
// embedded Kafka with the registry test double, read back by tools snowcar did not write
// (read_protobuf_topic.py): python3-confluent-kafka consumes, protoc compiles the .proto text
// the registry holds for each record's id, python3-protobuf decodes the payload with it.
#include <gmock/gmock.h>

#include <boost/json.hpp>
#include <map>

#include "inherited_rows.h"
#include "snowcar/common/time.h"
#include "snowcar/testbed/registry/registry_server.h"
#include "source_harness.h"

namespace snowcar::source::it {
namespace {

using ::testing::HasSubstr;

constexpr const char* kProtobufPython = "/usr/bin/python3";

// RFC 3339 as Protobuf's JSON mapping writes a Timestamp of whole seconds.
std::string ProtoJsonTime(int64_t seconds) {
  std::string t = FormatIso8601Millis(seconds * 1000);  // ...T..:..:...000Z
  return t.substr(0, t.size() - 5) + "Z";
}

class SourceProtobuf : public SourceTest {
 protected:
  std::map<std::string, boost::json::object> ReadWithProtoc(const std::string& registry_url,
                                                            size_t expect) {
    return ReadDecoded(
        kProtobufPython,
        {std::string(SNOWCAR_SOURCE_DIR) + "/tests/integration/source/read_protobuf_topic.py",
         "--bootstrap", bootstrap(), "--topic", topic_, "--registry", registry_url, "--key-format",
         "protobuf"},
        expect);
  }
};

TEST_F(SourceProtobuf, ProtobufRecordsDecodeWithProtocAndPythonProtobufAgainstTheRegisteredSchema) {
  registry::RegistryServer registry(registry::RegistryServerOptions{});
  ASSERT_TRUE(registry.Start().ok());
  ASSERT_TRUE(broker().CreateTopic(topic_, 2).ok());
  const int64_t base = NowS() - 600;
  std::vector<std::string> ids;
  ASSERT_TRUE(emu_->store().Load("incident", TypedIncidentRows(20, 0xb000, base, &ids)).ok());
  props_["value.format"] = "protobuf";
  props_["key.format"] = "protobuf";
  props_["schema.registry.url"] = registry.base_url();
  Start();

  auto got = ReadWithProtoc(registry.base_url(), ids.size());
  ASSERT_EQ(got.size(), ids.size());
  for (int i = 0; i < 20; ++i) {
    const auto& rec = got.at(ids[i]);
    ASSERT_TRUE(rec.at("schema_id").is_int64());
    EXPECT_EQ(rec.at("message").as_string(), "servicenow.incident");
    const auto& v = rec.at("value").as_object();
    EXPECT_EQ(v.at("sys_id").as_string(), ids[i]);
    EXPECT_EQ(v.at("short_description").as_string(), "row " + std::to_string(i));
    // Protobuf's JSON mapping writes an int64 as a string and leaves out an unset field;
    // false is written, as an `optional` field set to false is present.
    EXPECT_EQ(v.at("priority").as_string(), std::to_string(1 + i % 5));
    EXPECT_EQ(v.at("active").as_bool(), i % 2 == 0);
    EXPECT_EQ(v.at("reassignment_count").as_string(), std::to_string(i));
    EXPECT_EQ(v.at("sys_mod_count").as_string(), "0");
    EXPECT_EQ(v.at("sys_updated_on").as_string(), ProtoJsonTime(base + i));
    EXPECT_EQ(v.at("opened_at").as_string(), ProtoJsonTime(base - 3600));
    EXPECT_FALSE(v.contains("resolved_at")) << "an empty date-time is an absent field";
  }
  // The schemas are registered as PROTOBUF under the topic-name strategy.
  for (std::string_view side : {"value", "key"}) {
    auto latest = testsupport::RunToCompletion(
        "curl",
        testsupport::ChildOptions{.args = {"-s", registry.base_url() + "/subjects/" + topic_ + "-" +
                                                     std::string(side) + "/versions/latest"}},
        10s);
    ASSERT_TRUE(latest.ok());
    EXPECT_THAT(latest->out, HasSubstr("\"schemaType\":\"PROTOBUF\"")) << side;
    EXPECT_THAT(latest->out, HasSubstr("syntax = \\\"proto3\\\"")) << side;
  }
  StopGracefully();
  registry.Stop();
}

// incident's columns inherited from task come out as their types in Protobuf too (the JSON
// mapping of the reader writes an int64 as a string and leaves an unset field out).
TEST_F(SourceProtobuf, ProtobufWritesIncidentsColumnsInheritedFromTaskAsTheirTypes) {
  registry::RegistryServer registry(registry::RegistryServerOptions{});
  ASSERT_TRUE(registry.Start().ok());
  ASSERT_TRUE(broker().CreateTopic(topic_, 1).ok());
  const int64_t base = NowS() - 600;
  std::vector<emulator::Fields> rows;
  std::vector<InheritedRow> ids;
  for (int n = 0; n < 4; ++n) {
    ids.push_back({InheritedRowId(0xf000 + n), n});
    rows.push_back(IncidentWithTaskColumns(ids.back(), base));
  }
  ASSERT_TRUE(emu_->store().Load("incident", rows).ok());
  props_["value.format"] = "protobuf";
  props_["key.format"] = "protobuf";
  props_["schema.registry.url"] = registry.base_url();
  Start();
  auto got = ReadWithProtoc(registry.base_url(), ids.size());
  ASSERT_EQ(got.size(), ids.size());
  for (const InheritedRow& r : ids) {
    SCOPED_TRACE(r.id);
    const auto& v = got.at(r.id).at("value").as_object();
    EXPECT_EQ(v.at("priority").as_string(), std::to_string(1 + r.n % 5)) << "task's integer";
    EXPECT_EQ(v.at("impact").as_string(), "2");
    EXPECT_EQ(v.at("urgency").as_string(), "3");
    EXPECT_EQ(v.at("state").as_string(), "2");
    EXPECT_EQ(v.at("active").as_bool(), r.n % 2 == 0);
    EXPECT_EQ(v.at("made_sla").as_bool(), false);
    EXPECT_EQ(v.at("reassignment_count").as_string(), std::to_string(r.n));
    EXPECT_EQ(v.at("escalation").as_string(), "1");
    EXPECT_EQ(v.at("opened_at").as_string(), ProtoJsonTime(base - 3600));
    EXPECT_EQ(v.at("sys_updated_on").as_string(), ProtoJsonTime(base + r.n));
    EXPECT_EQ(v.at("sys_created_on").as_string(), ProtoJsonTime(base));
    EXPECT_FALSE(v.contains("closed_at")) << "an empty date-time is an absent field";
    EXPECT_EQ(v.at("short_description").as_string(), "inherited " + std::to_string(r.n));
    EXPECT_EQ(v.at("severity").as_string(), "3") << "incident's own column";
  }
  StopGracefully();
  registry.Stop();
}

}  // namespace
}  // namespace snowcar::source::it
