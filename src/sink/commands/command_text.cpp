// SPDX-License-Identifier: Apache-2.0
#include "command_text.h"

#include <algorithm>

namespace snowcar::sink {
namespace {

constexpr size_t kMaxQuoted = 64;

bool IsBlank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

}  // namespace

std::string TrimBlank(std::string_view text) {
  while (!text.empty() && IsBlank(text.front())) text.remove_prefix(1);
  while (!text.empty() && IsBlank(text.back())) text.remove_suffix(1);
  return std::string(text);
}

std::string LowerAscii(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](char c) {
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  });
  return out;
}

std::string Quote(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "'";
  for (const char ch : text.substr(0, kMaxQuoted)) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c >= 0x7f || c == '\'' || c == '\\') {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    } else {
      out += ch;
    }
  }
  out += '\'';
  if (text.size() > kMaxQuoted) {
    out +=
        " (first " + std::to_string(kMaxQuoted) + " of " + std::to_string(text.size()) + " bytes)";
  }
  return out;
}

bool IsReservedFieldName(std::string_view name, const SinkSettings& settings) {
  return name == "sys_id" || name == "sys_mod_count" || name.starts_with("sys_created_") ||
         name.starts_with("sys_updated_") || name == settings.table_header ||
         name == settings.operation_header;
}

}  // namespace snowcar::sink
