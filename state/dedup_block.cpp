// SPDX-License-Identifier: Apache-2.0
#include "state/dedup_block.h"

#include <array>

#include "state/key_codec.h"

namespace snowcar::state::block {
namespace {

constexpr uint8_t kHexKind = 0;
constexpr uint8_t kStringKind = 1;
constexpr size_t kFixed = 8 + 4 + 1;  // ts, mod_count, id kind

constexpr std::array<int8_t, 256> kHexValue = [] {
  std::array<int8_t, 256> t{};
  t.fill(-1);
  for (int c = '0'; c <= '9'; ++c) t[c] = static_cast<int8_t>(c - '0');
  for (int c = 'a'; c <= 'f'; ++c) t[c] = static_cast<int8_t>(c - 'a' + 10);
  return t;
}();
constexpr char kHexDigits[] = "0123456789abcdef";

void AppendU64(std::string* out, uint64_t v) {
  char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<char>(v >> (56 - 8 * i));
  out->append(b, 8);
}

uint64_t ReadU64(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | u[i];
  return v;
}

void AppendHead(std::string* out, int64_t ts, uint32_t mod, uint8_t kind) {
  codec::AppendI64Ordered(out, ts);
  codec::AppendU32(out, mod);
  out->push_back(static_cast<char>(kind));
}

}  // namespace

bool PackHexId(std::string_view s, uint64_t* hi, uint64_t* lo) {
  if (s.size() != 32) return false;
  uint64_t a = 0, b = 0;
  int bad = 0;
  // kHexValue holds -1 for a non-hex byte: the sign extension below is what sets `bad`.
  // NOLINTBEGIN(bugprone-signed-char-misuse)
  for (size_t i = 0; i < 16; ++i) {
    const int v = static_cast<int>(kHexValue[static_cast<unsigned char>(s[i])]);
    const int w = static_cast<int>(kHexValue[static_cast<unsigned char>(s[i + 16])]);
    bad |= v | w;
    a = (a << 4) | static_cast<uint64_t>(v & 15);
    b = (b << 4) | static_cast<uint64_t>(w & 15);
  }
  // NOLINTEND(bugprone-signed-char-misuse)
  *hi = a;
  *lo = b;
  return bad >= 0;
}

void UnpackHexId(uint64_t hi, uint64_t lo, char (&out)[32]) {
  for (int i = 15; i >= 0; --i) {
    out[i] = kHexDigits[hi & 15];
    out[i + 16] = kHexDigits[lo & 15];
    hi >>= 4;
    lo >>= 4;
  }
}

void Begin(std::string* out) {
  out->clear();
  out->push_back(static_cast<char>(kFormat));
}

void AppendHex(std::string* out, int64_t ts, uint64_t hi, uint64_t lo, uint32_t mod) {
  AppendHead(out, ts, mod, kHexKind);
  AppendU64(out, hi);
  AppendU64(out, lo);
}

void AppendId(std::string* out, int64_t ts, std::string_view sys_id, uint32_t mod) {
  AppendHead(out, ts, mod, kStringKind);
  codec::AppendPart(out, sys_id);
}

void Append(std::string* out, int64_t ts, std::string_view sys_id, uint32_t mod) {
  uint64_t hi = 0, lo = 0;
  if (PackHexId(sys_id, &hi, &lo)) {
    AppendHex(out, ts, hi, lo, mod);
  } else {
    AppendId(out, ts, sys_id, mod);
  }
}

Reader::Reader(std::string_view value)
    : rest_(value), ok_(!value.empty() && static_cast<uint8_t>(value[0]) == kFormat), hex_{} {
  if (ok_) rest_.remove_prefix(1);
}

bool Reader::Next(int64_t* ts, std::string_view* sys_id, uint32_t* mod) {
  if (!ok_ || rest_.empty()) return false;
  if (rest_.size() < kFixed) {
    ok_ = false;
    return false;
  }
  *ts = codec::ReadI64Ordered(rest_.data());
  *mod = codec::ReadU32(rest_.data() + 8);
  const auto kind = static_cast<uint8_t>(rest_[12]);
  rest_.remove_prefix(kFixed);
  if (kind == kHexKind && rest_.size() >= 16) {
    UnpackHexId(ReadU64(rest_.data()), ReadU64(rest_.data() + 8), hex_);
    rest_.remove_prefix(16);
    *sys_id = std::string_view(hex_, 32);
    return true;
  }
  if (kind == kStringKind && codec::ConsumePart(&rest_, sys_id)) return true;
  ok_ = false;
  return false;
}

}  // namespace snowcar::state::block
