// SPDX-License-Identifier: Apache-2.0
// Deletes from the audit trail: the deletes stream's settings, its ordering gate and its
// records (audit_stream.h).
#include "audit_stream.h"

#include <boost/json/serialize.hpp>
#include <unordered_map>

#include "page_request.h"
#include "snowcar/common/time.h"
#include "snowcar/source/keyset_query.h"
#include "snowcar/source/record_builder.h"

namespace snowcar::source {
namespace {

std::string Text(const boost::json::object& row, std::string_view field) {
  const boost::json::value* v = row.if_contains(field);
  if (v != nullptr && v->is_object()) v = v->get_object().if_contains("value");
  if (v == nullptr || !v->is_string()) return {};
  return std::string(v->get_string());
}

// A deleted row's sys_id goes into a query (RECOVERED) and becomes a record key: 32 hex
// digits, as every sys_id is.
bool IsSysId(std::string_view id) {
  if (id.size() != 32) return false;
  for (const char c : id) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

kafka::Headers DeleteHeaders(const TableSettings& rows, const SourceSettings& source,
                             int64_t extracted_at_ms) {
  return {{kOperationHeader, std::string("DELETE")},
          {kTableHeader, rows.name},
          {kInstanceHeader, source.instance},
          {kExtractedAtHeader, FormatIso8601Millis(extracted_at_ms)}};
}

}  // namespace

kafka::OutRecord TombstoneFor(const kafka::OutRecord& delete_record) {
  kafka::OutRecord tombstone = delete_record;
  tombstone.value.reset();
  for (kafka::Header& h : tombstone.headers) {
    if (h.key == kOperationHeader) h.value = std::string(kTombstoneOperation);
  }
  return tombstone;
}

TableSettings AuditTableSettings(const TableSettings& rows) {
  TableSettings t;
  t.alias = rows.alias + std::string(kDeletesAliasSuffix);
  t.name = "sys_audit";
  t.topic = rows.topic;
  // Deletions since the table's own start: with a fresh cursor on a table that was synced
  // without deletes, the deletions it missed reach the topic too.
  t.start_ts = rows.start_ts;
  t.timestamp_field = "sys_created_on";
  t.sys_id_field = "sys_id";
  // Selective on purpose: sys_audit is usually an instance's largest table (docs/testbed.md
  // names the index this needs). A table name never holds '^' (the config checks it).
  t.base_query = "tablename=" + rows.name + "^fieldnameINDELETED,RECOVERED";
  t.fields = {"sys_id",    "sys_created_on", "sys_mod_count", "tablename",
              "fieldname", "documentkey",    "user"};
  t.display_value = DisplayValue::kFalse;
  t.exclude_reference_link = true;
  t.query_domain = rows.query_domain;
  t.batch_size = rows.batch_size;
  t.poll_interval_ms = rows.poll_interval_ms;
  t.deletes = DeleteCapture::kNone;
  return t;
}

int64_t DeletesSweepClock(int64_t server_now_ms, const RowWatermark& watermark,
                          int64_t safety_lag_seconds) {
  const int64_t w = watermark.swept_hi.load();
  if (w == RowWatermark::kNone) return 0;
  // The sweep's HI becomes second(clock - lag) = w - 2: entries of seconds < w - 1 only.
  const int64_t cap_ms = (w - 2 + safety_lag_seconds) * 1000 + 999;
  return std::min(server_now_ms, cap_ms);
}

bool IsRecoveredEntry(const boost::json::object& audit_row) {
  return Text(audit_row, "fieldname") == kAuditRecovered;
}

std::string RecoveredRowsTarget(const TableSettings& rows, const boost::json::array& audit_rows) {
  std::string ids;
  for (const boost::json::value& v : audit_rows) {
    const boost::json::object* row = v.if_object();
    if (row == nullptr || !IsRecoveredEntry(*row)) continue;
    const std::string id = Text(*row, "documentkey");
    if (!IsSysId(id)) continue;
    ids += (ids.empty() ? "" : ",") + id;
  }
  if (ids.empty()) return {};
  PageRequestOptions options;
  options.limit = static_cast<int>(audit_rows.size());
  // Only rows the table's own query selects: a restored row outside it was never the topic's.
  return PageTarget(rows, AddTermToEveryBranch(rows.base_query, rows.sys_id_field + "IN" + ids),
                    options);
}

void AttachRecoveredRows(const TableSettings& rows, const boost::json::array& fetched,
                         boost::json::array& audit_rows) {
  std::unordered_map<std::string, const boost::json::object*> by_id;
  for (const boost::json::value& v : fetched) {
    if (const boost::json::object* row = v.if_object()) by_id[Text(*row, rows.sys_id_field)] = row;
  }
  for (boost::json::value& v : audit_rows) {
    boost::json::object* row = v.if_object();
    if (row == nullptr || !IsRecoveredEntry(*row)) continue;
    auto it = by_id.find(Text(*row, "documentkey"));
    if (it != by_id.end()) (*row)[kRecoveredRowMember] = *it->second;
  }
}

std::vector<kafka::OutRecord> AuditRecords(const boost::json::object& audit_row, const RowKey& key,
                                           const DeletesStream& stream,
                                           const SourceSettings& source, int64_t extracted_at_ms) {
  const TableSettings& rows = *stream.rows;
  const std::string id = Text(audit_row, "documentkey");
  std::vector<kafka::OutRecord> out;
  if (!IsSysId(id)) return out;  // not a deletion of a row snowcar could have emitted
  const std::string fieldname = Text(audit_row, "fieldname");
  if (fieldname == kAuditRecovered) {
    const boost::json::value* row = audit_row.if_contains(kRecoveredRowMember);
    if (row == nullptr || !row->is_object()) return out;  // deleted again since: DELETED follows
    Result<RowKey> row_key = ReadRowKey(row->get_object(), rows);
    if (!row_key.ok()) return out;
    out.push_back(BuildRecord(row->get_object(), *row_key, rows, source, extracted_at_ms));
    return out;
  }
  if (fieldname != kAuditDeleted) return out;
  kafka::OutRecord record;
  record.topic = rows.topic;
  record.key = id;
  record.timestamp_ms = key.ts * 1000;
  record.headers = DeleteHeaders(rows, source, extracted_at_ms);
  boost::json::object what{{"sys_id", id},
                           {"table", rows.name},
                           {"deleted_at", FormatSnowTimestamp(key.ts)},
                           {"deleted_by", Text(audit_row, "user")},
                           {"audit_sys_id", std::string(key.sys_id)}};
  if (!source.emit_envelope) {
    record.value = boost::json::serialize(what);
  } else {
    boost::json::object envelope{{"before", nullptr},
                                 {"after", nullptr},
                                 {"source",
                                  {{"connector", "snowcar"},
                                   {"instance", source.instance},
                                   {"table", rows.name},
                                   {"alias", rows.alias},
                                   {"sys_id", id},
                                   {"ts_ms", key.ts * 1000},
                                   {"deleted_by", Text(audit_row, "user")},
                                   {"audit_sys_id", std::string(key.sys_id)}}},
                                 {"op", "d"},
                                 {"ts_ms", extracted_at_ms}};
    record.value = boost::json::serialize(envelope);
  }
  out.push_back(record);
  if (source.emit_tombstones) out.push_back(TombstoneFor(record));
  return out;
}

}  // namespace snowcar::source
