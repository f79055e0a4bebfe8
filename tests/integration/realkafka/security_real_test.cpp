// SPDX-License-Identifier: Apache-2.0
// SASL_SSL and ACLs on Apache Kafka, as docs/production.md sets them up: what the embedded
// broker cannot show, since librdkafka's mock cluster has no TLS, no SASL and no authorizer.
//
// Kafka behaviour proven: the broker authenticates SCRAM-SHA-512 and PLAIN over TLS with a
// private CA, refuses a wrong password, and its StandardAuthorizer lets the principal do
// exactly what the documented ACLs grant and refuses the rest (TOPIC_AUTHORIZATION_FAILED,
// GROUP_AUTHORIZATION_FAILED) until the missing ACL is added.
// A certificate that expired fails the TLS handshake like one no trusted CA signed.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <csignal>
#include <set>
#include <string>
#include <vector>

#include "real_kafka.h"
#include "snowcar/testbed/emulator/data_gen.h"
#include "support/wait.h"

namespace snowcar::realkafka {
namespace {

using namespace std::chrono_literals;
using testsupport::Acl;

constexpr size_t kRows = 5;

class SecuredSidecarTest : public RealKafkaTest {
 protected:
  void SetUp() override {
    RealKafkaTest::SetUp();
    if (HasFatalFailure()) return;
    StartBroker();
    if (HasFatalFailure()) return;
    ASSERT_TRUE(emulator::Populate(emu_.store(), "incident", {.rows = kRows}).ok());
    const std::string id = testsupport::UniqueName("sec");
    table_topic_ = id + ".incident";
    commands_ = id + ".commands";
    dlq_ = id + ".dlq";
    group_ = id + "-commands";
    for (const auto& [topic, partitions] :
         std::vector<std::pair<std::string, int>>{{table_topic_, 1}, {commands_, 2}, {dlq_, 1}}) {
      ASSERT_TRUE(testsupport::CreateTopic(kafka_.Admin(), topic, partitions).ok()) << topic;
    }
  }

  // The run's shared broker by default; a fixture that needs a broker set up differently
  // starts one of its own here.
  virtual void StartBroker() {}

  // docs/production.md, "The clients and the ACLs each needs", for a sidecar with the source
  // (no source group) and the sink with a DLQ. IdempotentWrite is not listed: Kafka 3.0 and
  // newer allow the idempotent producer with Write on the topic.
  std::vector<Acl> DocumentedAcls(const std::string& user) const {
    const std::string p = "User:" + user;
    return {{RD_KAFKA_RESOURCE_TOPIC, table_topic_, p, RD_KAFKA_ACL_OPERATION_WRITE},
            {RD_KAFKA_RESOURCE_TOPIC, table_topic_, p, RD_KAFKA_ACL_OPERATION_DESCRIBE},
            {RD_KAFKA_RESOURCE_TOPIC, dlq_, p, RD_KAFKA_ACL_OPERATION_WRITE},
            {RD_KAFKA_RESOURCE_TOPIC, dlq_, p, RD_KAFKA_ACL_OPERATION_DESCRIBE},
            {RD_KAFKA_RESOURCE_TOPIC, commands_, p, RD_KAFKA_ACL_OPERATION_READ},
            {RD_KAFKA_RESOURCE_TOPIC, commands_, p, RD_KAFKA_ACL_OPERATION_DESCRIBE},
            {RD_KAFKA_RESOURCE_GROUP, group_, p, RD_KAFKA_ACL_OPERATION_READ},
            {RD_KAFKA_RESOURCE_GROUP, group_, p, RD_KAFKA_ACL_OPERATION_DESCRIBE}};
  }

  // Grants the documented ACLs but `missing`.
  void GrantAllBut(const std::string& user, const std::vector<Acl>& missing = {}) {
    std::vector<Acl> grant;
    for (const auto& acl : DocumentedAcls(user)) {
      bool skip = false;
      for (const auto& m : missing) {
        skip = skip ||
               (m.resource == acl.resource && m.name == acl.name && m.operation == acl.operation);
      }
      if (!skip) grant.push_back(acl);
    }
    ASSERT_TRUE(testsupport::CreateAcls(kafka_.Admin(), grant).ok());
  }

  // The production example's Kafka keys (docs/examples/production.properties) pointed at
  // this broker, both directions, a DLQ and `log` so a refused command does not stop its lane.
  std::vector<std::string> Config(const std::string& name, const std::string& user,
                                  const std::string& password,
                                  const std::string& mechanism = "SCRAM-SHA-512") const {
    auto lines = BaseConfig(name);
    lines.insert(
        lines.end(),
        {"kafka.bootstrap.servers=" + kafka_.sasl_ssl, "kafka.security.protocol=SASL_SSL",
         "kafka.sasl.mechanisms=" + mechanism, "kafka.sasl.username=" + user,
         "kafka.sasl.password.file=" + SecretFile(name + "-kafka-password", password),
         "kafka.ssl.ca.location=" + kafka_.ca_location, "kafka.group.id=" + group_,
         "source.enabled=true", "snow.tables=incident", "snow.table.incident.name=incident",
         "snow.table.incident.topic=" + table_topic_, "snow.source.poll.interval.ms=500",
         "sink.enabled=true", "snow.sink.topics=" + commands_, "snow.sink.table=incident",
         "snow.sink.unknown.field.behavior=passthrough", "behavior.on.api.errors=log",
         "errors.deadletterqueue.topic.name=" + dlq_, "snow.retry.max.backoff.ms=1000"});
    return lines;
  }

  // Distinct keys in `topic`, read over PLAINTEXT from the start, once at least `n` are there.
  bool TopicReaches(const std::string& topic, size_t n, std::chrono::milliseconds timeout) {
    auto consumer = testsupport::TestConsumer::Create(kafka_.plaintext,
                                                      testsupport::UniqueName("reader"), {topic});
    if (!consumer.ok()) return false;
    std::set<std::string> keys;
    auto r = (*consumer)->PollUntil(
        [&](const std::vector<testsupport::Message>& messages) {
          for (const auto& m : messages) keys.insert(m.key.value_or(""));
          return keys.size() >= n;
        },
        timeout);
    return r.ok();
  }

  void ProduceCommand(const std::string& value) {
    testsupport::OutMessage m;  // no key: the sink would read one as the row's sys_id
    m.value = value;
    auto r = testsupport::ProduceMessages(kafka_.plaintext, commands_, {m}, 30s);
    ASSERT_TRUE(r.ok()) << r.status().message();
  }

  // The health document's component `name`: {"ok":..,"detail":..}, or null.
  boost::json::value Component(const std::string& sidecar, const std::string& name) {
    boost::system::error_code ec;
    auto v = boost::json::parse(Get(sidecar, "/v1/health"), ec);
    if (ec || !v.is_object()) return nullptr;
    const auto* c = v.as_object().if_contains("components");
    if (c == nullptr || !c->is_object()) return nullptr;
    const auto* entry = c->as_object().if_contains(name);
    return entry != nullptr ? *entry : boost::json::value(nullptr);
  }
  bool ComponentOk(const std::string& sidecar, const std::string& name) {
    auto c = Component(sidecar, name);
    return c.is_object() && c.as_object().at("ok").as_bool();
  }
  std::string ComponentDetail(const std::string& sidecar, const std::string& name) {
    auto c = Component(sidecar, name);
    return c.is_object() ? std::string(c.as_object().at("detail").as_string()) : "";
  }

  static void Stop(testsupport::ChildProcess& child) {
    ASSERT_TRUE(child.Signal(SIGTERM).ok());
    auto exit = child.Wait(60s);
    ASSERT_TRUE(exit.ok());
    EXPECT_TRUE(exit->ok()) << exit->ToString() << "\n" << child.Stderr();
  }

  std::string table_topic_, commands_, dlq_, group_;
};

TEST_F(SecuredSidecarTest, ScramOverTlsWithExactlyTheDocumentedAclsRunsBothDirections) {
  GrantAllBut(kafka_.scram_user);
  auto child = StartSidecar("s", Config("s", kafka_.scram_user, kafka_.scram_password));
  ASSERT_NE(child, nullptr);
  // Source: every row reaches the table topic through the SASL_SSL listener.
  EXPECT_TRUE(TopicReaches(table_topic_, kRows, 60s)) << child->Stderr();
  // Sink: a command is applied, and one that is not JSON is dead-lettered.
  ProduceCommand(R"({"short_description":"over SASL_SSL"})");
  EXPECT_TRUE(testsupport::WaitFor([&] { return IncidentRows() == kRows + 1; }, 60s))
      << child->Stderr();
  ProduceCommand("not json");
  EXPECT_TRUE(TopicReaches(dlq_, 1, 60s)) << child->Stderr();
  EXPECT_TRUE(ComponentOk("s", "kafka")) << Get("s", "/v1/health");
  EXPECT_TRUE(ComponentOk("s", "sink")) << Get("s", "/v1/health");
  // The password never shows.
  EXPECT_EQ(child->Stderr().find(kafka_.scram_password), std::string::npos);
  Stop(*child);
}

TEST_F(SecuredSidecarTest, PlainOverTlsRunsToo) {
  GrantAllBut(kafka_.plain_user);
  auto child = StartSidecar("p", Config("p", kafka_.plain_user, kafka_.plain_password, "PLAIN"));
  ASSERT_NE(child, nullptr);
  EXPECT_TRUE(TopicReaches(table_topic_, kRows, 60s)) << child->Stderr();
  ProduceCommand(R"({"short_description":"over PLAIN"})");
  EXPECT_TRUE(testsupport::WaitFor([&] { return IncidentRows() == kRows + 1; }, 60s))
      << child->Stderr();
  Stop(*child);
}

TEST_F(SecuredSidecarTest, AWrongPasswordDegradesHealthNamesTheCauseAndDoesNotCrashLoop) {
  GrantAllBut(kafka_.scram_user);
  const std::string wrong = "not-the-password-7f3a";
  auto lines = Config("w", kafka_.scram_user, wrong);
  // The source's rows stay in flight while no broker accepts the client, and a stop waits
  // shutdown.timeout.ms (30 s by default) for them before it gives them up (not committed,
  // so read again after a restart). A short one keeps the test short.
  lines.push_back("shutdown.timeout.ms=3000");
  auto child = StartSidecar("w", lines);
  ASSERT_NE(child, nullptr);
  // The log names the cause: the broker refused the SASL credentials.
  ASSERT_TRUE(testsupport::WaitFor(
      [&] { return child->Stderr().find("_AUTHENTICATION") != std::string::npos; }, 60s))
      << child->Stderr();
  EXPECT_NE(child->Stderr().find("SASL authentication error"), std::string::npos)
      << child->Stderr();
  // Health degraded with Kafka not ok; not ready; and the process stays up (a pod restart
  // cannot fix a password: it would only loop).
  ASSERT_TRUE(testsupport::WaitFor([&] { return !Get("w", "/v1/health").empty(); }, 30s));
  EXPECT_TRUE(testsupport::WaitFor([&] { return !ComponentOk("w", "kafka"); }, 30s))
      << Get("w", "/v1/health");
  EXPECT_NE(Get("w", "/v1/health").find("\"degraded\""), std::string::npos);
  // The sink's component says why: the broker refused the credentials.
  EXPECT_TRUE(testsupport::WaitFor(
      [&] { return ComponentDetail("w", "sink").find("SASL authentication") != std::string::npos; },
      30s))
      << Get("w", "/v1/health");
  EXPECT_EQ(Get("w", "/v1/ready"), "");
  EXPECT_FALSE(child->Wait(3s).ok()) << "the sidecar exited: " << child->Stderr();
  // Nothing was produced, nothing applied, and the wrong password is not in the log.
  EXPECT_EQ(IncidentRows(), kRows);
  EXPECT_EQ(child->Stderr().find(wrong), std::string::npos);
  Stop(*child);
}

TEST_F(SecuredSidecarTest, AnUnknownCaDegradesHealthNamesTheCauseAndDoesNotCrashLoop) {
  GrantAllBut(kafka_.scram_user);
  auto lines = Config("u", kafka_.scram_user, kafka_.scram_password);
  // Debian's public CAs, which do not include the test CA that signed the broker's certificate.
  for (auto& line : lines) {
    if (line.rfind("kafka.ssl.ca.location=", 0) == 0) {
      line = "kafka.ssl.ca.location=/etc/ssl/certs/ca-certificates.crt";
    }
  }
  lines.push_back("shutdown.timeout.ms=3000");
  auto child = StartSidecar("u", lines);
  ASSERT_NE(child, nullptr);
  ASSERT_TRUE(testsupport::WaitFor(
      [&] { return child->Stderr().find("certificate verify failed") != std::string::npos; }, 60s))
      << child->Stderr();
  ASSERT_TRUE(testsupport::WaitFor([&] { return !Get("u", "/v1/health").empty(); }, 30s));
  EXPECT_TRUE(testsupport::WaitFor([&] { return !ComponentOk("u", "kafka"); }, 30s))
      << Get("u", "/v1/health");
  EXPECT_TRUE(testsupport::WaitFor(
      [&] { return ComponentDetail("u", "sink").find("certificate") != std::string::npos; }, 30s))
      << Get("u", "/v1/health");
  EXPECT_EQ(Get("u", "/v1/ready"), "");
  EXPECT_FALSE(child->Wait(3s).ok()) << "the sidecar exited: " << child->Stderr();
  EXPECT_EQ(IncidentRows(), kRows);
  Stop(*child);
}

// A broker of its own whose certificate, signed by the test CA the client trusts, expired in
// 2020 (scripts/kafka-server --expired-cert): the chain is right, the dates are not.
class ExpiredCertSidecarTest : public SecuredSidecarTest {
 protected:
  void StartBroker() override { UseOwnBroker({"--expired-cert"}); }
};

TEST_F(ExpiredCertSidecarTest, AnExpiredBrokerCertificateDegradesHealthAndLosesNothing) {
  GrantAllBut(kafka_.scram_user);
  auto lines = Config("x", kafka_.scram_user, kafka_.scram_password);
  lines.push_back("shutdown.timeout.ms=3000");
  auto child = StartSidecar("x", lines);
  ASSERT_NE(child, nullptr);
  // librdkafka fails the TLS handshake: the certificate does not verify.
  ASSERT_TRUE(testsupport::WaitFor(
      [&] { return child->Stderr().find("certificate verify failed") != std::string::npos; }, 60s))
      << child->Stderr();
  ASSERT_TRUE(testsupport::WaitFor([&] { return !Get("x", "/v1/health").empty(); }, 30s));
  EXPECT_TRUE(testsupport::WaitFor([&] { return !ComponentOk("x", "kafka"); }, 30s))
      << Get("x", "/v1/health");
  EXPECT_TRUE(testsupport::WaitFor(
      [&] { return ComponentDetail("x", "sink").find("certificate") != std::string::npos; }, 30s))
      << Get("x", "/v1/health");
  EXPECT_EQ(Get("x", "/v1/ready"), "");
  // A command waits in its topic meanwhile; the process stays up.
  ProduceCommand(R"({"short_description":"after the certificate"})");
  EXPECT_FALSE(child->Wait(3s).ok()) << "the sidecar exited: " << child->Stderr();
  EXPECT_EQ(IncidentRows(), kRows);
  EXPECT_FALSE(TopicReaches(table_topic_, 1, 1s));
  Stop(*child);
  // Nothing was lost: the same sidecar (same state, same group) on the PLAINTEXT listener
  // produces every row and applies the waiting command.
  std::vector<std::string> plain;
  for (const auto& line : lines) {
    if (line.rfind("kafka.sasl.", 0) == 0 || line.rfind("kafka.ssl.", 0) == 0) continue;
    if (line.rfind("kafka.bootstrap.servers=", 0) == 0) {
      plain.push_back("kafka.bootstrap.servers=" + kafka_.plaintext);
    } else if (line.rfind("kafka.security.protocol=", 0) == 0) {
      plain.emplace_back("kafka.security.protocol=PLAINTEXT");
    } else {
      plain.push_back(line);
    }
  }
  auto again = StartSidecar("x", plain);
  ASSERT_NE(again, nullptr);
  EXPECT_TRUE(TopicReaches(table_topic_, kRows, 60s)) << again->Stderr();
  EXPECT_TRUE(testsupport::WaitFor([&] { return IncidentRows() == kRows + 1; }, 60s))
      << again->Stderr();
  Stop(*again);
}

TEST_F(SecuredSidecarTest, WithoutWriteOnTheTableTopicTheSourceHoldsAndLosesNothing) {
  const Acl write{RD_KAFKA_RESOURCE_TOPIC, table_topic_, "User:" + kafka_.scram_user,
                  RD_KAFKA_ACL_OPERATION_WRITE};
  GrantAllBut(kafka_.scram_user, {write});
  auto child = StartSidecar("t", Config("t", kafka_.scram_user, kafka_.scram_password));
  ASSERT_NE(child, nullptr);
  // The table holds: its health names the refusal; the log too.
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        return ComponentDetail("t", "source.incident").find("TOPIC_AUTHORIZATION_FAILED") !=
               std::string::npos;
      },
      60s))
      << Get("t", "/v1/health") << child->Stderr();
  EXPECT_FALSE(ComponentOk("t", "source.incident"));
  EXPECT_FALSE(TopicReaches(table_topic_, 1, 2s));
  // The sink is not affected.
  ProduceCommand(R"({"short_description":"sink still runs"})");
  EXPECT_TRUE(testsupport::WaitFor([&] { return IncidentRows() == kRows + 1; }, 60s));
  // Once the ACL exists, every row arrives: nothing was skipped while refused.
  ASSERT_TRUE(testsupport::CreateAcls(kafka_.Admin(), {write}).ok());
  EXPECT_TRUE(TopicReaches(table_topic_, kRows + 1, 60s)) << child->Stderr();
  EXPECT_TRUE(testsupport::WaitFor([&] { return ComponentOk("t", "source.incident"); }, 60s))
      << Get("t", "/v1/health");
  Stop(*child);
}

TEST_F(SecuredSidecarTest, WithoutReadOnTheGroupTheSinkAppliesNothingUntilGranted) {
  const Acl read{RD_KAFKA_RESOURCE_GROUP, group_, "User:" + kafka_.scram_user,
                 RD_KAFKA_ACL_OPERATION_READ};
  GrantAllBut(kafka_.scram_user, {read});
  auto child = StartSidecar("g", Config("g", kafka_.scram_user, kafka_.scram_password));
  ASSERT_NE(child, nullptr);
  ProduceCommand(R"({"short_description":"waits for the group ACL"})");
  ASSERT_TRUE(testsupport::WaitFor(
      [&] { return child->Stderr().find("GROUP_AUTHORIZATION_FAILED") != std::string::npos; }, 60s))
      << child->Stderr();
  EXPECT_EQ(IncidentRows(), kRows);
  // Health names the refusal (the sink would otherwise look healthy while applying nothing).
  EXPECT_TRUE(testsupport::WaitFor(
      [&] {
        return !ComponentOk("g", "sink") &&
               ComponentDetail("g", "sink").find("GROUP_AUTHORIZATION_FAILED") != std::string::npos;
      },
      30s))
      << Get("g", "/v1/health");
  ASSERT_TRUE(testsupport::CreateAcls(kafka_.Admin(), {read}).ok());
  EXPECT_TRUE(testsupport::WaitFor([&] { return IncidentRows() == kRows + 1; }, 90s))
      << child->Stderr();
  EXPECT_TRUE(testsupport::WaitFor([&] { return ComponentOk("g", "sink"); }, 30s))
      << Get("g", "/v1/health");
  Stop(*child);
}

TEST_F(SecuredSidecarTest, WithoutWriteOnTheDlqTheFailedCommandIsHeldNotLost) {
  const Acl write{RD_KAFKA_RESOURCE_TOPIC, dlq_, "User:" + kafka_.scram_user,
                  RD_KAFKA_ACL_OPERATION_WRITE};
  GrantAllBut(kafka_.scram_user, {write});
  auto child = StartSidecar("d", Config("d", kafka_.scram_user, kafka_.scram_password));
  ASSERT_NE(child, nullptr);
  ProduceCommand("not json");
  ASSERT_TRUE(testsupport::WaitFor(
      [&] { return child->Stderr().find("TOPIC_AUTHORIZATION_FAILED") != std::string::npos; }, 60s))
      << child->Stderr();
  // The record waits in its lane (backing off, class PRODUCE); the sink's health does not
  // name the refusal: the lane's state on /v1/sink/partitions and the log do.
  EXPECT_NE(Get("d", "/v1/sink/partitions").find("PRODUCE"), std::string::npos)
      << Get("d", "/v1/sink/partitions");
  EXPECT_FALSE(TopicReaches(dlq_, 1, 2s));
  ASSERT_TRUE(testsupport::CreateAcls(kafka_.Admin(), {write}).ok());
  EXPECT_TRUE(TopicReaches(dlq_, 1, 60s)) << child->Stderr();
  Stop(*child);
}

}  // namespace
}  // namespace snowcar::realkafka
