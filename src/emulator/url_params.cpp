// SPDX-License-Identifier: Apache-2.0
#include "emulator/url_params.h"

namespace snowcar::emulator {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string PercentDecode(std::string_view text, bool plus_as_space) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '%' && i + 2 < text.size()) {
      const int hi = HexValue(text[i + 1]);
      const int lo = HexValue(text[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
        continue;
      }
    }
    out += (plus_as_space && c == '+') ? ' ' : c;
  }
  return out;
}

std::vector<UrlParam> ParseUrlParams(std::string_view raw) {
  std::vector<UrlParam> params;
  size_t start = 0;
  while (start <= raw.size()) {
    size_t end = raw.find('&', start);
    if (end == std::string_view::npos) end = raw.size();
    const std::string_view piece = raw.substr(start, end - start);
    if (!piece.empty()) {
      UrlParam p;
      p.raw = std::string(piece);
      const size_t eq = piece.find('=');
      if (eq == std::string_view::npos) {
        p.key = PercentDecode(piece);
      } else {
        p.key = PercentDecode(piece.substr(0, eq));
        p.value = PercentDecode(piece.substr(eq + 1));
      }
      params.push_back(std::move(p));
    }
    start = end + 1;
  }
  return params;
}

const UrlParam* FindParam(const std::vector<UrlParam>& params, std::string_view key) {
  for (const auto& p : params) {
    if (p.key == key) return &p;
  }
  return nullptr;
}

}  // namespace snowcar::emulator
