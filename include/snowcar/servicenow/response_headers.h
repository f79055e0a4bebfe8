// SPDX-License-Identifier: Apache-2.0
// Parsers for the answer headers the client and its callers act on.
//
// Each returns nullopt for a header that is absent or unreadable: a missing hint is never an
// error, the client simply falls back (no Retry-After: its own backoff; no Date: no drift).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace snowcar::servicenow {

struct LinkEntry {
  std::string url;
  std::string rel;  // "first", "prev", "next", "last"
};

// `<url>;rel="next",<url>;rel="last"` (with or without blanks, quotes optional). Entries
// without a rel or with an unterminated `<` are skipped, so a truncated header yields the
// entries that were complete.
std::vector<LinkEntry> ParseLinkHeader(std::string_view value);
// The URL of the entry with this rel, if any.
std::optional<std::string> FindLink(const std::vector<LinkEntry>& links, std::string_view rel);

// RFC 7231 IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT") to Unix epoch milliseconds. The two
// obsolete forms (RFC 850 and asctime) are accepted too, as HTTP requires of recipients.
std::optional<int64_t> ParseHttpDate(std::string_view value);

// Retry-After as a wait in milliseconds: delay-seconds, or an HTTP-date taken relative to
// `now_ms` (the answer's own Date header when it has one, so clock skew does not matter).
// A date in the past gives 0.
std::optional<int64_t> ParseRetryAfterMillis(std::string_view value, int64_t now_ms);

// X-Total-Count: a non-negative decimal.
std::optional<int64_t> ParseTotalCount(std::string_view value);

}  // namespace snowcar::servicenow
