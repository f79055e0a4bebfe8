// SPDX-License-Identifier: Apache-2.0
// The raw state views (/v1/state/...) and the cursor reset, over the StateStore interface.
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <limits>
#include <optional>
#include <utility>

#include "snowcar/api/routes.h"
#include "snowcar/common/log.h"
#include "snowcar/common/time.h"

namespace snowcar::api {
namespace {

// ServiceNow table names: lower-case letters, digits and underscores. Checked before the
// store sees the name, so a typo gets a precise 400 instead of an empty answer.
// A table's deletes stream (snow.table.<alias>.deletes=audit) keeps its own cursor under
// "<alias>.deletes", addressed the same way.
bool IsTableName(std::string_view name) {
  constexpr std::string_view kDeletes = ".deletes";
  if (name.size() > kDeletes.size() && name.ends_with(kDeletes)) {
    name.remove_suffix(kDeletes.size());
  }
  if (name.empty() || name.size() > 80) return false;
  for (const char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

ApiResponse BadTable(const ApiRequest& request, const std::string& table) {
  return ApiResponse::Error(400,
                            "invalid table name '" + table.substr(0, 200) +
                                "': expected lower-case letters, digits and '_' "
                                "(^[a-z0-9_]+$), or a table's deletes stream <alias>.deletes",
                            request.path);
}

// A store failure: retriable ones are 503 (try again), the rest 500. The message is masked
// by ApiResponse::Error.
ApiResponse StoreError(const ApiRequest& request, const Status& status) {
  int code = 500;
  if (status.retriable()) code = 503;
  if (status.code() == StatusCode::kInvalidArgument) code = 400;
  if (status.code() == StatusCode::kNotFound) code = 404;
  SNOWCAR_LOG(kWarn, "api.state_error", {{"path", request.path}, {"error", status.ToString()}});
  return ApiResponse::Error(code, "state store: " + status.message(), request.path);
}

// Spelled here rather than through state::PhaseName so this library needs only the state
// store's interface, not its RocksDB implementation.
std::string_view PhaseText(state::Phase phase) {
  switch (phase) {
    case state::Phase::kBackfill:
      return "backfill";
    case state::Phase::kStream:
      return "stream";
  }
  return "unknown";
}

boost::json::object CursorJson(const state::StoredCursor& c) {
  boost::json::object o;
  o["instance"] = c.identity.instance;
  o["table"] = c.identity.table;
  o["query_fingerprint"] = c.identity.query_fingerprint;
  o["timestamp_field"] = c.identity.timestamp_field;
  o["ts"] = c.cursor.ts;
  o["ts_utc"] = FormatSnowTimestamp(c.cursor.ts);
  o["sys_id"] = c.cursor.sys_id;
  o["phase"] = PhaseText(c.cursor.phase);
  o["updated_at_ms"] = c.updated_at_ms;
  o["updated_at"] = FormatIso8601Millis(c.updated_at_ms);
  return o;
}

boost::json::array CursorsJson(const std::vector<state::StoredCursor>& cursors) {
  boost::json::array list;
  for (const auto& c : cursors) list.push_back(CursorJson(c));
  return list;
}

// The reset's optional body: nothing (or {}) forgets the table, {"to":"..."} rewinds it.
// Returns the rewind target in seconds, or nullopt for a plain reset.
Result<std::optional<int64_t>> ParseResetBody(std::string_view body) {
  if (body.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return std::optional<int64_t>();
  }
  boost::system::error_code ec;
  const boost::json::value doc = boost::json::parse(body, ec);
  if (ec || !doc.is_object()) {
    return Status::InvalidArgument(
        "the body must be empty or a JSON object like {\"to\":\"2024-01-31 00:00:00\"}");
  }
  std::optional<int64_t> to;
  for (const auto& [name, value] : doc.get_object()) {
    if (name != "to") {
      return Status::InvalidArgument("unknown member '" + std::string(name.substr(0, 64)) +
                                     "' in the body; only \"to\" is accepted");
    }
    auto ts = value.is_string() ? ParseSnowTimestamp(value.get_string())
                                : Result<int64_t>(Status::InvalidArgument("not a string"));
    if (!ts.ok()) {
      return Status::InvalidArgument(
          "\"to\" must be a UTC date-time written YYYY-MM-DD HH:MM:SS, e.g. "
          "\"2024-01-31 00:00:00\"");
    }
    to = *ts;
  }
  return to;
}

// The before-reset hook said no: a conflict with the running sidecar unless it says otherwise.
ApiResponse Refused(const ApiRequest& request, const std::string& table, const Status& status) {
  const int code = status.code() == StatusCode::kFailedPrecondition ? 409
                   : status.retriable()                             ? 503
                                                                    : 500;
  return ApiResponse::Error(code, "cannot reset table '" + table + "': " + status.message(),
                            request.path);
}

std::string Requester(const ApiRequest& request) {
  return request.peer.empty() ? "in-process" : request.peer;
}

ApiResponse Reset(state::StateStore& store, const ApiRequest& request, const std::string& table) {
  // Counted first so the answer says what was dropped; informative, not transactional.
  auto cursors = store.CursorsForTable(table);
  if (!cursors.ok()) return StoreError(request, cursors.status());
  auto dedup = store.DedupCount(table);
  if (!dedup.ok()) return StoreError(request, dedup.status());
  Status s = store.ResetTable(table);
  if (!s.ok()) return StoreError(request, s);
  SNOWCAR_LOG(kWarn, "state.table_reset",
              {{"table", table},
               {"cursors", cursors->size()},
               {"dedup", *dedup},
               {"requested_by", Requester(request)}});
  boost::json::object root;
  root["table"] = table;
  root["reset"] = true;
  root["cursors_removed"] = cursors->size();
  root["dedup_entries_removed"] = *dedup;
  return ApiResponse::Json(200, root);
}

// Moves every cursor of the table to (to, "") and keeps the dedup entries: the window is
// loaded whole (no cap, no overlap pruning) and committed back unchanged with the new cursor.
ApiResponse Rewind(state::StateStore& store, const ApiRequest& request, const std::string& table,
                   int64_t to) {
  auto cursors = store.CursorsForTable(table);
  if (!cursors.ok()) return StoreError(request, cursors.status());
  if (cursors->empty()) {
    return ApiResponse::Error(404,
                              "no cursor stored for table '" + table +
                                  "', so there is nothing to rewind; a table without a cursor "
                                  "starts at its snow.table." +
                                  table + ".start.timestamp",
                              request.path);
  }
  const state::DedupPolicy keep_all{.overlap_seconds = std::numeric_limits<int64_t>::max(),
                                    .window_records = std::numeric_limits<size_t>::max()};
  const state::Cursor target{to, "", state::Phase::kBackfill};
  boost::json::array rewound;
  size_t kept = 0;
  // The oldest version the kept entries remember: the index is pruned to the overlap window
  // behind the cursor, so every version between `to` and this one is emitted again.
  std::optional<int64_t> oldest;
  for (const state::StoredCursor& c : *cursors) {
    // Dedup entries are kept per (instance, table), beside each cursor.
    auto window = store.LoadDedupWindow(c.identity, keep_all);
    if (!window.ok()) return StoreError(request, window.status());
    if (auto listed = store.DedupEntries(c.identity); listed.ok()) {
      for (const state::DedupKey& key : *listed) {
        if (!oldest || key.ts < *oldest) oldest = key.ts;
      }
    }
    if (Status s = store.Commit(c.identity, target, **window); !s.ok()) {
      return StoreError(request, s);
    }
    kept += (*window)->size();
    boost::json::object entry;
    entry["instance"] = c.identity.instance;
    entry["query_fingerprint"] = c.identity.query_fingerprint;
    entry["timestamp_field"] = c.identity.timestamp_field;
    entry["from_ts"] = c.cursor.ts;
    entry["from_utc"] = FormatSnowTimestamp(c.cursor.ts);
    entry["from_sys_id"] = c.cursor.sys_id;
    rewound.push_back(std::move(entry));
  }
  SNOWCAR_LOG(kWarn, "state.table_rewound",
              {{"table", table},
               {"to", FormatSnowTimestamp(to)},
               {"cursors", cursors->size()},
               {"dedup_kept", kept},
               {"requested_by", Requester(request)}});
  boost::json::object root;
  root["table"] = table;
  root["rewound"] = true;
  root["to_ts"] = to;
  root["to_utc"] = FormatSnowTimestamp(to);
  root["cursors"] = std::move(rewound);
  root["dedup_entries_kept"] = kept;
  // Versions updated in [to, dedup_oldest) are sent again; null when no entry was kept (every
  // version since `to` is sent again).
  if (oldest) {
    root["dedup_oldest_ts"] = *oldest;
    root["dedup_oldest_utc"] = FormatSnowTimestamp(*oldest);
  } else {
    root["dedup_oldest_ts"] = nullptr;
    root["dedup_oldest_utc"] = nullptr;
  }
  return ApiResponse::Json(200, root);
}
}  // namespace

Handler CorrelationLookup(state::StateStore* store, boost::json::object extra) {
  return [store, extra = std::move(extra)](const ApiRequest& request) {
    const std::string& table = request.Capture("table");
    if (!IsTableName(table)) return BadTable(request, table);
    if (store == nullptr)
      return ApiResponse::Error(503, "the state store is not open", request.path);
    const std::string& field = request.Capture("field");
    const std::string& value = request.Capture("value");
    auto sys_id = store->GetCorrelation(table, field, value);
    if (!sys_id.ok()) return StoreError(request, sys_id.status());
    if (!sys_id->has_value()) {
      return ApiResponse::Error(
          404,
          "no correlation cached for " + table + "." + field + " = '" + value.substr(0, 200) + "'",
          request.path);
    }
    boost::json::object root;
    root["table"] = table;
    root["field"] = field;
    root["value"] = value;
    root["sys_id"] = **sys_id;
    for (const auto& [key, v] : extra) root[key] = v;
    return ApiResponse::Json(200, root);
  };
}

Status RegisterStateRoutes(ApiRouter& router, state::StateStore& store, BeforeReset before_reset) {
  SNOWCAR_RETURN_IF_ERROR(router.Add(Route{"GET", "/v1/state/cursors", "every stored source cursor",
                                           false, [&store](const ApiRequest& request) {
                                             auto cursors = store.ListCursors();
                                             if (!cursors.ok())
                                               return StoreError(request, cursors.status());
                                             boost::json::object root;
                                             root["cursors"] = CursorsJson(*cursors);
                                             return ApiResponse::Json(200, root);
                                           }}));

  SNOWCAR_RETURN_IF_ERROR(router.Add(Route{
      "GET", "/v1/state/cursors/{table}", "the cursors stored for one table alias (404: none)",
      false, [&store](const ApiRequest& request) {
        const std::string& table = request.Capture("table");
        auto cursors = store.CursorsForTable(table);
        if (!cursors.ok()) return StoreError(request, cursors.status());
        if (cursors->empty()) {
          return ApiResponse::Error(404, "no cursor stored for table '" + table + "'",
                                    request.path);
        }
        boost::json::object root;
        root["table"] = table;
        root["cursors"] = CursorsJson(*cursors);
        return ApiResponse::Json(200, root);
      }}));

  SNOWCAR_RETURN_IF_ERROR(
      router.Add(Route{"GET", "/v1/state/dedup/{table}",
                       "?sys_id=ID: the dedup entries of one row and the table's entry count",
                       false, [&store](const ApiRequest& request) {
                         const std::string& table = request.Capture("table");
                         if (!IsTableName(table)) return BadTable(request, table);
                         const std::string* sys_id = request.QueryParam("sys_id");
                         if (sys_id == nullptr || sys_id->empty()) {
                           return ApiResponse::Error(
                               400, "missing query parameter 'sys_id' (?sys_id=...)", request.path);
                         }
                         auto entries = store.DedupEntriesFor(table, *sys_id);
                         if (!entries.ok()) return StoreError(request, entries.status());
                         auto count = store.DedupCount(table);
                         if (!count.ok()) return StoreError(request, count.status());
                         boost::json::array list;
                         for (const auto& e : *entries) {
                           boost::json::object o;
                           o["ts"] = e.ts;
                           o["ts_utc"] = FormatSnowTimestamp(e.ts);
                           o["sys_id"] = e.sys_id;
                           o["sys_mod_count"] = e.mod_count;
                           list.push_back(std::move(o));
                         }
                         boost::json::object root;
                         root["table"] = table;
                         root["sys_id"] = *sys_id;
                         root["entries"] = std::move(list);
                         root["table_entry_count"] = *count;
                         return ApiResponse::Json(200, root);
                       }}));

  SNOWCAR_RETURN_IF_ERROR(router.Add(Route{"GET", "/v1/state/correlation/{table}/{field}/{value}",
                                           "the sys_id cached for a correlation value (404: none)",
                                           false, CorrelationLookup(&store)}));
  SNOWCAR_RETURN_IF_ERROR(RegisterOriginRoute(router, store));

  SNOWCAR_RETURN_IF_ERROR(router.Add(
      Route{"POST", "/v1/state/cursors/{table}/reset",
            "forget a table's cursors and dedup entries (the next start re-reads it from the "
            "beginning); body {\"to\":\"YYYY-MM-DD HH:MM:SS\"} rewinds its cursor instead",
            true, [&store, before_reset = std::move(before_reset)](const ApiRequest& request) {
              const std::string& table = request.Capture("table");
              if (!IsTableName(table)) return BadTable(request, table);
              auto body = ParseResetBody(request.body);
              if (!body.ok()) return ApiResponse::Error(400, body.status().message(), request.path);
              if (before_reset) {
                if (Status s = before_reset(table); !s.ok()) return Refused(request, table, s);
              }
              if (body->has_value()) return Rewind(store, request, table, **body);
              return Reset(store, request, table);
            }}));
  return Status::Ok();
}

}  // namespace snowcar::api
