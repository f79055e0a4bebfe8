// SPDX-License-Identifier: Apache-2.0
// The contract checker on hand-made record streams: a correct stream passes, and each kind
// of violation (loss, reorder, stale final, repeats past the bound, undecodable, sink writes
// out of order, a commit past an unapplied command) is flagged as that kind.
#include <gtest/gtest.h>

#include "checker/decode.h"
#include "checker/sink_check.h"
#include "checker/source_check.h"

namespace snowcar::contract {
namespace {

const std::string kA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const std::string kB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

KafkaRecord Upsert(int64_t offset, const std::string& id, int mod, int partition = 0,
                   const std::string& by = "alice") {
  KafkaRecord r;
  r.partition = partition;
  r.offset = offset;
  r.key = id;
  r.value = R"({"sys_id":")" + id + R"(","sys_mod_count":")" + std::to_string(mod) +
            R"(","sys_updated_by":")" + by + R"("})";
  r.headers = {{"snow.source.operation", "UPSERT"}};
  return r;
}

KafkaRecord Delete(int64_t offset, const std::string& id, int partition = 0) {
  KafkaRecord r;
  r.partition = partition;
  r.offset = offset;
  r.key = id;
  r.value = R"({"sys_id":")" + id + R"(","table":"incident"})";
  r.headers = {{"snow.source.operation", "DELETE"}};
  return r;
}

TopicDump Dump(std::vector<KafkaRecord> records) {
  TopicDump d;
  d.topic = "t";
  d.marks = {{0, 0, static_cast<int64_t>(records.size())}};
  d.records = std::move(records);
  return d;
}

Verdict Check(const TopicDump& dump, const SourceExpectations& want, SourceFormat format = {}) {
  SourceDecoder decoder(format, nullptr);
  return CheckSourceTopic(dump, decoder, want);
}

SourceExpectations Rows(std::vector<FinalRow> rows) {
  SourceExpectations want;
  want.rows = std::move(rows);
  return want;
}

TEST(SourceChecker, AStreamThatKeepsEveryPromisePasses) {
  auto v = Check(Dump({Upsert(0, kA, 0), Upsert(1, kB, 0), Upsert(2, kA, 1)}),
                 Rows({{kA, 1, "alice"}, {kB, 0, "alice"}}));
  EXPECT_TRUE(v.ok()) << v.Summary();
}

TEST(SourceChecker, FlagsAFinalVersionThatIsNotOnTheTopic) {
  auto v = Check(Dump({Upsert(0, kA, 0)}), Rows({{kA, 0, "alice"}, {kB, 3, "alice"}}));
  EXPECT_TRUE(v.Has(ViolationKind::kLost)) << v.Summary();
}

TEST(SourceChecker, FlagsALostDeletionInAuditMode) {
  auto want = Rows({});
  want.deleted = {kA};
  want.deletes_audit = true;
  auto v = Check(Dump({Upsert(0, kA, 0)}), want);
  EXPECT_TRUE(v.Has(ViolationKind::kLost)) << v.Summary();
  // Reconciliation only reports rows it emitted: a never-emitted row's deletion is not owed.
  want.deletes_audit = false;
  want.deletes_reconcile = true;
  EXPECT_TRUE(Check(Dump({Upsert(0, kB, 0)}),
                    [&] {
                      auto w = want;
                      w.rows = {{kB, 0, "alice"}};
                      return w;
                    }())
                  .ok());
}

TEST(SourceChecker, FlagsVersionsThatGoBack) {
  auto v =
      Check(Dump({Upsert(0, kA, 2), Upsert(1, kA, 1), Upsert(2, kA, 2)}), Rows({{kA, 2, "alice"}}));
  EXPECT_TRUE(v.Has(ViolationKind::kReorder)) << v.Summary();
  EXPECT_FALSE(v.Has(ViolationKind::kStaleFinal));
}

TEST(SourceChecker, FlagsAnUpsertAfterTheRowsDelete) {
  auto want = Rows({});
  want.deleted = {kA};
  want.deletes_reconcile = true;
  auto v = Check(Dump({Upsert(0, kA, 0), Delete(1, kA), Upsert(2, kA, 0)}), want);
  EXPECT_TRUE(v.Has(ViolationKind::kReorder)) << v.Summary();
  EXPECT_TRUE(v.Has(ViolationKind::kStaleFinal)) << v.Summary();
}

TEST(SourceChecker, FlagsAKeyOnTwoPartitions) {
  auto v = Check(Dump({Upsert(0, kA, 0, 0), Upsert(0, kA, 1, 1)}), Rows({{kA, 1, "alice"}}));
  EXPECT_TRUE(v.Has(ViolationKind::kReorder)) << v.Summary();
}

TEST(SourceChecker, FlagsAStaleLastRecord) {
  // Version 3 reached the topic, then a stale version 2 (finding: reconciliation re-emitting
  // a held old version) is the key's last record.
  auto v = Check(Dump({Upsert(0, kA, 3), Upsert(1, kA, 2)}), Rows({{kA, 3, "alice"}}));
  EXPECT_TRUE(v.Has(ViolationKind::kStaleFinal)) << v.Summary();
}

TEST(SourceChecker, FlagsRepeatsPastTheBoundOnly) {
  auto dump = Dump({Upsert(0, kA, 0), Upsert(1, kA, 0), Upsert(2, kA, 0)});
  auto want = Rows({{kA, 0, "alice"}});
  want.duplicate_bound = 2;
  EXPECT_TRUE(Check(dump, want).ok());
  want.duplicate_bound = 1;
  EXPECT_TRUE(Check(dump, want).Has(ViolationKind::kDuplicates));
}

TEST(SourceChecker, AHiddenRowMayBeMissedDeletedAndReEmittedButNeverGoBack) {
  // kA was hidden by an ACL: reconciliation took it for deleted and emitted it again once it
  // showed, and its final version 2, written while hidden, never came. kB was not hidden.
  auto dump = Dump({Upsert(0, kA, 1), Delete(1, kA), Upsert(2, kA, 1), Upsert(3, kB, 0)});
  auto want = Rows({{kA, 2, "alice"}, {kB, 1, "alice"}});
  want.deletes_reconcile = true;
  want.hidden = {kA};
  auto v = Check(dump, want);
  EXPECT_TRUE(v.Has(ViolationKind::kLost)) << v.Summary();  // kB's version 1, not excused
  EXPECT_FALSE(v.Has(ViolationKind::kReorder)) << v.Summary();
  EXPECT_FALSE(v.Has(ViolationKind::kDuplicates)) << v.Summary();
  EXPECT_FALSE(v.Has(ViolationKind::kStaleFinal)) << v.Summary();
  dump.records.push_back(Upsert(4, kA, 0));  // still, a hidden row's versions never go back
  EXPECT_TRUE(Check(dump, want).Has(ViolationKind::kReorder));
}

TEST(SourceChecker, FlagsRecordsThatDoNotDecodeInTheDeclaredFormat) {
  auto bad_key = Upsert(0, kA, 0);
  bad_key.key = "\"" + kA + "\"";  // a JSON string key on a key.format=string topic
  auto no_op = Upsert(1, kB, 0);
  no_op.headers.clear();
  auto v = Check(Dump({bad_key, no_op}), Rows({}));
  EXPECT_EQ(v.violations.size(), 2u) << v.Summary();
  EXPECT_TRUE(v.Has(ViolationKind::kUndecodable));

  // Schemaless JSON on a topic declared avro: not framed.
  auto framed =
      Check(Dump({Upsert(0, kA, 0)}), Rows({{kA, 0, "alice"}}), {ValueFormat::kAvro, false});
  EXPECT_TRUE(framed.Has(ViolationKind::kUndecodable)) << framed.Summary();
  // A typed topic wants sys_mod_count as a number, not the instance's text.
  auto typed =
      Check(Dump({Upsert(0, kA, 0)}), Rows({{kA, 0, "alice"}}), {ValueFormat::kJsonTyped, false});
  EXPECT_TRUE(typed.Has(ViolationKind::kUndecodable)) << typed.Summary();
}

TEST(SourceChecker, ReadsFramedJsonSchemaAndAvroValues) {
  auto frame = [](int id, const std::string& payload) {
    std::string out(1, '\0');
    out += static_cast<char>(0);
    out += static_cast<char>(0);
    out += static_cast<char>(0);
    out += static_cast<char>(id);
    return out + payload;
  };
  auto r = Upsert(0, kA, 0);
  r.value = frame(7, R"({"sys_id":")" + kA + R"(","sys_mod_count":4})");
  SourceDecoder json_schema({ValueFormat::kJsonSchema, false},
                            [](int32_t id) -> std::optional<std::string> {
                              if (id == 7) return std::string("{}");
                              return std::nullopt;
                            });
  auto d = json_schema.Decode(r);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->mod_count, 4);

  // Avro: a record {sys_id: string, sys_mod_count: ["null","long"]}.
  const std::string schema =
      R"({"type":"record","name":"r","fields":[{"name":"sys_id","type":"string"},)"
      R"({"name":"sys_mod_count","type":["null","long"]}]})";
  std::string payload;
  payload += static_cast<char>(64);  // string length 32, zig-zag
  payload += kA;
  payload += static_cast<char>(2);   // union branch 1 (long)
  payload += static_cast<char>(10);  // 5, zig-zag
  r.value = frame(9, payload);
  SourceDecoder avro({ValueFormat::kAvro, false}, [&](int32_t id) -> std::optional<std::string> {
    if (id == 9) return schema;
    return std::nullopt;
  });
  d = avro.Decode(r);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->mod_count, 5);
  r.value = frame(8, payload);  // an id the registry does not know
  EXPECT_FALSE(avro.Decode(r).ok());
  r.value = frame(9, payload + "x");  // bytes left over
  EXPECT_FALSE(avro.Decode(r).ok());
}

TEST(SourceChecker, AnEvictedPartitionMakesTheCheckVoidNotLost) {
  auto dump = Dump({});
  dump.marks = {{0, 5, 9}};
  auto v = Check(dump, Rows({{kA, 0, "alice"}}));
  EXPECT_TRUE(v.void_check);
  EXPECT_FALSE(v.Has(ViolationKind::kLost));
  EXPECT_FALSE(v.ok());
}

TEST(SourceChecker, SuppressedSinkVersionsMayBeMissingButOthersMayNot) {
  auto want = Rows({{kA, 2, "admin"}, {kB, 1, "alice"}});
  want.suppress_sink_versions = true;
  want.sink_user = "admin";
  auto v = Check(Dump({Upsert(0, kA, 0), Upsert(1, kB, 0)}), want);
  EXPECT_FALSE(v.ok());
  ASSERT_EQ(v.violations.size(), 1u) << v.Summary();
  EXPECT_NE(v.violations[0].detail.find(kB), std::string::npos);
}

TEST(SourceChecker, FlagsAnEchoMarkOnAVersionTheSinkDidNotWrite) {
  auto marked = Upsert(0, kA, 1, 0, "alice");
  marked.headers.push_back({"snow.origin", "sink"});
  auto want = Rows({{kA, 1, "alice"}});
  want.sink_user = "admin";
  EXPECT_TRUE(Check(Dump({marked}), want).Has(ViolationKind::kWrongMark));
  auto right = Upsert(0, kA, 1, 0, "admin");
  right.headers.push_back({"snow.origin", "sink"});
  want.rows = {{kA, 1, "admin"}};
  EXPECT_TRUE(Check(Dump({right}), want).ok());
}

// --- sink ---------------------------------------------------------------------------------

SinkObservation TwoCommands() {
  SinkObservation s;
  s.commands = {{0, 0, kA, "v1"}, {0, 1, kA, "v2"}};
  s.reports = {{0, 0, kA, 1}, {0, 1, kA, 2}};
  s.final_values = {{kA, "v2"}};
  s.applied_writes = {{kA, 2}};
  s.committed = {{0, 2}};
  return s;
}

TEST(SinkChecker, WritesInOffsetOrderPass) { EXPECT_TRUE(CheckSink(TwoCommands()).ok()); }

TEST(SinkChecker, AReplayAfterACrashIsInOrder) {
  auto s = TwoCommands();
  s.reports = {{0, 0, kA, 1}, {0, 1, kA, 2}, {0, 0, kA, 3}, {0, 1, kA, 4}};
  EXPECT_TRUE(CheckSink(s).ok()) << CheckSink(s).Summary();
}

TEST(SinkChecker, FlagsAnOldWriteLandingAfterANewerOne) {
  auto s = TwoCommands();
  s.reports.push_back({0, 0, kA, 3});  // v1 lands again after v2, nothing follows
  s.final_values = {{kA, "v1"}};
  auto v = CheckSink(s);
  EXPECT_TRUE(v.Has(ViolationKind::kSinkOutOfOrder)) << v.Summary();
}

TEST(SinkChecker, FlagsAWriteThatSkipsAhead) {
  auto s = TwoCommands();
  s.commands.push_back({0, 2, kA, "v3"});
  s.reports = {{0, 1, kA, 1}, {0, 0, kA, 2}, {0, 1, kA, 3}, {0, 2, kA, 4}};
  s.final_values = {{kA, "v3"}};
  s.applied_writes = {{kA, 4}};
  s.committed = {{0, 3}};
  auto v = CheckSink(s);
  EXPECT_TRUE(v.Has(ViolationKind::kSinkOutOfOrder)) << v.Summary();
}

TEST(SinkChecker, FlagsACommitPastAnUnappliedCommand) {
  auto s = TwoCommands();
  s.applied_writes = {{kA, 1}};
  s.reports = {{0, 1, kA, 1}};
  auto v = CheckSink(s);
  EXPECT_TRUE(v.Has(ViolationKind::kSinkUncommitted)) << v.Summary();
  EXPECT_TRUE(v.Has(ViolationKind::kSinkUnfinished)) << v.Summary();
  // Dead-lettered is finished.
  s.dead_lettered = {{0, 0}};
  EXPECT_TRUE(CheckSink(s).ok()) << CheckSink(s).Summary();
}

}  // namespace
}  // namespace snowcar::contract
