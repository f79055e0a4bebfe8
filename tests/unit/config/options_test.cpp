// SPDX-License-Identifier: Apache-2.0
#include "snowcar/config/options.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "config/value_normalize.h"

namespace snowcar::config {
namespace {

using ::testing::HasSubstr;

TEST(OptionTableTest, EveryEntryIsDocumentedAndGrouped) {
  for (const OptionSpec& spec : Options()) {
    EXPECT_FALSE(spec.doc.empty()) << spec.name;
    EXPECT_FALSE(spec.group.empty()) << spec.name;
    EXPECT_EQ(spec.type == OptionType::kEnum, !spec.allowed.empty()) << spec.name;
  }
}

TEST(OptionTableTest, NamesAreUnique) {
  std::set<std::string_view> seen;
  for (const OptionSpec& spec : Options()) EXPECT_TRUE(seen.insert(spec.name).second) << spec.name;
}

// A default that fails its own entry's checks would make every start fail.
TEST(OptionTableTest, DefaultsPassTheirOwnChecks) {
  for (const OptionSpec& spec : Options()) {
    if (spec.default_value.empty() || spec.default_value.find('{') != std::string_view::npos) {
      continue;
    }
    auto normalized = NormalizeValue(spec, spec.default_value);
    ASSERT_TRUE(normalized.ok()) << spec.name << ": " << normalized.status().message();
    EXPECT_EQ(*normalized, spec.default_value) << spec.name << " default is not in stored form";
  }
}

TEST(OptionTableTest, AliasesPointAtDeclaredKeys) {
  for (const OptionSpec& spec : Options()) {
    if (spec.alias_of.empty()) continue;
    const OptionSpec* target = FindOption(spec.alias_of);
    ASSERT_NE(target, nullptr) << spec.name;
    EXPECT_TRUE(target->alias_of.empty()) << spec.name << " points at another alias";
  }
}

TEST(OptionTableTest, SidecarDefaults) {
  const auto def = [](std::string_view key) { return FindOption(key)->default_value; };
  EXPECT_EQ(def("state.dir"), "/var/lib/snowcar");
  EXPECT_EQ(def("socket.path"), "/var/run/snowcar/snowcar.sock");
  EXPECT_EQ(def("threads"), "0");
  EXPECT_EQ(FindOption("threads")->max, 256);
  EXPECT_EQ(def("shutdown.timeout.ms"), "30000");
  EXPECT_EQ(def("log.level"), "info");
  EXPECT_EQ(def("log.format"), "json");
  EXPECT_EQ(def("snow.tls.verify"), "true");
  EXPECT_EQ(def("snow.http.max.response.bytes"), "67108864");
  EXPECT_THAT(FindOption("snow.tls.verify")->doc,
              HasSubstr("turning it off logs a warning at every start"));
}

TEST(PatternTest, PlaceholderMatchesAnyNonEmptyText) {
  EXPECT_TRUE(MatchesPattern("kafka.<property>", "kafka.bootstrap.servers"));
  EXPECT_TRUE(MatchesPattern("kafka.<property>", "kafka.x"));
  EXPECT_FALSE(MatchesPattern("kafka.<property>", "kafka."));
  EXPECT_FALSE(MatchesPattern("kafka.<property>", "kafkax.y"));
}

TEST(PatternTest, PlaceholderInTheMiddleMayContainDots) {
  const std::string_view p = "snow.sink.topic.<topic>.table";
  EXPECT_TRUE(MatchesPattern(p, "snow.sink.topic.orders.table"));
  EXPECT_TRUE(MatchesPattern(p, "snow.sink.topic.eu.orders.v1.table"));
  EXPECT_TRUE(MatchesPattern(p, "snow.sink.topic.a.table.table"));
  EXPECT_FALSE(MatchesPattern(p, "snow.sink.topic..table"));
  EXPECT_FALSE(MatchesPattern(p, "snow.sink.topic.orders.tables"));
  EXPECT_TRUE(MatchesPattern("snow.table.<alias>.name", "snow.table.incidents.name"));
  EXPECT_FALSE(MatchesPattern("snow.table.<alias>.name", "snow.table.incidents.topic"));
}

TEST(PatternTest, FindOptionPrefersExactNames) {
  EXPECT_EQ(FindOption("key.converter")->name, "key.converter");
  EXPECT_EQ(FindOption("key.converter.schemas.enable")->name, "key.converter.<setting>");
  EXPECT_EQ(FindOption("kafka.bootstrap.servers")->name, "kafka.<property>");
  EXPECT_EQ(FindOption("no.such.key"), nullptr);
}

TEST(PatternTest, FamilyMembersNamingSecretsAreSecret) {
  const OptionSpec& kafka = *FindOption("kafka.sasl.password");
  EXPECT_TRUE(IsSecretKey(kafka, "kafka.sasl.password"));
  EXPECT_TRUE(IsSecretKey(kafka, "kafka.sasl.oauthbearer.client.secret"));
  EXPECT_FALSE(IsSecretKey(kafka, "kafka.sasl.oauthbearer.token.endpoint.url"));
  EXPECT_FALSE(IsSecretKey(kafka, "kafka.bootstrap.servers"));
  // What librdkafka keeps secret, whatever the name says.
  EXPECT_TRUE(IsSecretKey(kafka, "kafka.sasl.jaas.config"));
  EXPECT_TRUE(IsSecretKey(kafka, "kafka.ssl.key.pem"));
  EXPECT_TRUE(IsSecretKey(kafka, "kafka.ssl_key"));
  EXPECT_TRUE(IsSecretKey(kafka, "kafka.sasl.username"));
  EXPECT_FALSE(IsSecretKey(kafka, "kafka.ssl.certificate.pem"));
  EXPECT_TRUE(IsSecretKey(*FindOption("snow.auth.password"), "snow.auth.password"));
  EXPECT_FALSE(IsSecretKey(*FindOption("snow.auth.username"), "snow.auth.username"));
}

// --- one value against its entry -----------------------------------------------------------

OptionSpec IntSpec() {
  return {.name = "n", .type = OptionType::kInt, .min = -5, .max = 10, .doc = "d"};
}

TEST(NormalizeTest, Int) {
  EXPECT_EQ(*NormalizeValue(IntSpec(), " 7 "), "7");
  EXPECT_EQ(*NormalizeValue(IntSpec(), "+3"), "3");
  EXPECT_EQ(*NormalizeValue(IntSpec(), "-5"), "-5");
  EXPECT_EQ(*NormalizeValue(IntSpec(), "010"), "10");
  auto bad = NormalizeValue(IntSpec(), "7ms");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "is not a whole number (allowed: a whole number from -5 to 10)");
  EXPECT_FALSE(NormalizeValue(IntSpec(), "").ok());
  EXPECT_FALSE(NormalizeValue(IntSpec(), "1.5").ok());
  EXPECT_THAT(NormalizeValue(IntSpec(), "11").status().message(), HasSubstr("out of range"));
  EXPECT_THAT(NormalizeValue(IntSpec(), "-6").status().message(), HasSubstr("out of range"));
}

TEST(NormalizeTest, Int64Limits) {
  const OptionSpec spec{.name = "n", .type = OptionType::kInt};
  EXPECT_EQ(*NormalizeValue(spec, "9223372036854775807"), "9223372036854775807");
  EXPECT_EQ(*NormalizeValue(spec, "-9223372036854775808"), "-9223372036854775808");
  EXPECT_THAT(NormalizeValue(spec, "9223372036854775808").status().message(),
              HasSubstr("too large"));
}

TEST(NormalizeTest, Bool) {
  const OptionSpec spec{.name = "b", .type = OptionType::kBool};
  EXPECT_EQ(*NormalizeValue(spec, "TRUE"), "true");
  EXPECT_EQ(*NormalizeValue(spec, " False "), "false");
  auto bad = NormalizeValue(spec, "yes");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "is not a boolean (allowed: true or false)");
}

TEST(NormalizeTest, EnumMatchesCaseInsensitivelyAndListsAllowed) {
  const OptionSpec& spec = *FindOption("log.level");
  EXPECT_EQ(*NormalizeValue(spec, "WARN"), "warn");
  EXPECT_EQ(*NormalizeValue(spec, "Debug"), "debug");
  auto bad = NormalizeValue(spec, "verbose");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "is not allowed (allowed: one of: trace, debug, info, warn, error)");
}

TEST(NormalizeTest, ListTrimsItemsAndDropsEmptyOnes) {
  const OptionSpec spec{.name = "l", .type = OptionType::kList};
  EXPECT_EQ(*NormalizeValue(spec, " a , b,,c ,"), "a,b,c");
  EXPECT_EQ(*NormalizeValue(spec, ""), "");
  EXPECT_EQ(SplitList("a,b,c"), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(SplitList("").empty());
}

TEST(NormalizeTest, UrlDropsTrailingSlashKeepsPathPrefix) {
  const OptionSpec spec{.name = "u", .type = OptionType::kUrl};
  EXPECT_EQ(*NormalizeValue(spec, "https://acme.service-now.com/"), "https://acme.service-now.com");
  EXPECT_EQ(*NormalizeValue(spec, "HTTP://proxy:8080/sn/api//"), "http://proxy:8080/sn/api");
  EXPECT_EQ(*NormalizeValue(spec, "https://[::1]:8443"), "https://[::1]:8443");
  EXPECT_EQ(*NormalizeValue(spec, ""), "");
}

TEST(NormalizeTest, UrlRejections) {
  const OptionSpec spec{.name = "u", .type = OptionType::kUrl};
  EXPECT_THAT(NormalizeValue(spec, "ftp://x").status().message(), HasSubstr("scheme 'ftp'"));
  EXPECT_THAT(NormalizeValue(spec, "acme.service-now.com").status().message(),
              HasSubstr("http:// or https://"));
  EXPECT_THAT(NormalizeValue(spec, "https://").status().message(), HasSubstr("no host"));
  EXPECT_THAT(NormalizeValue(spec, "https://u:p@x").status().message(),
              HasSubstr("carries credentials"));
  EXPECT_THAT(NormalizeValue(spec, "https://x/?a=1").status().message(),
              HasSubstr("query or fragment"));
  EXPECT_FALSE(NormalizeValue(spec, "https://x y").ok());
}

TEST(NormalizeTest, PasswordKeptByteForByte) {
  const OptionSpec spec{.name = "p", .type = OptionType::kPassword};
  EXPECT_EQ(*NormalizeValue(spec, " pa ss "), " pa ss ");
}

TEST(NormalizeTest, StringTrimmed) {
  const OptionSpec spec{.name = "s"};
  EXPECT_EQ(*NormalizeValue(spec, "  /var/lib/x \t"), "/var/lib/x");
}

TEST(NormalizeTest, AdminListenHostPort) {
  const OptionSpec& spec = *FindOption("admin.listen");
  EXPECT_EQ(*NormalizeValue(spec, "0.0.0.0:9464"), "0.0.0.0:9464");
  EXPECT_EQ(*NormalizeValue(spec, "[::1]:0"), "[::1]:0");
  EXPECT_EQ(*NormalizeValue(spec, ""), "");
  EXPECT_THAT(NormalizeValue(spec, "9464").status().message(), HasSubstr("host:port"));
  EXPECT_THAT(NormalizeValue(spec, ":9464").status().message(), HasSubstr("must name a host"));
  EXPECT_THAT(NormalizeValue(spec, "h:70000").status().message(), HasSubstr("0 to 65535"));
  EXPECT_THAT(NormalizeValue(spec, "::1:80").status().message(), HasSubstr("brackets"));
}

}  // namespace
}  // namespace snowcar::config
