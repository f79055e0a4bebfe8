// SPDX-License-Identifier: Apache-2.0
#include "testbed/emulator/pagination.h"

namespace snowcar::emulator {
namespace {

std::string PageUrl(const LinkInput& in, const std::string& echoed, int64_t offset) {
  std::string url = in.url_base;
  url += '?';
  url += echoed;
  if (!echoed.empty()) url += '&';
  url += "sysparm_offset=";
  url += std::to_string(offset);
  return url;
}

void AddRel(std::string& out, const std::string& url, const char* rel) {
  if (!out.empty()) out += ',';
  out += '<';
  out += url;
  out += ">;rel=\"";
  out += rel;
  out += '"';
}

}  // namespace

std::optional<std::string> BuildLinkHeader(const LinkInput& in) {
  const int64_t limit = in.limit > 0 ? in.limit : 1;
  if (in.total.has_value()) {
    if (static_cast<int64_t>(*in.total) <= limit) return std::nullopt;
  } else if (in.offset == 0 && !in.page_full) {
    return std::nullopt;
  }

  std::string echoed;
  if (in.params != nullptr) {
    for (const auto& p : *in.params) {
      if (p.key == "sysparm_offset") continue;
      if (!echoed.empty()) echoed += '&';
      echoed += p.raw;
    }
  }

  std::string out;
  AddRel(out, PageUrl(in, echoed, 0), "first");
  AddRel(out, PageUrl(in, echoed, in.offset - limit), "prev");
  if (in.total.has_value()) {
    const auto total = static_cast<int64_t>(*in.total);
    if (in.offset + limit < total) AddRel(out, PageUrl(in, echoed, in.offset + limit), "next");
    AddRel(out, PageUrl(in, echoed, ((total - 1) / limit) * limit), "last");
  } else if (in.page_full) {
    AddRel(out, PageUrl(in, echoed, in.offset + limit), "next");
  }
  return out;
}

}  // namespace snowcar::emulator
