// SPDX-License-Identifier: Apache-2.0
// Deletes from the audit trail: the deletes stream's settings, its ordering gate and its
// records (audit_stream.h).
#include "audit_stream.h"

#include <boost/json/serialize.hpp>
#include <set>
#include <unordered_map>
#include <utility>

#include "../rows/page_request.h"
#include "deleted_row_payload.h"
#include "reconciler.h"
#include "snowcar/common/log.h"
#include "snowcar/common/time.h"
#include "snowcar/source/rows/keyset_query.h"
#include "snowcar/source/rows/record_builder.h"

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

namespace {
// An entry whose row must be re-read: a RECOVERED one, or a DELETED one that may have been
// followed by a restore in the same second (MarkPossibleRestores).
bool NeedsRow(const boost::json::object& audit_row) {
  return IsRecoveredEntry(audit_row) || audit_row.contains(kMayBeRestoredMember);
}
}  // namespace

void MarkPossibleRestores(boost::json::array& audit_rows, std::optional<int64_t> continued_second) {
  std::set<std::pair<std::string, std::string>> recovered;  // (sys_created_on, documentkey)
  for (boost::json::value& v : audit_rows) {
    boost::json::object* row = v.if_object();
    if (row == nullptr) continue;
    std::string second = Text(*row, "sys_created_on");
    const std::string fieldname = Text(*row, "fieldname");
    if (fieldname == kAuditRecovered) {
      recovered.emplace(std::move(second), Text(*row, "documentkey"));
      continue;
    }
    if (fieldname != kAuditDeleted) continue;
    Result<int64_t> ts = ParseSnowTimestamp(second);
    const bool continues = continued_second && ts.ok() && *ts == *continued_second;
    if (continues || recovered.count({second, Text(*row, "documentkey")}) != 0) {
      (*row)[kMayBeRestoredMember] = true;
    }
  }
}

std::string RecoveredRowsTarget(const TableSettings& rows, const boost::json::array& audit_rows) {
  std::string ids;
  for (const boost::json::value& v : audit_rows) {
    const boost::json::object* row = v.if_object();
    if (row == nullptr || !NeedsRow(*row)) continue;
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
    if (row == nullptr || !NeedsRow(*row)) continue;
    auto it = by_id.find(Text(*row, "documentkey"));
    if (it != by_id.end()) (*row)[kRecoveredRowMember] = *it->second;
  }
}

std::string DeletedRowsTarget(const TableSettings& rows, const boost::json::array& audit_rows) {
  if (!rows.deletes_last_row) return {};
  std::string ids;
  int deleted = 0;
  for (const boost::json::value& v : audit_rows) {
    const boost::json::object* row = v.if_object();
    if (row == nullptr || Text(*row, "fieldname") != kAuditDeleted) continue;
    const std::string id = Text(*row, "documentkey");
    if (!IsSysId(id)) continue;
    ids += (ids.empty() ? "" : ",") + id;
    ++deleted;
  }
  if (ids.empty()) return {};
  TableSettings kept;
  kept.name = "sys_audit_delete";
  kept.fields = {"documentkey", "payload", "sys_created_on"};
  kept.display_value = DisplayValue::kFalse;
  kept.exclude_reference_link = true;
  kept.query_domain = rows.query_domain;
  PageRequestOptions options;
  // A row deleted, restored and deleted again has a payload per deletion; newest first, so
  // a page of a few per row holds the ones these entries need.
  options.limit = std::min(4 * deleted, 10000);
  return PageTarget(
      kept, "tablename=" + rows.name + "^documentkeyIN" + ids + "^ORDERBYDESCsys_created_on",
      options);
}

void AttachDeletedRows(const TableSettings& rows, const boost::json::array& fetched,
                       boost::json::array& audit_rows) {
  // documentkey -> (sys_created_on, payload), newest first as asked.
  std::unordered_multimap<std::string, std::pair<std::string, std::string>> kept;
  for (const boost::json::value& v : fetched) {
    const boost::json::object* row = v.if_object();
    if (row == nullptr) continue;
    kept.emplace(Text(*row, "documentkey"),
                 std::pair{Text(*row, "sys_created_on"), Text(*row, "payload")});
  }
  for (boost::json::value& v : audit_rows) {
    boost::json::object* entry = v.if_object();
    if (entry == nullptr || Text(*entry, "fieldname") != kAuditDeleted) continue;
    const std::string id = Text(*entry, "documentkey");
    const std::string deleted_on = Text(*entry, "sys_created_on");
    // The payload written with this deletion: the newest one not after it (the two rows are
    // written together; an earlier deletion's payload is older, a later one's newer).
    // Timestamps "YYYY-MM-DD hh:mm:ss" compare as text.
    const std::pair<std::string, std::string>* best = nullptr;
    auto [begin, end] = kept.equal_range(id);
    for (auto it = begin; it != end; ++it) {
      if (it->second.first > deleted_on) continue;
      if (best == nullptr || it->second.first > best->first) best = &it->second;
    }
    if (best == nullptr) continue;
    Result<boost::json::object> row = ParseDeletedRowPayload(best->second, rows.name, rows.fields);
    if (row.ok()) {
      (*entry)[kLastRowMember] = std::move(row).value();
    } else {
      SNOWCAR_LOG(kWarn, "source.deleted_row_unreadable",
                  {{"table", rows.alias}, {"sys_id", id}, {"error", row.status().message()}});
      (*entry)[kLastRowErrorMember] = row.status().message();
    }
  }
}

void DropDeletionTheSweepEmitted(std::vector<kafka::OutRecord>& records, int64_t deleted_s,
                                 EmittedIds& emitted) {
  if (records.empty() || !records.front().key) return;
  const std::string id = *records.front().key;
  auto op = [](const kafka::OutRecord& r) {
    const kafka::Header* h = kafka::FindHeader(r.headers, kOperationHeader);
    return h != nullptr && h->value ? *h->value : std::string();
  };
  if (op(records.front()) == "DELETE" && !emitted.ClaimAuditDelete(id, deleted_s)) {
    SNOWCAR_LOG(kInfo, "source.audit_delete_found_by_sweep",
                {{"table", records.front().topic}, {"sys_id", id}});
    std::erase_if(records, [&](const kafka::OutRecord& r) {
      return op(r) == "DELETE" || op(r) == kTombstoneOperation;
    });
  }
  if (!records.empty() && op(records.back()) == "UPSERT") emitted.ReleaseClaim(id);
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
  const boost::json::value* last_row = audit_row.if_contains(kLastRowMember);
  const boost::json::value* last_row_error = audit_row.if_contains(kLastRowErrorMember);
  if (!source.emit_envelope) {
    if (rows.deletes_last_row) {
      // null when sys_audit_delete kept nothing (the table is not audited) or it did not parse.
      what["last_row"] = last_row != nullptr ? *last_row : boost::json::value(nullptr);
      if (last_row_error != nullptr) what["last_row_error"] = *last_row_error;
    }
    record.value = boost::json::serialize(what);
  } else {
    boost::json::object envelope{
        {"before", last_row != nullptr ? *last_row : boost::json::value(nullptr)},
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
    if (last_row_error != nullptr)
      envelope["source"].as_object()["last_row_error"] = *last_row_error;
    record.value = boost::json::serialize(envelope);
  }
  out.push_back(record);
  if (source.emit_tombstones) out.push_back(TombstoneFor(record));
  // The row exists now though this entry deleted it: restored since, maybe within this
  // entry's second (MarkPossibleRestores), so it must come after the DELETE.
  if (const boost::json::value* now = audit_row.if_contains(kRecoveredRowMember);
      now != nullptr && now->is_object()) {
    if (Result<RowKey> row_key = ReadRowKey(now->get_object(), rows); row_key.ok()) {
      out.push_back(BuildRecord(now->get_object(), *row_key, rows, source, extracted_at_ms));
    }
  }
  return out;
}

}  // namespace snowcar::source
