// SPDX-License-Identifier: Apache-2.0
#include "kafka/client_config.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "snowcar/common/redact.h"

namespace snowcar::kafka::internal {
namespace {

TEST(ScopeOf, FollowsLibrdkafkasPropertyTable) {
  EXPECT_EQ(ScopeOf("bootstrap.servers"), PropertyScope::kBoth);
  EXPECT_EQ(ScopeOf("sasl.password"), PropertyScope::kBoth);
  EXPECT_EQ(ScopeOf("group.id"), PropertyScope::kConsumerOnly);
  EXPECT_EQ(ScopeOf("auto.offset.reset"), PropertyScope::kConsumerOnly);  // a topic property
  EXPECT_EQ(ScopeOf("enable.idempotence"), PropertyScope::kProducerOnly);
  EXPECT_EQ(ScopeOf("acks"), PropertyScope::kProducerOnly);
  EXPECT_EQ(ScopeOf("no.such.property"), PropertyScope::kUnknown);
}

TEST(MergeProperties, DropsTheOtherSidesPropertiesAndKeepsUserChoicesOverDefaults) {
  const std::map<std::string, std::string> user = {
      {"bootstrap.servers", "b:9092"}, {"group.id", "g"}, {"acks", "1"}, {"typo.prop", "x"}};
  auto producer = MergeProperties(user, {{"acks", "all"}, {"partitioner", "murmur2_random"}},
                                  ClientKind::kProducer);
  EXPECT_FALSE(producer.contains("group.id"));
  EXPECT_EQ(producer.at("acks"), "1");
  EXPECT_EQ(producer.at("partitioner"), "murmur2_random");
  EXPECT_TRUE(producer.contains("typo.prop"));  // unknown: librdkafka will name it
  auto consumer = MergeProperties(user, {}, ClientKind::kConsumer);
  EXPECT_FALSE(consumer.contains("acks"));
  EXPECT_EQ(consumer.at("group.id"), "g");
}

TEST(ClientId, AppendsTheRoleToTheUsersId) {
  EXPECT_EQ(ClientId({}, "snowcar-source"), "snowcar-source");
  EXPECT_EQ(ClientId({{"client.id", "app"}}, "snowcar-source"), "app-snowcar-source");
  EXPECT_EQ(ClientId({{"client.id", ""}}, "snowcar"), "snowcar");
}

TEST(BuildConf, RequiresBootstrapServers) {
  auto conf = BuildConf({{"linger.ms", "1"}});
  ASSERT_FALSE(conf.ok());
  EXPECT_EQ(conf.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(conf.status().message().find("bootstrap.servers"), std::string::npos);
  EXPECT_TRUE(BuildConf({{"metadata.broker.list", "b:1"}}).ok());  // the alias counts
}

TEST(BuildConf, NamesTheRefusedProperty) {
  auto conf = BuildConf({{"bootstrap.servers", "b:1"}, {"queue.buffering.max.messages", "-4"}});
  ASSERT_FALSE(conf.ok());
  EXPECT_EQ(conf.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(conf.status().message().find("queue.buffering.max.messages"), std::string::npos)
      << conf.status().message();
}

TEST(BuildConf, ListsEveryRefusedPropertyAndTheLibrdkafkaEquivalentOfJavaKeys) {
  auto conf = BuildConf({{"bootstrap.servers", "b:1"},
                         {"security.protocol", "SASL_SSLX"},
                         {"no.such.property", "1"},
                         {"ssl.truststore.location", "/etc/kafka/truststore.jks"},
                         {"ssl.keystore.type", "JKS"},
                         {"ssl.keystore.location", "/etc/kafka/keystore.jks"},
                         {"ssl.endpoint.identification.algorithm", ""}});
  ASSERT_FALSE(conf.ok());
  const std::string& message = conf.status().message();
  for (const std::string expected :
       {"kafka property 'security.protocol'", "kafka property 'no.such.property'",
        "kafka property 'ssl.truststore.location'", "use ssl.ca.location",
        "kafka property 'ssl.keystore.type'", "PKCS#12", "kafka property 'ssl.keystore.location'",
        "a Java keystore", "kafka property 'ssl.endpoint.identification.algorithm'",
        "written none"}) {
    EXPECT_NE(message.find(expected), std::string::npos) << expected << "\n" << message;
  }
  EXPECT_EQ(std::count(message.begin(), message.end(), '\n'), 5) << message;
}

TEST(BuildConf, NeverEchoesTheValueOfASecretProperty) {
  redact::ClearForTest();
  const std::string secret = "s3cr3t-value-0x51";
  // librdkafka's own message for a refused enum value quotes the value.
  auto plain = BuildConf({{"bootstrap.servers", "b:1"}, {"security.protocol", "bogus-proto"}});
  ASSERT_FALSE(plain.ok());
  EXPECT_NE(plain.status().message().find("bogus-proto"), std::string::npos)
      << "precondition: librdkafka quotes refused values";
  // So a secret-named property that is refused is reported by name only...
  auto named = BuildConf({{"bootstrap.servers", "b:1"}, {"x.password", secret}});
  ASSERT_FALSE(named.ok());
  EXPECT_NE(named.status().message().find("x.password"), std::string::npos);
  EXPECT_EQ(named.status().message().find(secret), std::string::npos) << named.status().message();
  // ...and a secret's value quoted in another property's error is masked.
  auto reused = BuildConf(
      {{"bootstrap.servers", "b:1"}, {"sasl.password", secret}, {"security.protocol", secret}});
  ASSERT_FALSE(reused.ok());
  EXPECT_NE(reused.status().message().find("security.protocol"), std::string::npos);
  EXPECT_EQ(reused.status().message().find(secret), std::string::npos) << reused.status().message();
  redact::ClearForTest();
}

// The list of secret properties is written down (librdkafka 2.0.2 cannot be asked which of its
// properties it keeps secret); each name must still be one the installed library knows, or a
// Java client key it refuses by name, so a renamed property cannot leave a secret unlisted.
TEST(SensitiveKafkaProperties, AreKnownToTheInstalledLibrdkafka) {
  for (const std::string_view property : redact::SensitiveKafkaProperties()) {
    const std::string name(property);
    EXPECT_TRUE(redact::IsSecretName("kafka." + name)) << name;
    if (name == "ssl.truststore.password" || name == "ssl.keystore.key") continue;  // Java only
    ConfPtr conf(rd_kafka_conf_new());
    char errstr[512] = "";
    const rd_kafka_conf_res_t res =
        rd_kafka_conf_set(conf.get(), name.c_str(), "x", errstr, sizeof errstr);
    EXPECT_NE(res, RD_KAFKA_CONF_UNKNOWN) << name << ": " << errstr;
  }
  // Every property of the installed library whose name says it holds a credential is listed.
  for (const std::string name : {"sasl.username", "sasl.password", "ssl.key.password",
                                 "ssl.keystore.password", "ssl.key.pem", "ssl.ca.pem"}) {
    EXPECT_NE(ScopeOf(name), PropertyScope::kUnknown) << name;
    EXPECT_TRUE(redact::IsSensitiveKafkaProperty(name)) << name;
  }
  EXPECT_FALSE(redact::IsSensitiveKafkaProperty("ssl.certificate.pem"));
  EXPECT_FALSE(redact::IsSensitiveKafkaProperty("bootstrap.servers"));
  EXPECT_FALSE(redact::IsSensitiveKafkaProperty("kafka.xsasl.username"));
}

}  // namespace
}  // namespace snowcar::kafka::internal
