// SPDX-License-Identifier: Apache-2.0
// KafkaProducer::Create: which properties it refuses, forces or defaults, and that secrets
// never leak into its errors or its logs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "snowcar/common/log.h"
#include "snowcar/common/redact.h"
#include "snowcar/kafka/producer.h"
#include "support/broker_fixture.h"
#include "support/temp_dir.h"
#include "support/wait.h"

namespace snowcar::kafka {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

class ProducerConfig : public testsupport::SharedBrokerTest<ProducerConfig> {
 protected:
  Result<std::unique_ptr<KafkaProducer>> Make(std::map<std::string, std::string> properties) {
    ProducerOptions options;
    options.properties = std::move(properties);
    return KafkaProducer::Create(options);
  }
};

TEST_F(ProducerConfig, UnknownPropertyIsRefusedByName) {
  auto p = Make({{"bootstrap.servers", bootstrap()}, {"no.such.thing", "1"}});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(p.status().message().find("no.such.thing"), std::string::npos) << p.status().ToString();
}

TEST_F(ProducerConfig, BadValueIsRefusedNamingPropertyAndReason) {
  auto p = Make({{"bootstrap.servers", bootstrap()}, {"linger.ms", "soon"}});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(p.status().message().find("linger.ms"), std::string::npos) << p.status().ToString();
}

TEST_F(ProducerConfig, MissingBootstrapServersIsRefused) {
  auto p = Make({{"linger.ms", "5"}});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(p.status().message().find("bootstrap.servers"), std::string::npos);
}

TEST_F(ProducerConfig, TransactionalIdIsRefused) {
  auto p = Make({{"bootstrap.servers", bootstrap()}, {"transactional.id", "x"}});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(p.status().message().find("transactional.id"), std::string::npos);
}

TEST_F(ProducerConfig, IdempotenceWithWeakerAcksIsRefusedAtCreate) {
  auto p = Make({{"bootstrap.servers", bootstrap()}, {"acks", "1"}});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(p.status().message().find("acks"), std::string::npos) << p.status().ToString();
}

TEST_F(ProducerConfig, ExplicitChoicesOverrideTheDefaults) {
  auto p = Make({{"bootstrap.servers", bootstrap()},
                 {"enable.idempotence", "false"},
                 {"acks", "1"},
                 {"partitioner", "consistent_random"}});
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_TRUE((*p)->MetadataReachable(seconds(5)));
}

TEST_F(ProducerConfig, ConsumerOnlyPropertiesAreDroppedNotRefused) {
  auto p = Make({{"bootstrap.servers", bootstrap()},
                 {"group.id", "sink"},
                 {"auto.offset.reset", "earliest"}});
  ASSERT_TRUE(p.ok()) << p.status().ToString();
}

TEST_F(ProducerConfig, RefusedSecretValueNeverAppearsInTheError) {
  const std::string secret = "Zq9-very-private-value";
  // librdkafka quotes the value it refuses; a secret-named one must not be echoed.
  auto p = Make({{"bootstrap.servers", bootstrap()},
                 {"ssl.key.password", secret},
                 {"sasl.mechanisms", "NOT-A-MECHANISM"},
                 {"security.protocol", secret}});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().ToString().find(secret), std::string::npos) << p.status().ToString();
  auto q = Make({{"bootstrap.servers", bootstrap()}, {"my.token", secret}});
  ASSERT_FALSE(q.ok());
  EXPECT_NE(q.status().message().find("my.token"), std::string::npos);
  EXPECT_EQ(q.status().message().find(secret), std::string::npos) << q.status().ToString();
}

TEST_F(ProducerConfig, SecretValuesNeverReachTheLog) {
  testsupport::TempDir dir;
  const std::string log_path = dir.File("log.jsonl");
  const int fd = ::open(log_path.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0600);
  ASSERT_GE(fd, 0);
  log::SetFd(fd);
  log::SetLevel(log::Level::kDebug);
  const std::string secret = "Pw-4f9c0e1d-do-not-print";
  {
    // debug=conf makes librdkafka log its whole configuration.
    auto p = Make({{"bootstrap.servers", bootstrap()},
                   {"debug", "conf,generic"},
                   {"sasl.username", "snowcar"},
                   {"sasl.password", secret}});
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    (*p)->Close(milliseconds(0));
  }
  log::SetLevel(log::Level::kInfo);
  log::SetFd(2);
  ::close(fd);
  std::ifstream in(log_path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("kafka.librdkafka"), std::string::npos)
      << "librdkafka's log lines should come through snowcar's logger";
  EXPECT_EQ(text.str().find(secret), std::string::npos);
}

TEST_F(ProducerConfig, StatisticsArriveWhenEnabled) {
  ProducerOptions options;
  options.properties = {{"bootstrap.servers", bootstrap()}};
  options.statistics_interval_ms = 100;
  auto p = KafkaProducer::Create(options);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  ASSERT_TRUE(
      testsupport::WaitFor([&] { return !(*p)->LastStatisticsJson().empty(); }, seconds(5)));
  EXPECT_EQ((*p)->LastStatisticsJson().front(), '{');
  EXPECT_NE((*p)->LastStatisticsJson().find("\"type\": \"producer\""), std::string::npos);

  auto quiet = Make({{"bootstrap.servers", bootstrap()}});
  ASSERT_TRUE(quiet.ok());
  EXPECT_EQ((*quiet)->LastStatisticsJson(), "");
}

TEST_F(ProducerConfig, UnreachableBootstrapIsNotReachable) {
  auto p = Make({{"bootstrap.servers", "127.0.0.1:1"}});
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_FALSE((*p)->MetadataReachable(milliseconds(300)));
}

}  // namespace
}  // namespace snowcar::kafka
