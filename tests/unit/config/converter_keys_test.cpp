// SPDX-License-Identifier: Apache-2.0
// Kafka Connect converter keys mapped onto value.format / key.format and schema.registry.*.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "snowcar/common/redact.h"
#include "snowcar/config/config.h"

namespace snowcar::config {
namespace {

using ::testing::HasSubstr;

std::map<std::string, std::string> ConverterShell(const std::map<std::string, std::string>& extra) {
  std::map<std::string, std::string> m{{"source.enabled", "false"}, {"sink.enabled", "false"}};
  for (const auto& [k, v] : extra) m[k] = v;
  return m;
}

class ConverterKeysTest : public ::testing::Test {
 protected:
  void TearDown() override { redact::ClearForTest(); }
};

TEST_F(ConverterKeysTest, DefaultsAreJsonValuesAndStringKeys) {
  auto cfg = Config::FromMap(ConverterShell({}));
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->GetString("value.format"), "json");
  EXPECT_EQ(cfg->GetString("key.format"), "string");
  EXPECT_EQ(cfg->GetString("schema.registry.url"), "");
  EXPECT_EQ(cfg->GetString("value.subject.name.strategy"), "topic_name");
}

TEST_F(ConverterKeysTest, AvroConverterWithRegistryAndBasicAuth) {
  auto cfg = Config::FromMap(ConverterShell({
      {"value.converter", "io.confluent.connect.avro.AvroConverter"},
      {"value.converter.schema.registry.url", "https://sr.example:8081"},
      {"value.converter.basic.auth.credentials.source", "USER_INFO"},
      {"value.converter.basic.auth.user.info", "key:sr-secret-987"},
      {"value.converter.value.subject.name.strategy",
       "io.confluent.kafka.serializers.subject.TopicRecordNameStrategy"},
      {"key.converter", "org.apache.kafka.connect.storage.StringConverter"},
  }));
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->GetString("value.format"), "avro");
  EXPECT_EQ(cfg->GetString("key.format"), "string");
  EXPECT_EQ(cfg->GetString("schema.registry.url"), "https://sr.example:8081");
  EXPECT_EQ(cfg->GetString("schema.registry.basic.auth.user.info"), "key:sr-secret-987");
  EXPECT_EQ(cfg->GetString("value.subject.name.strategy"),
            "io.confluent.kafka.serializers.subject.TopicRecordNameStrategy");
  // The user info is a secret wherever it shows.
  for (const auto& [key, value] : cfg->Effective()) {
    EXPECT_THAT(value, ::testing::Not(HasSubstr("sr-secret-987"))) << key;
  }
}

TEST_F(ConverterKeysTest, JsonSchemaAndJsonConverters) {
  auto cfg = Config::FromMap(ConverterShell({
      {"value.converter", "io.confluent.connect.json.JsonSchemaConverter"},
      {"value.converter.schema.registry.url", "http://127.0.0.1:8081"},
      {"key.converter", "io.confluent.connect.avro.AvroConverter"},
      {"key.converter.schema.registry.url", "http://127.0.0.1:8081"},
      {"value.converter.schemas.enable", "false"},
  }));
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->GetString("value.format"), "json_schema");
  EXPECT_EQ(cfg->GetString("key.format"), "avro");
  bool noted = false;
  for (const auto& note : cfg->notes()) noted |= note.find("value.converter.schemas.enable") == 0;
  EXPECT_TRUE(noted) << "an unused converter setting is noted";

  auto json = Config::FromMap(
      ConverterShell({{"value.converter", "org.apache.kafka.connect.json.JsonConverter"}}));
  ASSERT_TRUE(json.ok());
  EXPECT_EQ(json->GetString("value.format"), "json");
}

TEST_F(ConverterKeysTest, ProtobufConverterSelectsProtobufAndNeedsARegistry) {
  auto cfg = Config::FromMap(ConverterShell({
      {"value.converter", "io.confluent.connect.protobuf.ProtobufConverter"},
      {"value.converter.schema.registry.url", "http://127.0.0.1:8081"},
      {"key.converter", "io.confluent.connect.protobuf.ProtobufConverter"},
  }));
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->GetString("value.format"), "protobuf");
  EXPECT_EQ(cfg->GetString("key.format"), "protobuf");
  auto no_registry = Config::FromMap(
      ConverterShell({{"value.converter", "io.confluent.connect.protobuf.ProtobufConverter"}}));
  ASSERT_FALSE(no_registry.ok());
  EXPECT_THAT(no_registry.status().message(),
              HasSubstr("value.format=protobuf needs schema.registry.url"));
}

TEST_F(ConverterKeysTest, ConflictsAndUnknownConvertersAreErrors) {
  auto two_urls = Config::FromMap(ConverterShell({
      {"value.converter.schema.registry.url", "http://a:8081"},
      {"key.converter.schema.registry.url", "http://b:8081"},
  }));
  ASSERT_FALSE(two_urls.ok());
  EXPECT_THAT(two_urls.status().message(), HasSubstr("different values for 'schema.registry.url'"));

  auto both = Config::FromMap(ConverterShell({
      {"value.converter", "io.confluent.connect.avro.AvroConverter"},
      {"value.format", "json"},
  }));
  ASSERT_FALSE(both.ok());
  EXPECT_THAT(both.status().message(), HasSubstr("'value.converter'"));

  auto unknown =
      Config::FromMap(ConverterShell({{"value.converter", "com.example.connect.CsvConverter"}}));
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.status().message(), HasSubstr("CsvConverter"));
  EXPECT_THAT(unknown.status().message(), HasSubstr("no snowcar counterpart"));
}

TEST_F(ConverterKeysTest, RegistryFormatsNeedARegistry) {
  auto no_url = Config::FromMap(
      ConverterShell({{"value.converter", "io.confluent.connect.avro.AvroConverter"}}));
  ASSERT_FALSE(no_url.ok());
  EXPECT_THAT(no_url.status().message(), HasSubstr("value.format=avro needs schema.registry.url"));
  auto key_only = Config::FromMap(ConverterShell({{"key.format", "json_schema"}}));
  ASSERT_FALSE(key_only.ok());
  EXPECT_THAT(key_only.status().message(), HasSubstr("key.format=json_schema"));
  auto ftp = Config::FromMap(ConverterShell({{"schema.registry.url", "ftp://sr"}}));
  ASSERT_FALSE(ftp.ok());
  EXPECT_THAT(ftp.status().message(), HasSubstr("http:// or https://"));
}

TEST_F(ConverterKeysTest, BadStrategyAndFormatAreRefused) {
  EXPECT_FALSE(Config::FromMap(ConverterShell({{"value.subject.name.strategy", "by_mood"}})).ok());
  EXPECT_FALSE(Config::FromMap(ConverterShell({{"value.format", "protobuf"}})).ok());
}

}  // namespace
}  // namespace snowcar::config
