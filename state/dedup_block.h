// SPDX-License-Identifier: Apache-2.0
// The value of one dedup block: the entries one commit added to a table's dedup index, packed
// side by side (schema version 3). See docs/state-store.md for why a commit writes one value
// instead of one key per row.
//
// Layout: u8 format (1), then per entry: i64 ts (ordered, as in keys), u32 mod_count, u8 id
// kind, and the sys_id: kind 0 is 32 lowercase hex digits packed into 16 bytes (ServiceNow's
// form, a bijection), kind 1 is any other id as u32 length and its bytes. A hex id costs 29
// bytes in all.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace snowcar::state::block {

inline constexpr uint8_t kFormat = 1;

// 32 lowercase hex digits <-> 128 bits. Uppercase is not packed: "AB" and "ab" are different
// strings and must stay different rows.
bool PackHexId(std::string_view s, uint64_t* hi, uint64_t* lo);
void UnpackHexId(uint64_t hi, uint64_t lo, char (&out)[32]);

// Starts a block value in `out` (clears it).
void Begin(std::string* out);
void AppendHex(std::string* out, int64_t ts, uint64_t hi, uint64_t lo, uint32_t mod);
void AppendId(std::string* out, int64_t ts, std::string_view sys_id, uint32_t mod);
// Packs the id when it is hex, else stores it as it is.
void Append(std::string* out, int64_t ts, std::string_view sys_id, uint32_t mod);

// Reads a block value entry by entry. The sys_id a Next() gives stays valid until the next call.
class Reader {
 public:
  explicit Reader(std::string_view value);
  // False when the value does not start with a known format byte.
  bool ok() const { return ok_; }
  // Fills the next entry; false at the end, or when the rest is malformed (ok() turns false).
  bool Next(int64_t* ts, std::string_view* sys_id, uint32_t* mod);

 private:
  std::string_view rest_;
  bool ok_;
  char hex_[32];
};

}  // namespace snowcar::state::block
