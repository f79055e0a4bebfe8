// SPDX-License-Identifier: Apache-2.0
#include "state/key_codec.h"

namespace snowcar::state::codec {
namespace {
constexpr uint8_t kCursorFormat = 1;
constexpr size_t kCursorValueFixed = 1 + 1 + 8 + 8;
constexpr uint64_t kSignFlip = uint64_t{1} << 63;
}  // namespace

void AppendU32(std::string* out, uint32_t v) {
  const char b[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16),
                     static_cast<char>(v >> 8), static_cast<char>(v)};
  out->append(b, 4);
}

void AppendI64Ordered(std::string* out, int64_t v) {
  const uint64_t u = static_cast<uint64_t>(v) ^ kSignFlip;
  char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<char>(u >> (56 - 8 * i));
  out->append(b, 8);
}

uint32_t ReadU32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return (uint32_t{u[0]} << 24) | (uint32_t{u[1]} << 16) | (uint32_t{u[2]} << 8) | u[3];
}

int64_t ReadI64Ordered(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | u[i];
  return static_cast<int64_t>(v ^ kSignFlip);
}

void AppendPart(std::string* out, std::string_view part) {
  AppendU32(out, static_cast<uint32_t>(part.size()));
  out->append(part);
}

bool ConsumePart(std::string_view* in, std::string_view* part) {
  if (in->size() < 4) return false;
  const uint32_t n = ReadU32(in->data());
  if (in->size() - 4 < n) return false;
  *part = in->substr(4, n);
  in->remove_prefix(4 + n);
  return true;
}

std::string PrefixSuccessor(std::string_view prefix) {
  std::string s(prefix);
  while (!s.empty()) {
    auto& c = reinterpret_cast<unsigned char&>(s.back());
    if (c != 0xff) {
      ++c;
      return s;
    }
    s.pop_back();
  }
  return s;
}

std::string CursorPrefix(std::string_view instance, std::string_view table) {
  std::string k;
  AppendPart(&k, instance);
  AppendPart(&k, table);
  return k;
}

std::string CursorKey(const CursorIdentity& id) {
  std::string k = CursorPrefix(id.instance, id.table);
  AppendPart(&k, id.query_fingerprint);
  AppendPart(&k, id.timestamp_field);
  return k;
}

std::string BackfillKey(const CursorIdentity& id) {
  return std::string("backfill") + '\0' + CursorKey(id);
}

std::optional<CursorIdentity> DecodeCursorKey(std::string_view key) {
  std::string_view parts[4];
  for (auto& p : parts) {
    if (!ConsumePart(&key, &p)) return std::nullopt;
  }
  if (!key.empty()) return std::nullopt;
  return CursorIdentity{std::string(parts[0]), std::string(parts[1]), std::string(parts[2]),
                        std::string(parts[3])};
}

std::string EncodeCursorValue(const Cursor& cursor, int64_t updated_at_ms) {
  std::string v;
  v.reserve(kCursorValueFixed + cursor.sys_id.size());
  v.push_back(static_cast<char>(kCursorFormat));
  v.push_back(static_cast<char>(cursor.phase));
  AppendI64Ordered(&v, cursor.ts);
  AppendI64Ordered(&v, updated_at_ms);
  v.append(cursor.sys_id);
  return v;
}

bool DecodeCursorValue(std::string_view value, Cursor* cursor, int64_t* updated_at_ms) {
  if (value.size() < kCursorValueFixed) return false;
  if (static_cast<uint8_t>(value[0]) != kCursorFormat) return false;
  const auto phase = static_cast<uint8_t>(value[1]);
  if (phase > static_cast<uint8_t>(Phase::kStream)) return false;
  cursor->phase = static_cast<Phase>(phase);
  cursor->ts = ReadI64Ordered(value.data() + 2);
  *updated_at_ms = ReadI64Ordered(value.data() + 10);
  cursor->sys_id.assign(value.substr(kCursorValueFixed));
  return true;
}

std::string DedupPrefix(std::string_view instance, std::string_view table) {
  return CursorPrefix(instance, table);
}

void AppendBlockSeq(std::string* out, uint64_t seq) {
  char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<char>(seq >> (56 - 8 * i));
  out->append(b, 8);
}

bool DecodeBlockSeq(std::string_view rest, uint64_t* seq) {
  if (rest.size() != 8) return false;
  const auto* u = reinterpret_cast<const unsigned char*>(rest.data());
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | u[i];
  *seq = v;
  return true;
}

std::string LegacyDedupPrefix(std::string_view table) {
  std::string k;
  AppendPart(&k, table);
  return k;
}

void AppendDedupSuffix(std::string* out, int64_t ts, std::string_view sys_id, uint32_t mod) {
  AppendI64Ordered(out, ts);
  out->append(sys_id);
  AppendU32(out, mod);
}

bool DecodeDedupSuffix(std::string_view rest, int64_t* ts, std::string_view* sys_id,
                       uint32_t* mod) {
  if (rest.size() < kDedupFixedBytes) return false;
  *ts = ReadI64Ordered(rest.data());
  *sys_id = rest.substr(8, rest.size() - kDedupFixedBytes);
  *mod = ReadU32(rest.data() + rest.size() - 4);
  return true;
}

std::string CorrelationKey(std::string_view table, std::string_view field, std::string_view value) {
  std::string k;
  AppendPart(&k, table);
  AppendPart(&k, field);
  AppendPart(&k, value);
  return k;
}

std::string EncodeSchemaVersion(uint32_t version) {
  std::string v;
  AppendU32(&v, version);
  return v;
}

std::optional<uint32_t> DecodeSchemaVersion(std::string_view value) {
  if (value.size() != 4) return std::nullopt;
  return ReadU32(value.data());
}

}  // namespace snowcar::state::codec
