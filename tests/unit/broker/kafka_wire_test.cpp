// SPDX-License-Identifier: Apache-2.0
// The relay's protocol pieces on hand-built messages: what is rewritten, what is answered,
// and that broken input is refused instead of read past its end.
#include "testbed/broker/kafka_wire.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace snowcar::broker::internal {
namespace {

void I16(std::string& out, int16_t v) {
  out.push_back(static_cast<char>((static_cast<uint16_t>(v) >> 8) & 0xff));
  out.push_back(static_cast<char>(static_cast<uint16_t>(v) & 0xff));
}
void I32(std::string& out, int32_t v) {
  const auto u = static_cast<uint32_t>(v);
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((u >> shift) & 0xff));
}
void Str(std::string& out, const std::string& s) {
  I16(out, static_cast<int16_t>(s.size()));
  out += s;
}

struct Reader {
  const std::string& s;
  size_t pos = 0;
  int16_t I16() {
    const auto v = static_cast<int16_t>((static_cast<unsigned char>(s[pos]) << 8) |
                                        static_cast<unsigned char>(s[pos + 1]));
    pos += 2;
    return v;
  }
  int32_t I32() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(s[pos + i]);
    pos += 4;
    return static_cast<int32_t>(v);
  }
  std::string Str() {
    const int16_t n = I16();
    if (n < 0) return "<null>";
    std::string out = s.substr(pos, static_cast<size_t>(n));
    pos += static_cast<size_t>(n);
    return out;
  }
};

// Metadata v2 answer: two brokers on mock ports 9001 and 9002, controller 0, one topic.
std::string MetadataV2() {
  std::string m;
  I32(m, 77);  // correlation id
  I32(m, 2);
  for (int id : {1, 2}) {
    I32(m, id);
    Str(m, "127.0.0.1");
    I32(m, 9000 + id);
    I16(m, -1);  // rack: null
  }
  Str(m, "mockCluster1");
  I32(m, 0);  // controller: none
  I32(m, 0);  // topics: none
  return m;
}

TEST(KafkaWire, MetadataGetsTheFrontPortsAndARealController) {
  std::string m = MetadataV2();
  const size_t size = m.size();
  ASSERT_TRUE(RewriteMetadataAnswer(m, 2, {{9001, 41001}, {9002, 41002}}));
  EXPECT_EQ(m.size(), size);
  Reader r{m};
  EXPECT_EQ(r.I32(), 77);
  ASSERT_EQ(r.I32(), 2);
  for (int id : {1, 2}) {
    EXPECT_EQ(r.I32(), id);
    EXPECT_EQ(r.Str(), "127.0.0.1");
    EXPECT_EQ(r.I32(), 41000 + id);
    EXPECT_EQ(r.Str(), "<null>");
  }
  EXPECT_EQ(r.Str(), "mockCluster1");
  EXPECT_EQ(r.I32(), 1) << "the first listed broker stands in as controller";
}

TEST(KafkaWire, ApiVersionsGainCreateTopicsOnce) {
  std::string a;
  I32(a, 5);
  I16(a, 0);  // no error
  I32(a, 2);
  for (int16_t key : {int16_t{0}, int16_t{3}}) {
    I16(a, key);
    I16(a, 0);
    I16(a, 2);
  }
  I32(a, 0);  // v1: throttle time
  ASSERT_TRUE(AddCreateTopicsToApiVersions(a, 1));
  Reader r{a};
  EXPECT_EQ(r.I32(), 5);
  EXPECT_EQ(r.I16(), 0);
  ASSERT_EQ(r.I32(), 3);
  r.pos += 12;
  EXPECT_EQ(r.I16(), kApiCreateTopics);
  EXPECT_EQ(r.I16(), 0);
  EXPECT_EQ(r.I16(), kCreateTopicsMaxVersion);
  EXPECT_EQ(r.I32(), 0);
  EXPECT_EQ(r.pos, a.size());
  const std::string once = a;
  ASSERT_TRUE(AddCreateTopicsToApiVersions(a, 1));
  EXPECT_EQ(a, once) << "listed already: unchanged";
}

std::string CreateTopicsRequest(int16_t version, const std::vector<std::string>& names,
                                int32_t partitions) {
  std::string q;
  I16(q, kApiCreateTopics);
  I16(q, version);
  I32(q, 9);  // correlation id
  Str(q, "rdkafka");
  I32(q, static_cast<int32_t>(names.size()));
  for (const auto& name : names) {
    Str(q, name);
    I32(q, partitions);
    I16(q, -1);  // replication: default
    I32(q, 0);   // assignments
    I32(q, 1);   // configs
    Str(q, "cleanup.policy");
    Str(q, "compact");
  }
  I32(q, 5000);                      // timeout
  if (version >= 1) q.push_back(0);  // validate_only
  return q;
}

TEST(KafkaWire, CreateTopicsIsAnsweredPerTopicInTheAskedVersion) {
  std::vector<TopicToCreate> asked;
  const auto create = [&](const TopicToCreate& t) -> CreateOutcome {
    asked.push_back(t);
    if (t.name == "taken") return {kErrTopicAlreadyExists, "topic 'taken' already exists"};
    return {};
  };
  auto answer = AnswerCreateTopics(CreateTopicsRequest(4, {"a.tables", "taken"}, 3), create);
  ASSERT_TRUE(answer.has_value());
  ASSERT_EQ(asked.size(), 2u);
  EXPECT_EQ(asked[0].name, "a.tables");
  EXPECT_EQ(asked[0].partitions, 3);
  EXPECT_EQ(asked[0].replication_factor, -1);
  Reader r{*answer};
  EXPECT_EQ(r.I32(), 9);
  EXPECT_EQ(r.I32(), 0);  // throttle time (v2+)
  ASSERT_EQ(r.I32(), 2);
  EXPECT_EQ(r.Str(), "a.tables");
  EXPECT_EQ(r.I16(), 0);
  EXPECT_EQ(r.Str(), "<null>");
  EXPECT_EQ(r.Str(), "taken");
  EXPECT_EQ(r.I16(), kErrTopicAlreadyExists);
  EXPECT_EQ(r.Str(), "topic 'taken' already exists");
  EXPECT_EQ(r.pos, answer->size());

  auto v0 = AnswerCreateTopics(CreateTopicsRequest(0, {"x"}, 1), create);
  ASSERT_TRUE(v0.has_value());
  Reader r0{*v0};
  EXPECT_EQ(r0.I32(), 9);
  ASSERT_EQ(r0.I32(), 1);  // v0: no throttle time, no message
  EXPECT_EQ(r0.Str(), "x");
  EXPECT_EQ(r0.I16(), 0);
  EXPECT_EQ(r0.pos, v0->size());
}

TEST(KafkaWire, BrokenMessagesAreRefusedNotOverread) {
  const auto create = [](const TopicToCreate&) { return CreateOutcome{}; };
  const std::string full = CreateTopicsRequest(4, {"a"}, 1);
  for (size_t cut = 0; cut < full.size(); ++cut) {
    EXPECT_FALSE(AnswerCreateTopics(full.substr(0, cut), create).has_value()) << cut;
  }
  EXPECT_FALSE(AnswerCreateTopics(CreateTopicsRequest(5, {"a"}, 1), create).has_value())
      << "v5 is flexible: not ours to answer";
  // Cut anywhere up to the controller id (what follows, the topics, is not read).
  const std::string metadata = MetadataV2();
  for (size_t cut = 0; cut < metadata.size() - 4; ++cut) {
    std::string m = metadata.substr(0, cut);
    const std::string before = m;
    EXPECT_FALSE(RewriteMetadataAnswer(m, 2, {{9001, 1}})) << cut;
    EXPECT_EQ(m, before) << "left unchanged when it cannot be parsed";
  }
  std::string huge_count;
  I32(huge_count, 1);
  I32(huge_count, 0x7fffffff);  // brokers: far more than the bytes that follow
  EXPECT_FALSE(RewriteMetadataAnswer(huge_count, 2, {}));
}

TEST(KafkaWire, RequestHeaderTellsWhetherAnAnswerComes) {
  std::string produce;
  I16(produce, kApiProduce);
  I16(produce, 7);
  I32(produce, 3);
  Str(produce, "client");
  I16(produce, -1);  // transactional id: null
  I16(produce, 0);   // acks=0
  auto h = ReadRequestHeader(produce);
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->correlation_id, 3);
  EXPECT_FALSE(h->expects_answer);
  produce[produce.size() - 1] = 1;  // acks=1
  EXPECT_TRUE(ReadRequestHeader(produce)->expects_answer);
  EXPECT_FALSE(ReadRequestHeader("abc").has_value());
}

}  // namespace
}  // namespace snowcar::broker::internal
