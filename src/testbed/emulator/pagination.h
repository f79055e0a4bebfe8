// SPDX-License-Identifier: Apache-2.0
// The Link header of a list page, by the rule real instances follow (fixtures 01, 05, 07):
//  - absolute URLs built on the request's own URL, every parameter echoed as received
//    (unknown ones too), sysparm_offset removed and appended last with the new value;
//  - no spaces, order first, prev, next, last;
//  - first = 0; prev = offset - limit, present even when negative (-1 on the first page of a
//    limit-1 query); next = offset + limit, absent on the last page; last =
//    floor((total - 1) / limit) * limit;
//  - no Link at all when the whole result fits one page (total <= limit).
// Without a total (sysparm_no_count=true) there is no "last", and "next" is given when the
// page came back full (before the ACL), as the server cannot know better.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "testbed/emulator/url_params.h"

namespace snowcar::emulator {

struct LinkInput {
  std::string url_base;                           // "http://127.0.0.1:40123/api/now/table/incident"
  const std::vector<UrlParam>* params = nullptr;  // the request's parameters, in order
  int64_t offset = 0;
  int64_t limit = 10000;
  std::optional<size_t> total;  // nullopt with sysparm_no_count=true
  bool page_full = false;       // the page had `limit` rows before the ACL
};

// The header value, or nullopt when no Link header is due.
std::optional<std::string> BuildLinkHeader(const LinkInput& input);

}  // namespace snowcar::emulator
