// SPDX-License-Identifier: Apache-2.0
// A deletion and its tombstone, as the source writes them, read back by snowcar's own sink:
// the pair is one deletion, and neither record is ever applied as a command (a source topic
// replayed into a sink by mistake must not delete anything, let alone twice).
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "deleted_row.h"
#include "snowcar/common/time.h"
#include "snowcar/sink/commands/command.h"
#include "snowcar/sink/sink_settings.h"
#include "snowcar/source/rows/record_builder.h"
#include "source/deletes/audit_stream.h"

namespace snowcar::source {
namespace {

using testing::kAuditId;
using testing::kRowId;
using testing::kT;

kafka::InRecord AsRead(const kafka::OutRecord& out) {
  kafka::InRecord in;
  in.topic = out.topic;
  in.key = out.key;
  in.value = out.value;
  in.headers = out.headers;
  in.timestamp_ms = out.timestamp_ms;
  return in;
}

std::vector<kafka::OutRecord> DeletionPair() {
  static const TableSettings rows = [] {
    TableSettings t = testing::IncidentRows();
    t.deletes = DeleteCapture::kAudit;
    return t;
  }();
  DeletesStream stream;
  stream.rows = &rows;
  SourceSettings source;
  source.instance = "acme.service-now.com";
  source.emit_tombstones = true;
  const boost::json::object entry{
      {"sys_id", kAuditId},     {"sys_created_on", FormatSnowTimestamp(kT)},
      {"fieldname", "DELETED"}, {"tablename", "incident"},
      {"documentkey", kRowId},  {"user", "alice"}};
  return AuditRecords(entry, RowKey{kT, kAuditId, 0}, stream, source, 1);
}

sink::SinkSettings SinkOn(std::string topic) {
  sink::SinkSettings s;
  s.topics = {topic};
  s.table = "incident";
  return s;
}

TEST(DeletesAtTheSink, NeitherTheDeleteNorItsTombstoneIsAppliedAsACommand) {
  const std::vector<kafka::OutRecord> pair = DeletionPair();
  ASSERT_EQ(pair.size(), 2u);
  for (const sink::SinkSettings& settings : {SinkOn(pair[0].topic), [&] {
                                               // Even a sink told to take its operation from that
                                               // very header refuses both.
                                               sink::SinkSettings s = SinkOn(pair[0].topic);
                                               s.operation_header = kOperationHeader;
                                               return s;
                                             }()}) {
    for (const kafka::OutRecord& record : pair) {
      auto command = sink::DecodeCommand(AsRead(record), settings);
      ASSERT_FALSE(command.ok()) << "applied " << (record.value ? "the DELETE" : "the tombstone");
      EXPECT_EQ(command.status().code(), StatusCode::kInvalidArgument);
      EXPECT_NE(command.status().message().find("snow.source.operation"), std::string::npos)
          << command.status().message();
    }
  }
}

TEST(DeletesAtTheSink, ATombstoneWithoutTheSourceHeaderWouldBeASecondDelete) {
  // Why the tombstone keeps a snow.source.operation header at all: without one, a null value
  // is a DELETE command to the sink (operation mode key_value), the pair's second delete.
  kafka::OutRecord tombstone = DeletionPair().at(1);
  std::erase_if(tombstone.headers,
                [](const kafka::Header& h) { return h.key == kOperationHeader; });
  auto command = sink::DecodeCommand(AsRead(tombstone), SinkOn(tombstone.topic));
  ASSERT_TRUE(command.ok()) << command.status().message();
  EXPECT_EQ(command->operation, sink::Operation::kDelete);
  EXPECT_EQ(command->sys_id, kRowId);
}

TEST(DeletesAtTheSink, TheOperationHeaderNamesOneDeletePerDeletion) {
  // A consumer that applies snow.source.operation sees DELETE once and TOMBSTONE once.
  const std::vector<kafka::OutRecord> pair = DeletionPair();
  int deletes = 0;
  for (const kafka::OutRecord& record : pair) {
    const kafka::Header* h = kafka::FindHeader(record.headers, kOperationHeader);
    ASSERT_NE(h, nullptr);
    if (h->value == "DELETE") ++deletes;
  }
  EXPECT_EQ(deletes, 1);
  EXPECT_EQ(*kafka::FindHeader(pair[1].headers, kOperationHeader)->value, kTombstoneOperation);
}

}  // namespace
}  // namespace snowcar::source
