// SPDX-License-Identifier: Apache-2.0
// The pure parts of a reconciliation sweep (reconcile_sweep.h).
#include "reconcile_sweep.h"

#include <boost/json.hpp>

#include "../rows/page_request.h"
#include "audit_stream.h"
#include "snowcar/common/time.h"
#include "snowcar/source/rows/keyset_query.h"
#include "snowcar/source/rows/record_builder.h"

namespace snowcar::source {
namespace {

namespace json = boost::json;

Status Bad(std::string what) {
  return Status::DataLoss("stored sweep state is not readable: " + std::move(what));
}

}  // namespace

SweepState RestartAsBaseline(SweepState state) {
  state.seeded = false;
  state.in_sweep = false;
  state.after.clear();
  state.compared = state.deleted = state.emitted = 0;
  return state;
}

std::string EncodeSweepState(const SweepState& s) {
  return json::serialize(json::object{{"v", 1},
                                      {"seeded", s.seeded},
                                      {"in_sweep", s.in_sweep},
                                      {"after", s.after},
                                      {"started_at_ms", s.started_at_ms},
                                      {"compared", s.compared},
                                      {"deleted", s.deleted},
                                      {"emitted", s.emitted},
                                      {"last_started_at_ms", s.last_started_at_ms},
                                      {"last_duration_ms", s.last_duration_ms},
                                      {"last_compared", s.last_compared},
                                      {"last_deleted", s.last_deleted},
                                      {"last_emitted", s.last_emitted},
                                      {"sweeps", s.sweeps}});
}

Result<SweepState> DecodeSweepState(std::string_view text) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec || !v.is_object()) return Bad("not a JSON object");
  const json::object& o = v.as_object();
  SweepState s;
  auto boolean = [&](const char* name, bool& out) {
    const json::value* f = o.if_contains(name);
    if (f == nullptr || !f->is_bool()) return false;
    out = f->as_bool();
    return true;
  };
  auto integer = [&](const char* name, auto& out) {
    const json::value* f = o.if_contains(name);
    if (f == nullptr) return false;
    if (f->is_int64()) {
      out = static_cast<std::decay_t<decltype(out)>>(f->as_int64());
    } else if (f->is_uint64()) {
      out = static_cast<std::decay_t<decltype(out)>>(f->as_uint64());
    } else {
      return false;
    }
    return true;
  };
  const json::value* after = o.if_contains("after");
  if (after == nullptr || !after->is_string()) return Bad("'after' is not a string");
  s.after = std::string(after->as_string());
  if (!boolean("seeded", s.seeded) || !boolean("in_sweep", s.in_sweep) ||
      !integer("started_at_ms", s.started_at_ms) || !integer("compared", s.compared) ||
      !integer("deleted", s.deleted) || !integer("emitted", s.emitted) ||
      !integer("last_started_at_ms", s.last_started_at_ms) ||
      !integer("last_duration_ms", s.last_duration_ms) ||
      !integer("last_compared", s.last_compared) || !integer("last_deleted", s.last_deleted) ||
      !integer("last_emitted", s.last_emitted) || !integer("sweeps", s.sweeps)) {
    return Bad("a field is missing or of the wrong type");
  }
  return s;
}

std::string SweepPageTarget(const TableSettings& table, std::string_view after, int limit) {
  std::string query = table.base_query;
  if (!after.empty()) {
    query = AddTermToEveryBranch(query, table.sys_id_field + ">" + std::string(after));
  }
  query += (query.empty() ? "" : "^") + std::string("ORDERBY") + table.sys_id_field;
  PageRequestOptions options;
  options.limit = limit;
  options.fields_override = table.sys_id_field;
  return PageTarget(table, query, options);
}

std::string RowsByIdTarget(const TableSettings& table, const std::vector<std::string>& ids,
                           bool fields_only_id) {
  std::string list;
  for (const std::string& id : ids) list += (list.empty() ? "" : ",") + id;
  PageRequestOptions options;
  options.limit = static_cast<int>(ids.size()) + 1;
  if (fields_only_id) options.fields_override = table.sys_id_field;
  return PageTarget(table, AddTermToEveryBranch(table.base_query, table.sys_id_field + "IN" + list),
                    options);
}

PageDiff ComparePage(const std::vector<std::string>& instance,
                     const std::vector<std::string>& known) {
  PageDiff diff;
  size_t i = 0;
  size_t k = 0;
  while (i < instance.size() || k < known.size()) {
    if (k == known.size() || (i < instance.size() && instance[i] < known[k])) {
      diff.unknown.push_back(instance[i++]);
    } else if (i == instance.size() || known[k] < instance[i]) {
      diff.gone.push_back(known[k++]);
    } else {
      ++i;
      ++k;
    }
  }
  return diff;
}

std::string IdBefore(std::string id) {
  for (size_t i = id.size(); i-- > 0;) {
    if (id[i] == '0') {
      id[i] = 'f';  // borrow from the digit to the left
      continue;
    }
    id[i] = id[i] == 'a' ? '9' : static_cast<char>(id[i] - 1);
    return id;
  }
  return "";
}

bool LeftToRowStream(int64_t ts, int64_t rows_hi) {
  // A row of the last two seconds under HI may still be in the row stream's overlap. Before
  // the row stream acknowledged any sweep (kNone, the lowest int64) every row is its to emit;
  // `rows_hi - 2` would overflow there.
  if (rows_hi == RowWatermark::kNone) return true;
  return ts > rows_hi - 2;
}

std::vector<kafka::OutRecord> ReconciledDeleteRecords(const TableSettings& table,
                                                      const SourceSettings& source,
                                                      const std::string& sys_id,
                                                      int64_t found_at_ms,
                                                      int64_t extracted_at_ms) {
  kafka::OutRecord record;
  record.topic = table.topic;
  record.key = sys_id;
  record.timestamp_ms = found_at_ms;
  record.headers = {{kOperationHeader, std::string("DELETE")},
                    {kDeleteFoundByHeader, std::string(kFoundByReconciliation)},
                    {kTableHeader, table.name},
                    {kInstanceHeader, source.instance},
                    {kExtractedAtHeader, FormatIso8601Millis(extracted_at_ms)}};
  // When it was deleted is unknown: only that it was gone when the sweep looked.
  const std::string found_at = FormatSnowTimestamp(found_at_ms / 1000);
  if (!source.emit_envelope) {
    record.value = json::serialize(json::object{{"sys_id", sys_id},
                                                {"table", table.name},
                                                {"found_gone_at", found_at},
                                                {"found_by", kFoundByReconciliation}});
  } else {
    record.value = json::serialize(json::object{{"before", nullptr},
                                                {"after", nullptr},
                                                {"source",
                                                 {{"connector", "snowcar"},
                                                  {"instance", source.instance},
                                                  {"table", table.name},
                                                  {"alias", table.alias},
                                                  {"sys_id", sys_id},
                                                  {"ts_ms", found_at_ms},
                                                  {"found_by", kFoundByReconciliation}}},
                                                {"op", "d"},
                                                {"ts_ms", extracted_at_ms}});
  }
  std::vector<kafka::OutRecord> out;
  out.push_back(record);
  if (source.emit_tombstones) out.push_back(TombstoneFor(record));
  return out;
}

}  // namespace snowcar::source
