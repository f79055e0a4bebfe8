// SPDX-License-Identifier: Apache-2.0
#include "testbed/emulator/url_params.h"

namespace snowcar::emulator {

std::string DecodeOrVerbatim(std::string_view text, bool plus_as_space) {
  auto decoded = PercentDecode(text, plus_as_space);
  return decoded.ok() ? std::move(*decoded) : std::string(text);
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
        p.key = DecodeOrVerbatim(piece);
      } else {
        p.key = DecodeOrVerbatim(piece.substr(0, eq));
        p.value = DecodeOrVerbatim(piece.substr(eq + 1));
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
