// SPDX-License-Identifier: Apache-2.0
// CommitPrefix: the offset to commit under key ordering is the first record not done; the
// records done above it travel in the commit metadata and are skipped by the next owner.
#include "sink/lanes/commit_prefix.h"

#include <gtest/gtest.h>

#include "sink/lanes/ordering_key.h"
#include "snowcar/schema_registry/client.h"
#include "snowcar/schema_registry/framed_decoder.h"
#include "snowcar/schema_registry/wire_format.h"

namespace snowcar::sink {
namespace {

TEST(CommitPrefix, CommitsOnlyTheContiguousDonePrefix) {
  CommitPrefix p;
  p.Reset(10, "");
  for (int64_t o = 10; o < 15; ++o) EXPECT_FALSE(p.Track(o));
  EXPECT_EQ(p.next(), 10);
  EXPECT_EQ(p.held(), 5u);
  p.MarkDone(12);
  p.MarkDone(14);
  EXPECT_EQ(p.next(), 10) << "10 is not done: the commit stays before it";
  p.MarkDone(10);
  EXPECT_EQ(p.next(), 11);
  p.MarkDone(11);
  EXPECT_EQ(p.next(), 13) << "11 and the done 12 pass; 13 holds";
  EXPECT_EQ(p.held(), 2u);
  p.MarkDone(13);
  EXPECT_EQ(p.next(), 15);
  EXPECT_EQ(p.held(), 0u);
  EXPECT_EQ(p.Metadata(), "");
}

TEST(CommitPrefix, GapsInOffsetsNeverHoldThePrefix) {
  CommitPrefix p;  // no committed offset known: starts at the first record
  EXPECT_FALSE(p.Track(100));
  EXPECT_FALSE(p.Track(103));  // 101, 102: transaction markers or compacted away
  EXPECT_EQ(p.next(), 100);
  p.MarkDone(100);
  EXPECT_EQ(p.next(), 103);
  p.MarkDone(103);
  EXPECT_EQ(p.next(), 104);
}

TEST(CommitPrefix, MetadataListsTheDoneRecordsAboveTheCommitAndRoundTrips) {
  CommitPrefix p;
  p.Reset(1000, "");
  for (int64_t o = 1000; o < 1020; ++o) p.Track(o);
  for (int64_t o : {1001, 1002, 1007, 1019}) p.MarkDone(o);
  const std::string meta = p.Metadata();
  EXPECT_EQ(meta.rfind("snowcar-k1:", 0), 0u) << meta;
  EXPECT_EQ(CommitPrefix::ParseMetadata(p.next(), meta),
            (std::set<int64_t>{1001, 1002, 1007, 1019}));

  // The next owner starts from the commit and its metadata: the listed records are done.
  CommitPrefix next;
  next.Reset(p.next(), meta);
  EXPECT_FALSE(next.Track(1000));
  EXPECT_TRUE(next.Track(1001));
  EXPECT_TRUE(next.Track(1002));
  EXPECT_FALSE(next.Track(1003));
  EXPECT_EQ(next.Metadata(), meta) << "still listed until the commit passes them";
  next.MarkDone(1000);
  EXPECT_EQ(next.next(), 1003);
  EXPECT_EQ(CommitPrefix::ParseMetadata(next.next(), next.Metadata()),
            (std::set<int64_t>{1007, 1019}));
}

TEST(CommitPrefix, ForeignOrDamagedMetadataMeansNothingIsDone) {
  EXPECT_TRUE(CommitPrefix::ParseMetadata(5, "").empty());
  EXPECT_TRUE(CommitPrefix::ParseMetadata(5, "some other client's note").empty());
  EXPECT_TRUE(CommitPrefix::ParseMetadata(5, "snowcar-k1:0fz").empty());
  EXPECT_TRUE(CommitPrefix::ParseMetadata(-1, "snowcar-k1:f").empty());
  CommitPrefix p;
  p.Reset(5, "snowcar-k2:ff");
  EXPECT_FALSE(p.Track(5));
  EXPECT_FALSE(p.Track(6));
}

TEST(CommitPrefix, MetadataStaysWithinTheBrokersLimit) {
  CommitPrefix p;
  p.Reset(0, "");
  for (int64_t o = 0; o < 20000; ++o) p.Track(o);
  for (int64_t o = 1; o < 20000; ++o) p.MarkDone(o);
  const std::string meta = p.Metadata();
  EXPECT_LE(meta.size(), CommitPrefix::kMaxMetadataChars);
  const auto listed = CommitPrefix::ParseMetadata(0, meta);
  // The lowest done records are the ones kept: the next owner repeats only the newest.
  EXPECT_TRUE(listed.count(1));
  EXPECT_FALSE(listed.count(19999));
  EXPECT_GE(listed.size(), 11000u);
}

TEST(OrderingKey, KeyThenCorrelationValueThenOneChain) {
  SinkSettings s;
  kafka::InRecord r;
  r.key = "abc";
  r.value = R"({"correlation_id":"X"})";
  EXPECT_EQ(OrderingKey(r, s), "kabc");
  r.key.reset();
  EXPECT_EQ(OrderingKey(r, s), "") << "no correlation field configured";
  s.correlation_field = "correlation_id";
  EXPECT_EQ(OrderingKey(r, s), "cX");
  r.value = R"({"correlation_id":42})";
  EXPECT_EQ(OrderingKey(r, s), "c42");
  r.value = R"({"short_description":"no id"})";
  EXPECT_EQ(OrderingKey(r, s), "");
  r.value = "not json";
  EXPECT_EQ(OrderingKey(r, s), "");
  r.key = "";
  r.value.reset();
  EXPECT_EQ(OrderingKey(r, s), "") << "an empty key is no key";
}

// A registry holding one JSON Schema, id 7: enough for the decoder to read framed commands.
class OneSchemaRegistry final : public schema_registry::SchemaRegistryClient {
 public:
  Result<int32_t> RegisterSchema(std::string_view, schema_registry::SchemaType,
                                 std::string_view) override {
    return Status::Unavailable("read-only");
  }
  Result<schema_registry::RegisteredSchema> SchemaById(int32_t id) override {
    if (id != 7) return Status::NotFound("no schema " + std::to_string(id));
    return schema_registry::RegisteredSchema{
        .id = 7, .type = schema_registry::SchemaType::kJson, .schema = R"({"type":"object"})"};
  }
  Result<bool> IsCompatible(std::string_view, schema_registry::SchemaType,
                            std::string_view) override {
    return true;
  }
};

TEST(OrderingKey, AFramedCommandSharesTheChainOfItsJsonTwin) {
  SinkSettings s;
  s.correlation_field = "correlation_id";
  OneSchemaRegistry registry;
  schema_registry::FramedDecoder decoder(registry);
  kafka::InRecord json;
  json.value = R"({"correlation_id":"X","short_description":"a"})";
  kafka::InRecord framed;
  framed.value = schema_registry::Frame(7, *json.value);
  EXPECT_EQ(OrderingKey(json, s, &decoder), "cX");
  EXPECT_EQ(OrderingKey(framed, s, &decoder), "cX") << "keyless: the correlation value";
  framed.key = schema_registry::Frame(7, R"("row-1")");
  json.key = R"("row-1")";
  EXPECT_EQ(OrderingKey(framed, s, &decoder), OrderingKey(json, s, &decoder)) << "keyed";
  // What cannot be decoded is ordered by its bytes, as without a registry.
  kafka::InRecord unknown;
  unknown.value = schema_registry::Frame(8, *json.value);
  EXPECT_EQ(OrderingKey(unknown, s, &decoder), "");
  EXPECT_EQ(OrderingKey(framed, s, nullptr), "k" + *framed.key);
}

}  // namespace
}  // namespace snowcar::sink
