// SPDX-License-Identifier: Apache-2.0
// Byte layouts of the keys and values the state store writes. One place, so the layout that
// docs/state-store.md describes and the code agree, and so tests can check both directions.
//
// Every variable-length key part is written as a 4-byte big-endian length and the bytes, so
// no part can run into the next and the encoding of (instance, table) is a strict prefix of
// every cursor key of that pair. Integers in keys are big-endian (signed ones with the sign
// bit flipped) so that RocksDB's bytewise order is numeric order: a table's dedup blocks sort
// by their sequence number and one DeleteRange removes a run of them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "snowcar/state/state_store.h"

namespace snowcar::state::codec {

// Column family names. "default" exists in every RocksDB database and stays empty.
inline constexpr char kCursorCf[] = "cursor";
inline constexpr char kDedupCf[] = "dedup";
inline constexpr char kCorrelationCf[] = "correlation";
inline constexpr char kMetaCf[] = "meta";
inline constexpr char kOriginCf[] = "origin";  // layout: state/origin_index.h
inline constexpr char kIdSetCf[] = "idset";    // layout: state/state_store_idset.cpp
inline constexpr std::string_view kSchemaVersionKey = "schema_version";

void AppendU32(std::string* out, uint32_t v);
void AppendI64Ordered(std::string* out, int64_t v);
uint32_t ReadU32(const char* p);
int64_t ReadI64Ordered(const char* p);
void AppendPart(std::string* out, std::string_view part);
// Reads one length-prefixed part from the front of `in`; false when `in` is too short.
bool ConsumePart(std::string_view* in, std::string_view* part);

// The smallest key greater than every key starting with `prefix` ("" when there is none).
std::string PrefixSuccessor(std::string_view prefix);

// ---- cursor column family: key = part(instance) part(table) part(fingerprint) part(ts field)
std::string CursorPrefix(std::string_view instance, std::string_view table);
std::string CursorKey(const CursorIdentity& identity);
std::optional<CursorIdentity> DecodeCursorKey(std::string_view key);
// The meta-family key of a table's parallel backfill progress (state_store_backfill.cpp).
std::string BackfillKey(const CursorIdentity& identity);
// value = u8 format(1) u8 phase i64 ts i64 updated_at_ms sys_id-bytes
std::string EncodeCursorValue(const Cursor& cursor, int64_t updated_at_ms);
bool DecodeCursorValue(std::string_view value, Cursor* cursor, int64_t* updated_at_ms);

// ---- dedup column family (schema version 3): key = part(instance) part(table) u64 block seq;
// value = the block's entries (state/dedup_block.h). The instance and table are the cursor's,
// so a table pointed at another instance (a clone) starts with no entries, as it starts with no
// cursor.
std::string DedupPrefix(std::string_view instance, std::string_view table);
void AppendBlockSeq(std::string* out, uint64_t seq);
// `rest` is the key after the table prefix; false unless it is exactly a block seq.
bool DecodeBlockSeq(std::string_view rest, uint64_t* seq);
// Schema version 2 had one key per entry: part(instance) part(table) i64 ts sys_id-bytes
// u32 mod_count, value empty (the sys_id is whatever lies between ts and the last 4 bytes).
// Schema version 1 keyed the same suffix by part(table) only. Both are read once, by the
// migrations (state/state_store_migrate.cpp).
std::string LegacyDedupPrefix(std::string_view table);
inline constexpr size_t kDedupFixedBytes = 8 + 4;  // ts + mod_count around the sys_id
void AppendDedupSuffix(std::string* out, int64_t ts, std::string_view sys_id, uint32_t mod);
// `rest` is the key after the table prefix.
bool DecodeDedupSuffix(std::string_view rest, int64_t* ts, std::string_view* sys_id, uint32_t* mod);

// ---- correlation column family: key = part(table) part(field) part(value); value = sys_id
std::string CorrelationKey(std::string_view table, std::string_view field, std::string_view value);

// ---- meta column family
std::string EncodeSchemaVersion(uint32_t version);
std::optional<uint32_t> DecodeSchemaVersion(std::string_view value);

}  // namespace snowcar::state::codec
