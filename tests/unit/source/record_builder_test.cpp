// SPDX-License-Identifier: Apache-2.0
// BuildRecord: key, headers, timestamp, and the value in each mode.
#include "snowcar/source/rows/record_builder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "fixture_rows.h"
#include "snowcar/common/time.h"

namespace snowcar::source {
namespace {

using ::testing::ElementsAre;
using testing::FixtureRows;

constexpr int64_t kExtractedMs = 1706702401234;  // 2024-01-31T12:00:01.234Z

struct Built {
  kafka::OutRecord record;
  boost::json::value value;
};

class RecordBuilderTest : public ::testing::Test {
 protected:
  RecordBuilderTest() {
    source_.instance = "acme.service-now.com";
    table_.alias = "inc";
    table_.name = "incident";
    table_.topic = "sn.incident";
  }

  Built Build(const boost::json::object& row) {
    auto key = ReadRowKey(row, table_);
    EXPECT_TRUE(key.ok()) << key.status().ToString();
    Built b{BuildRecord(row, *key, table_, source_, kExtractedMs), {}};
    EXPECT_TRUE(b.record.value.has_value());
    b.value = boost::json::parse(b.record.value.value_or("null"));
    return b;
  }
  Built Build(std::string_view json) { return Build(boost::json::parse(json).as_object()); }

  SourceSettings source_;
  TableSettings table_;
};

constexpr std::string_view kRaw =
    R"({"sys_id":"0a1b","sys_updated_on":"2024-01-31 12:00:01","sys_mod_count":"3",)"
    R"("caller_id":{"link":"https://acme/api/now/table/sys_user/77","value":"77"},)"
    R"("short_description":"disk \"full\"\n","active":"true"})";

TEST_F(RecordBuilderTest, KeyTopicTimestampAndHeaders) {
  const Built b = Build(kRaw);
  EXPECT_EQ(b.record.topic, "sn.incident");
  EXPECT_EQ(b.record.partition, -1);
  EXPECT_EQ(b.record.key, "0a1b");
  EXPECT_EQ(b.record.timestamp_ms, ParseSnowTimestamp("2024-01-31 12:00:01").value() * 1000);
  EXPECT_THAT(b.record.headers,
              ElementsAre(kafka::Header{"snow.source.operation", "UPSERT"},
                          kafka::Header{"snow.table", "incident"},
                          kafka::Header{"snow.instance", "acme.service-now.com"},
                          kafka::Header{"snow.extracted_at", "2024-01-31T12:00:01.234Z"}));
}

TEST_F(RecordBuilderTest, SchemalessIsTheRowAsReceived) {
  const boost::json::object row = boost::json::parse(kRaw).as_object();
  const Built b = Build(row);
  EXPECT_EQ(b.value, boost::json::value(row));
  EXPECT_EQ(*b.record.value, boost::json::serialize(row));  // same field order, same bytes
}

TEST_F(RecordBuilderTest, SchemalessAllIsAsReceived) {
  table_.display_value = DisplayValue::kAll;
  for (const auto& row : FixtureRows("13-display-value-all.json")) {
    EXPECT_EQ(Build(row).value, boost::json::value(row));
  }
}

TEST_F(RecordBuilderTest, DisplayTrueRendersDisplayValuesButKeepsCursorFieldsRaw) {
  table_.display_value = DisplayValue::kTrue;
  const auto rows = FixtureRows("13-display-value-all.json");
  const Built b = Build(rows[0]);
  const auto& v = b.value.as_object();
  EXPECT_EQ(v.size(), rows[0].size());
  EXPECT_EQ(v.at("sys_updated_on"), "2020-09-24 12:42:23");  // raw UTC, not 14:42:23
  EXPECT_EQ(v.at("sys_id"), "a9e9c33dc61122760072455df62663d2");
  EXPECT_EQ(v.at("sys_mod_count"), "21");
  EXPECT_EQ(v.at("parent"), "PRB0000006");  // a reference: its display value
  EXPECT_EQ(v.at("type"), "Normal");
  EXPECT_TRUE(v.at("reason").is_null());  // display null stays null
  EXPECT_EQ(v.at("sys_created_on"), rows[0].at("sys_created_on").at("display_value"));
}

TEST_F(RecordBuilderTest, DisplayTrueKeepsReferenceLinksWhenNotExcluded) {
  table_.display_value = DisplayValue::kTrue;
  table_.exclude_reference_link = false;
  const Built b =
      Build(R"({"sys_id":{"display_value":"x","value":"0a1b"},)"
            R"("sys_updated_on":{"display_value":"31.01.2024","value":"2024-01-31 12:00:01"},)"
            R"("caller_id":{"display_value":"Abel Tuter","link":"https://acme/x/77","value":"77"},)"
            R"("priority":{"display_value":"1 - Critical","value":"1"}})");
  EXPECT_EQ(b.value, boost::json::parse(
                         R"({"sys_id":"0a1b","sys_updated_on":"2024-01-31 12:00:01",)"
                         R"("caller_id":{"display_value":"Abel Tuter","link":"https://acme/x/77"},)"
                         R"("priority":"1 - Critical"})"));
  EXPECT_EQ(b.record.key, "0a1b");
}

TEST_F(RecordBuilderTest, StringsModeFromRawRow) {
  source_.schema_mode = SchemaMode::kStrings;
  table_.exclude_reference_link = false;
  const Built b =
      Build(R"({"sys_id":"0a1b","sys_updated_on":"2024-01-31 12:00:01","sys_mod_count":4,)"
            R"("caller_id":{"link":"https://acme/api/now/table/sys_user/77","value":"77"},)"
            R"("empty":null,"flag":true,"n":-2,"list":["a",1],"text":"tab\there"})");
  EXPECT_EQ(b.value,
            boost::json::parse(R"({"sys_id":"0a1b","sys_updated_on":"2024-01-31 12:00:01",)"
                               R"("sys_mod_count":"4","caller_id":"77","empty":"",)"
                               R"("flag":"true","n":"-2","list":"[\"a\",1]","text":"tab\there"})"));
}

TEST_F(RecordBuilderTest, StringsModeWithDisplayTrue) {
  source_.schema_mode = SchemaMode::kStrings;
  table_.display_value = DisplayValue::kTrue;
  const auto rows = FixtureRows("13-display-value-all.json");
  const Built b = Build(rows[0]);
  const auto& v = b.value.as_object();
  EXPECT_EQ(v.size(), rows[0].size());
  for (const auto& [name, value] : v) EXPECT_TRUE(value.is_string()) << name;
  EXPECT_EQ(v.at("sys_updated_on"), "2020-09-24 12:42:23");
  EXPECT_EQ(v.at("parent"), "PRB0000006");
  EXPECT_EQ(v.at("reason"), "");
}

TEST_F(RecordBuilderTest, StringsModeWithAllAddsDisplayFields) {
  source_.schema_mode = SchemaMode::kStrings;
  table_.display_value = DisplayValue::kAll;
  const auto rows = FixtureRows("13-display-value-all.json");
  const Built b = Build(rows[0]);
  const auto& v = b.value.as_object();
  EXPECT_EQ(v.size(), 2 * rows[0].size());
  EXPECT_EQ(v.at("sys_updated_on"), "2020-09-24 12:42:23");
  EXPECT_EQ(v.at("dv_sys_updated_on"), "2020-09-24 14:42:23");
  EXPECT_EQ(v.at("parent"), "a9e4890bc6112276003d7a5a5c774a74");
  EXPECT_EQ(v.at("dv_parent"), "PRB0000006");
  EXPECT_EQ(v.at("dv_reason"), "");
}

TEST_F(RecordBuilderTest, EnvelopeWrapsTheValue) {
  source_.emit_envelope = true;
  const boost::json::object row = boost::json::parse(kRaw).as_object();
  const Built b = Build(row);
  const auto& v = b.value.as_object();
  EXPECT_TRUE(v.at("before").is_null());
  EXPECT_EQ(v.at("after"), boost::json::value(row));
  EXPECT_EQ(v.at("op"), "u");
  EXPECT_EQ(v.at("ts_ms"), kExtractedMs);
  EXPECT_EQ(v.at("source"),
            boost::json::parse(R"({"connector":"snowcar","instance":"acme.service-now.com",)"
                               R"("table":"incident","alias":"inc","sys_id":"0a1b",)"
                               R"("sys_mod_count":3,"ts_ms":1706702401000})"));
  EXPECT_EQ(b.record.key, "0a1b");
}

TEST_F(RecordBuilderTest, EnvelopeAroundStringsMode) {
  source_.emit_envelope = true;
  source_.schema_mode = SchemaMode::kStrings;
  const Built b = Build(kRaw);
  EXPECT_EQ(b.value.at("after").at("caller_id"), "77");
}

TEST_F(RecordBuilderTest, ControlCharactersAreEscaped) {
  source_.schema_mode = SchemaMode::kStrings;
  const std::string raw =
      std::string(R"({"sys_id":"a","sys_updated_on":"2024-01-31 12:00:01","x":"\u0001\b\f\\"})");
  const Built b = Build(raw);
  EXPECT_EQ(b.value.at("x"), "\x01\b\f\\");
}

}  // namespace
}  // namespace snowcar::source
