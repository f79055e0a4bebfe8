// SPDX-License-Identifier: Apache-2.0
#include "table_snapshot.h"

#include <boost/json.hpp>

namespace snowcar::source {
namespace {

namespace json = boost::json;

bool CursorBefore(const state::Cursor& a, const state::Cursor& b) {
  if (a.ts != b.ts) return a.ts < b.ts;
  return a.sys_id < b.sys_id;
}

json::object IdentityJson(const state::CursorIdentity& id) {
  return {{"instance", id.instance},
          {"table", id.table},
          {"query_fingerprint", id.query_fingerprint},
          {"timestamp_field", id.timestamp_field}};
}

Status Bad(std::string what) {
  return Status::DataLoss("changelog record is not a table snapshot: " + std::move(what));
}

Result<std::string> StringField(const json::object& o, const char* name) {
  const json::value* v = o.if_contains(name);
  if (v == nullptr || !v->is_string()) return Bad(std::string("'") + name + "' is not a string");
  return std::string(v->as_string());
}

Result<int64_t> IntField(const json::object& o, const char* name) {
  const json::value* v = o.if_contains(name);
  if (v == nullptr || !v->is_int64()) return Bad(std::string("'") + name + "' is not an integer");
  return v->as_int64();
}

Result<std::vector<state::DedupKey>> DedupList(const json::object& o) {
  const json::value* dedup = o.if_contains("dedup");
  if (dedup == nullptr || !dedup->is_array()) return Bad("'dedup' is not an array");
  std::vector<state::DedupKey> out;
  for (const json::value& e : dedup->as_array()) {
    const json::array* a = e.if_array();
    if (a == nullptr || a->size() != 3 || !(*a)[0].is_int64() || !(*a)[1].is_string() ||
        !(*a)[2].is_int64() || (*a)[2].as_int64() < 0 || (*a)[2].as_int64() > int64_t{UINT32_MAX}) {
      return Bad("a dedup entry is not [ts, sys_id, mod_count]");
    }
    out.push_back(state::DedupKey{(*a)[0].as_int64(), std::string((*a)[1].as_string()),
                                  static_cast<uint32_t>((*a)[2].as_int64())});
  }
  return out;
}

}  // namespace

std::string EncodeSnapshot(const TableSnapshot& snapshot, size_t max_bytes) {
  json::object out;
  out["v"] = kSnapshotVersion;
  out["identity"] = IdentityJson(snapshot.identity);
  out["cursor"] = {{"ts", snapshot.cursor.ts},
                   {"sys_id", snapshot.cursor.sys_id},
                   {"phase", static_cast<int>(snapshot.cursor.phase)}};
  out["replica"] = snapshot.replica;
  out["written_at_ms"] = snapshot.written_at_ms;
  out["truncated"] = snapshot.truncated;
  out["dedup"] = json::array();
  std::string base = json::serialize(out);
  // Fill from the newest entry back: those are the re-reads the next sweep is sure to meet.
  size_t used = base.size() + 16;  // the "truncated":true flip and separators
  std::vector<std::string> kept;
  for (auto it = snapshot.dedup.rbegin(); it != snapshot.dedup.rend(); ++it) {
    std::string entry = json::serialize(json::array{it->ts, it->sys_id, it->mod_count});
    if (used + entry.size() + 1 > max_bytes) break;
    used += entry.size() + 1;
    kept.push_back(std::move(entry));
  }
  const bool truncated = snapshot.truncated || kept.size() < snapshot.dedup.size();
  json::array dedup;
  dedup.reserve(kept.size());
  for (auto it = kept.rbegin(); it != kept.rend(); ++it) dedup.push_back(json::parse(*it));
  out["dedup"] = std::move(dedup);
  out["truncated"] = truncated;
  if (snapshot.deletes) {
    json::array entries;
    for (const state::DedupKey& k : snapshot.deletes->dedup) {
      entries.push_back(json::array{k.ts, k.sys_id, k.mod_count});
    }
    out["deletes"] = {{"identity", IdentityJson(snapshot.deletes->identity)},
                      {"cursor",
                       {{"ts", snapshot.deletes->cursor.ts},
                        {"sys_id", snapshot.deletes->cursor.sys_id},
                        {"phase", static_cast<int>(snapshot.deletes->cursor.phase)}}},
                      {"dedup", std::move(entries)}};
  }
  if (snapshot.sweep) out["sweep"] = *snapshot.sweep;
  if (snapshot.idset) out["idset"] = *snapshot.idset;
  return json::serialize(out);
}

Result<TableSnapshot> DecodeSnapshot(std::string_view text) {
  boost::system::error_code ec;
  json::value parsed = json::parse(text, ec);
  if (ec) return Bad("not JSON (" + ec.message() + ")");
  if (!parsed.is_object()) return Bad("not a JSON object");
  const json::object& o = parsed.as_object();
  SNOWCAR_ASSIGN_OR_RETURN(int64_t version, IntField(o, "v"));
  if (version != kSnapshotVersion) {
    return Bad("version " + std::to_string(version) + ", this snowcar reads version " +
               std::to_string(kSnapshotVersion));
  }
  TableSnapshot s;
  const json::value* identity = o.if_contains("identity");
  if (identity == nullptr || !identity->is_object()) return Bad("'identity' is not an object");
  const json::object& id = identity->as_object();
  SNOWCAR_ASSIGN_OR_RETURN(s.identity.instance, StringField(id, "instance"));
  SNOWCAR_ASSIGN_OR_RETURN(s.identity.table, StringField(id, "table"));
  SNOWCAR_ASSIGN_OR_RETURN(s.identity.query_fingerprint, StringField(id, "query_fingerprint"));
  SNOWCAR_ASSIGN_OR_RETURN(s.identity.timestamp_field, StringField(id, "timestamp_field"));
  const json::value* cursor = o.if_contains("cursor");
  if (cursor == nullptr || !cursor->is_object()) return Bad("'cursor' is not an object");
  SNOWCAR_ASSIGN_OR_RETURN(s.cursor.ts, IntField(cursor->as_object(), "ts"));
  SNOWCAR_ASSIGN_OR_RETURN(s.cursor.sys_id, StringField(cursor->as_object(), "sys_id"));
  SNOWCAR_ASSIGN_OR_RETURN(int64_t phase, IntField(cursor->as_object(), "phase"));
  if (phase != 0 && phase != 1) return Bad("cursor phase " + std::to_string(phase));
  s.cursor.phase = static_cast<state::Phase>(phase);
  if (const json::value* r = o.if_contains("replica"); r != nullptr && r->is_string()) {
    s.replica = std::string(r->as_string());
  }
  if (const json::value* w = o.if_contains("written_at_ms"); w != nullptr && w->is_int64()) {
    s.written_at_ms = w->as_int64();
  }
  if (const json::value* t = o.if_contains("truncated"); t != nullptr && t->is_bool()) {
    s.truncated = t->as_bool();
  }
  SNOWCAR_ASSIGN_OR_RETURN(s.dedup, DedupList(o));
  if (const json::value* d = o.if_contains("deletes"); d != nullptr && !d->is_null()) {
    if (!d->is_object()) return Bad("'deletes' is not an object");
    const json::object& del = d->as_object();
    StreamSnapshot stream;
    const json::value* did = del.if_contains("identity");
    if (did == nullptr || !did->is_object()) return Bad("'deletes.identity' is not an object");
    SNOWCAR_ASSIGN_OR_RETURN(stream.identity.instance, StringField(did->as_object(), "instance"));
    SNOWCAR_ASSIGN_OR_RETURN(stream.identity.table, StringField(did->as_object(), "table"));
    SNOWCAR_ASSIGN_OR_RETURN(stream.identity.query_fingerprint,
                             StringField(did->as_object(), "query_fingerprint"));
    SNOWCAR_ASSIGN_OR_RETURN(stream.identity.timestamp_field,
                             StringField(did->as_object(), "timestamp_field"));
    const json::value* dc = del.if_contains("cursor");
    if (dc == nullptr || !dc->is_object()) return Bad("'deletes.cursor' is not an object");
    SNOWCAR_ASSIGN_OR_RETURN(stream.cursor.ts, IntField(dc->as_object(), "ts"));
    SNOWCAR_ASSIGN_OR_RETURN(stream.cursor.sys_id, StringField(dc->as_object(), "sys_id"));
    SNOWCAR_ASSIGN_OR_RETURN(int64_t dphase, IntField(dc->as_object(), "phase"));
    if (dphase != 0 && dphase != 1) return Bad("deletes cursor phase " + std::to_string(dphase));
    stream.cursor.phase = static_cast<state::Phase>(dphase);
    SNOWCAR_ASSIGN_OR_RETURN(stream.dedup, DedupList(del));
    s.deletes = std::move(stream);
  }
  if (const json::value* w = o.if_contains("sweep"); w != nullptr && !w->is_null()) {
    if (!w->is_string()) return Bad("'sweep' is not a string");
    s.sweep = std::string(w->as_string());
  }
  if (const json::value* i = o.if_contains("idset"); i != nullptr && !i->is_null()) {
    if (!i->is_string()) return Bad("'idset' is not a string");
    s.idset = std::string(i->as_string());
  }
  return s;
}

Result<std::optional<TableSnapshot>> CaptureSnapshot(state::StateStore& store,
                                                     const state::CursorIdentity& identity) {
  SNOWCAR_ASSIGN_OR_RETURN(std::optional<state::Cursor> cursor, store.LoadCursor(identity));
  if (!cursor.has_value()) return std::optional<TableSnapshot>();
  TableSnapshot s;
  s.identity = identity;
  s.cursor = *cursor;
  SNOWCAR_ASSIGN_OR_RETURN(s.dedup, store.DedupEntries(identity));
  return std::optional<TableSnapshot>(std::move(s));
}

std::string_view RestoreOutcomeName(RestoreOutcome outcome) {
  switch (outcome) {
    case RestoreOutcome::kApplied:
      return "applied";
    case RestoreOutcome::kLocalNewer:
      return "local_newer";
    case RestoreOutcome::kIdentityMismatch:
      return "identity_mismatch";
  }
  return "unknown";
}

Result<RestoreOutcome> ApplySnapshot(state::StateStore& store, const TableSnapshot& snapshot,
                                     const state::CursorIdentity& configured,
                                     const state::DedupPolicy& policy) {
  // A snapshot from another configuration (query, timestamp field, instance) describes other
  // rows; restoring it would be the silent cursor reuse the store refuses everywhere else.
  if (snapshot.identity != configured) return RestoreOutcome::kIdentityMismatch;
  // A local cursor past the snapshot's can only come from this replica having owned the
  // table after the snapshot was written (committed, then died before the next snapshot):
  // keeping it re-emits less. Cursors only move forward, so "past" means "newer".
  auto local = store.LoadCursor(configured);
  if (local.ok() && local->has_value() && CursorBefore(snapshot.cursor, **local)) {
    return RestoreOutcome::kLocalNewer;
  }
  // One write: the old state goes and the snapshot's arrives together. Done as a reset and
  // then a commit, a crash between the two left the table with no cursor, and its next owner
  // read the whole table again from start.timestamp.
  SNOWCAR_RETURN_IF_ERROR(store.ReplaceTable(configured, snapshot.cursor, snapshot.dedup, policy));
  return RestoreOutcome::kApplied;
}

}  // namespace snowcar::source
