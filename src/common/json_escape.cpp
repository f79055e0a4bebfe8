// SPDX-License-Identifier: Apache-2.0
#include "snowcar/common/json_escape.h"

#include <array>
#include <cstdint>
#include <cstring>

namespace snowcar {
namespace {

// True for bytes that JSON strings must escape.
constexpr std::array<bool, 256> MakeEscapeTable() {
  std::array<bool, 256> t{};
  for (int c = 0; c < 0x20; ++c) t[static_cast<size_t>(c)] = true;
  t['"'] = true;
  t['\\'] = true;
  return t;
}
constexpr std::array<bool, 256> kNeedsEscape = MakeEscapeTable();

void AppendEscaped(char c, std::string& out) {
  switch (c) {
    case '"':
      out.append("\\\"");
      return;
    case '\\':
      out.append("\\\\");
      return;
    case '\n':
      out.append("\\n");
      return;
    case '\r':
      out.append("\\r");
      return;
    case '\t':
      out.append("\\t");
      return;
    case '\b':
      out.append("\\b");
      return;
    case '\f':
      out.append("\\f");
      return;
    default: {
      static constexpr char kHex[] = "0123456789abcdef";
      const auto u = static_cast<unsigned char>(c);
      const char esc[6] = {'\\', 'u', '0', '0', kHex[u >> 4], kHex[u & 0xf]};
      out.append(esc, 6);
    }
  }
}

// True when one of the 8 bytes in `x` is < 0x20, '"' or '\\' (exact as to "any", which is
// all the caller needs).
inline bool WordNeedsEscape(uint64_t x) {
  constexpr uint64_t kOnes = 0x0101010101010101ULL;
  constexpr uint64_t kHighs = 0x8080808080808080ULL;
  const uint64_t below_space = (x - kOnes * 0x20) & ~x & kHighs;
  const uint64_t q = x ^ (kOnes * '"');
  const uint64_t quote = (q - kOnes) & ~q & kHighs;
  const uint64_t b = x ^ (kOnes * '\\');
  const uint64_t backslash = (b - kOnes) & ~b & kHighs;
  return (below_space | quote | backslash) != 0;
}

}  // namespace

void AppendJsonEscaped(std::string& out, std::string_view text) {
  const char* p = text.data();
  const char* end = p + text.size();
  const char* run = p;
  while (p != end) {
    if (end - p >= 8) {
      uint64_t word;
      std::memcpy(&word, p, sizeof(word));
      if (!WordNeedsEscape(word)) {
        p += 8;
        continue;
      }
    }
    if (kNeedsEscape[static_cast<unsigned char>(*p)]) {
      out.append(run, static_cast<size_t>(p - run));
      AppendEscaped(*p, out);
      run = p + 1;
    }
    ++p;
  }
  out.append(run, static_cast<size_t>(end - run));
}

void AppendJsonString(std::string& out, std::string_view text) {
  out += '"';
  AppendJsonEscaped(out, text);
  out += '"';
}

}  // namespace snowcar
