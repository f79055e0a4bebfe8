// SPDX-License-Identifier: Apache-2.0
// Deletes from the audit trail: the deletes stream's settings and query, its ordering gate and
// the records an audit entry becomes.
#include "source/deletes/audit_stream.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "deleted_row.h"
#include "snowcar/common/time.h"
#include "snowcar/source/rows/keyset_query.h"
#include "snowcar/source/rows/record_builder.h"

namespace snowcar::source {
namespace {

using testing::kAuditId;
using testing::kRowId;
using testing::kT;

TableSettings Rows() {
  TableSettings t = testing::IncidentRows();
  t.base_query = "active=true";
  t.start_ts = 1000;
  t.batch_size = 100;
  t.deletes = DeleteCapture::kAudit;
  return t;
}

boost::json::object Entry(std::string_view fieldname, std::string documentkey = kRowId) {
  return {{"sys_id", kAuditId},     {"sys_created_on", FormatSnowTimestamp(kT)},
          {"sys_mod_count", "0"},   {"tablename", "incident"},
          {"fieldname", fieldname}, {"documentkey", std::move(documentkey)},
          {"user", "alice"}};
}

std::string Header(const kafka::OutRecord& r, std::string_view key) {
  const kafka::Header* h = kafka::FindHeader(r.headers, key);
  return h != nullptr && h->value ? *h->value : "";
}

TEST(AuditStream, SettingsReadOneTablesDeletionsFromSysAuditUnderTheirOwnCursor) {
  const TableSettings rows = Rows();
  const TableSettings audit = AuditTableSettings(rows);
  EXPECT_EQ(audit.alias, "inc.deletes");  // never a configured alias: its own cursor key
  EXPECT_EQ(audit.name, "sys_audit");
  EXPECT_EQ(audit.topic, rows.topic);
  EXPECT_EQ(audit.timestamp_field, "sys_created_on");
  EXPECT_EQ(audit.start_ts, rows.start_ts);
  EXPECT_EQ(MoveOnQuery(audit, kT - 1, kT + 9),
            "tablename=incident^fieldnameINDELETED,RECOVERED^sys_created_on>2026-03-01 "
            "11:59:59^sys_created_on<=2026-03-01 12:00:09^ORDERBYsys_created_on^ORDERBYsys_id");
  SourceSettings source;
  source.instance = "acme.service-now.com";
  EXPECT_NE(IdentityFor(source, audit).table, IdentityFor(source, rows).table);
}

TEST(AuditStream, TheGateHoldsTheSweepBelowTheRowStreamsAcknowledgedSweep) {
  RowWatermark w;
  const int64_t now_ms = (kT + 100) * 1000 + 500;
  // Nothing acknowledged yet: a clock before every entry.
  EXPECT_EQ(DeletesSweepClock(now_ms, w, 1), 0);
  w.Publish(kT + 50);
  w.Publish(kT + 40);  // never moves back
  EXPECT_EQ(w.swept_hi.load(), kT + 50);
  // HI = second(clock - lag) = W - 2: entries of seconds < W - 1 only.
  const int64_t held = DeletesSweepClock(now_ms, w, 1);
  EXPECT_EQ((held - 1000) / 1000, kT + 48);
  EXPECT_EQ(DeletesSweepClock(now_ms, w, 0) / 1000, kT + 48);
  // A row stream behind the clock only: the instance's clock rules.
  w.Publish(kT + 1000);
  EXPECT_EQ(DeletesSweepClock(now_ms, w, 1), now_ms);
}

TEST(AuditStream, ADeletedEntryBecomesADeleteRecordAndItsTombstone) {
  const TableSettings rows = Rows();
  DeletesStream stream;
  stream.rows = &rows;
  SourceSettings source;
  source.instance = "acme.service-now.com";
  const boost::json::object entry = Entry("DELETED");
  const RowKey key{kT, kAuditId, 0};
  auto records = AuditRecords(entry, key, stream, source, 1234);
  ASSERT_EQ(records.size(), 1u);
  const kafka::OutRecord& r = records[0];
  EXPECT_EQ(r.topic, "servicenow.incident");
  EXPECT_EQ(r.key, kRowId);
  EXPECT_EQ(r.timestamp_ms, kT * 1000);
  EXPECT_EQ(Header(r, kOperationHeader), "DELETE");
  EXPECT_EQ(Header(r, kTableHeader), "incident");
  EXPECT_EQ(Header(r, kInstanceHeader), "acme.service-now.com");
  ASSERT_TRUE(r.value.has_value());
  EXPECT_EQ(boost::json::parse(*r.value),
            boost::json::parse(R"({"sys_id":")" + kRowId +
                               R"(","table":"incident","deleted_at":"2026-03-01 12:00:00",)"
                               R"("deleted_by":"alice","audit_sys_id":")" +
                               kAuditId + R"("})"));

  source.emit_tombstones = true;
  records = AuditRecords(entry, key, stream, source, 1234);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1].key, kRowId);
  EXPECT_FALSE(records[1].value.has_value());
  EXPECT_EQ(records[1].topic, records[0].topic);
  EXPECT_EQ(records[1].timestamp_ms, records[0].timestamp_ms);
  // One deletion, one DELETE: the tombstone says it is the compaction marker.
  EXPECT_EQ(Header(records[1], kOperationHeader), "TOMBSTONE");
  EXPECT_EQ(Header(records[1], kTableHeader), "incident");

  source.emit_envelope = true;
  records = AuditRecords(entry, key, stream, source, 1234);
  auto envelope = boost::json::parse(*records[0].value).as_object();
  EXPECT_EQ(envelope.at("op"), "d");
  EXPECT_TRUE(envelope.at("after").is_null());
  EXPECT_EQ(envelope.at("source").at("sys_id").as_string(), kRowId);

  // An entry whose documentkey is no sys_id (no row snowcar could have emitted): nothing.
  EXPECT_TRUE(AuditRecords(Entry("DELETED", "x^y"), key, stream, source, 1).empty());
}

// The re-read of kRowId once it was restored: version 4, "back".
boost::json::array RowBack() {
  return {boost::json::object{{"sys_id", kRowId},
                              {"sys_updated_on", "2026-02-01 08:00:00"},
                              {"sys_mod_count", "4"},
                              {"short_description", "back"}}};
}

TEST(AuditStream, ARecoveredEntryReReadsTheRowAndEmitsItAsAnUpsert) {
  const TableSettings rows = Rows();
  DeletesStream stream;
  stream.rows = &rows;
  SourceSettings source;
  boost::json::array page{Entry("DELETED"), Entry("RECOVERED"),
                          Entry("RECOVERED", "11111111111111111111111111111111")};
  const std::string target = RecoveredRowsTarget(rows, page);
  EXPECT_NE(target.find("/api/now/table/incident?sysparm_query=active%3Dtrue%5Esys_idIN" + kRowId +
                        "%2C11111111111111111111111111111111"),
            std::string::npos)
      << target;
  EXPECT_TRUE(RecoveredRowsTarget(rows, boost::json::array{Entry("DELETED")}).empty());

  // Only the first row still exists.
  AttachRecoveredRows(rows, RowBack(), page);
  const RowKey key{kT, kAuditId, 0};
  auto records = AuditRecords(page[1].as_object(), key, stream, source, 1);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].key, kRowId);
  EXPECT_EQ(Header(records[0], kOperationHeader), "UPSERT");
  EXPECT_EQ(boost::json::parse(*records[0].value).at("short_description"), "back");
  // Gone again since: nothing (its DELETED entry follows).
  EXPECT_TRUE(AuditRecords(page[2].as_object(), key, stream, source, 1).empty());
}

// A row deleted and restored within one second: its entries share sys_created_on and may come
// RECOVERED first. The DELETED one then re-reads the row and, when it exists, ends with it.
TEST(AuditStream, ADeletionThatMayHaveBeenRestoredInItsSecondEndsWithTheRowIfItExists) {
  const TableSettings rows = Rows();
  DeletesStream stream;
  stream.rows = &rows;
  SourceSettings source;
  source.emit_tombstones = true;
  const std::string other = "11111111111111111111111111111111";
  boost::json::array page{Entry("RECOVERED"), Entry("DELETED", other), Entry("DELETED")};
  MarkPossibleRestores(page, std::nullopt);
  EXPECT_FALSE(page[1].as_object().contains(kMayBeRestoredMember));  // no restore of its row
  EXPECT_TRUE(page[2].as_object().contains(kMayBeRestoredMember));
  // A drain page continues a second: its DELETED entries of that second may follow a restore
  // the previous page held.
  boost::json::array drained{Entry("DELETED", other)};
  MarkPossibleRestores(drained, kT - 1);
  EXPECT_FALSE(drained[0].as_object().contains(kMayBeRestoredMember));
  MarkPossibleRestores(drained, kT);
  EXPECT_TRUE(drained[0].as_object().contains(kMayBeRestoredMember));

  const std::string target = RecoveredRowsTarget(rows, page);
  EXPECT_NE(target.find("sys_idIN" + kRowId + "%2C" + kRowId), std::string::npos) << target;
  AttachRecoveredRows(rows, RowBack(), page);
  const RowKey key{kT, kAuditId, 0};
  auto records = AuditRecords(page[2].as_object(), key, stream, source, 1);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(Header(records[0], kOperationHeader), "DELETE");
  EXPECT_FALSE(records[1].value.has_value());
  EXPECT_EQ(Header(records[2], kOperationHeader), "UPSERT");
  EXPECT_EQ(records[2].key, kRowId);
  // Gone now (deleted last): the DELETE and its tombstone only.
  boost::json::array gone{Entry("RECOVERED"), Entry("DELETED")};
  MarkPossibleRestores(gone, std::nullopt);
  AttachRecoveredRows(rows, boost::json::array{}, gone);
  EXPECT_EQ(AuditRecords(gone[1].as_object(), key, stream, source, 1).size(), 2u);
}

// What sys_audit_delete kept of a row: the instance's XML export of the record.
std::string Payload(std::string_view description) {
  return R"(<?xml version="1.0" encoding="UTF-8"?><record_update table="incident">)"
         R"(<incident action="DELETE"><sys_id>)" +
         kRowId + "</sys_id><short_description>" + std::string(description) +
         R"(</short_description><caller_id display_value="Abel Tuter">)"
         R"(62826bf03710200044e0bfc8bcbe5df1</caller_id></incident></record_update>)";
}

boost::json::object Kept(std::string payload, std::string_view created_on) {
  return {{"documentkey", kRowId}, {"payload", std::move(payload)}, {"sys_created_on", created_on}};
}

TEST(AuditStream, TheLastRowIsReadFromSysAuditDeleteOnlyWhenAskedFor) {
  TableSettings rows = Rows();
  boost::json::array page{Entry("DELETED"), Entry("RECOVERED"),
                          Entry("DELETED", "11111111111111111111111111111111"),
                          Entry("DELETED", "not-an-id")};
  EXPECT_TRUE(DeletedRowsTarget(rows, page).empty());  // deletes.last.row is off
  rows.deletes_last_row = true;
  const std::string target = DeletedRowsTarget(rows, page);
  EXPECT_NE(target.find("/api/now/table/sys_audit_delete?sysparm_query=tablename%3Dincident%5E"
                        "documentkeyIN" +
                        kRowId + "%2C11111111111111111111111111111111%5EORDERBYDESCsys_created_on"),
            std::string::npos)
      << target;
  EXPECT_NE(target.find("sysparm_fields=documentkey%2Cpayload%2Csys_created_on"), std::string::npos)
      << target;
  EXPECT_NE(target.find("sysparm_limit=8"), std::string::npos) << target;
  EXPECT_TRUE(DeletedRowsTarget(rows, boost::json::array{Entry("RECOVERED")}).empty());
}

TEST(AuditStream, ADeleteRecordCarriesThePayloadWrittenWithItsDeletion) {
  TableSettings rows = Rows();
  rows.deletes_last_row = true;
  DeletesStream stream;
  stream.rows = &rows;
  SourceSettings source;
  // The row was deleted before (an older payload), restored, then deleted at kT; a later
  // deletion's payload (after a second restore) is newer than this entry.
  boost::json::array fetched{Kept(Payload("later"), FormatSnowTimestamp(kT + 60)),
                             Kept(Payload("as deleted"), FormatSnowTimestamp(kT)),
                             Kept(Payload("first"), FormatSnowTimestamp(kT - 3600))};
  boost::json::array page{Entry("DELETED")};
  AttachDeletedRows(rows, fetched, page);
  const RowKey key{kT, kAuditId, 0};
  auto records = AuditRecords(page[0].as_object(), key, stream, source, 1);
  ASSERT_EQ(records.size(), 1u);
  const boost::json::object value = boost::json::parse(*records[0].value).as_object();
  const boost::json::object& last = value.at("last_row").as_object();
  EXPECT_EQ(last.at("short_description"), "as deleted");
  EXPECT_EQ(last.at("sys_id").as_string(), kRowId);
  // The raw value, as the row stream has it; the display text is not the value.
  EXPECT_EQ(last.at("caller_id"), "62826bf03710200044e0bfc8bcbe5df1");
  EXPECT_FALSE(value.contains("last_row_error"));

  // The envelope puts it where a change event's prior state goes.
  source.emit_envelope = true;
  records = AuditRecords(page[0].as_object(), key, stream, source, 1);
  const boost::json::object envelope = boost::json::parse(*records[0].value).as_object();
  EXPECT_EQ(envelope.at("before").at("short_description"), "as deleted");
  EXPECT_TRUE(envelope.at("after").is_null());
}

TEST(AuditStream, NoPayloadOrABadOneStillEmitsTheDeleteAndSaysWhy) {
  TableSettings rows = Rows();
  rows.deletes_last_row = true;
  DeletesStream stream;
  stream.rows = &rows;
  SourceSettings source;
  const RowKey key{kT, kAuditId, 0};

  // A table that is not audited keeps no payload: the DELETE says null.
  boost::json::array page{Entry("DELETED")};
  AttachDeletedRows(rows, boost::json::array{}, page);
  auto records = AuditRecords(page[0].as_object(), key, stream, source, 1);
  ASSERT_EQ(records.size(), 1u);
  boost::json::object value = boost::json::parse(*records[0].value).as_object();
  EXPECT_TRUE(value.at("last_row").is_null());
  EXPECT_FALSE(value.contains("last_row_error"));

  // A payload that does not parse: the deletion is not lost, the record names the problem.
  page = boost::json::array{Entry("DELETED")};
  AttachDeletedRows(
      rows, boost::json::array{Kept("<incident><number>INC1", FormatSnowTimestamp(kT))}, page);
  records = AuditRecords(page[0].as_object(), key, stream, source, 1);
  ASSERT_EQ(records.size(), 1u);
  value = boost::json::parse(*records[0].value).as_object();
  EXPECT_TRUE(value.at("last_row").is_null());
  EXPECT_NE(std::string(value.at("last_row_error").as_string()).find("not XML"), std::string::npos)
      << value;
}

}  // namespace
}  // namespace snowcar::source
