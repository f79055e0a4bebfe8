// SPDX-License-Identifier: Apache-2.0
// Keyset queries, page targets and the cursor identity: string building only.
#include "snowcar/source/rows/keyset_query.h"

#include <cstdio>
#include <initializer_list>
#include <vector>

#include "snowcar/common/text.h"
#include "snowcar/common/time.h"
#include "snowcar/common/url_encoding.h"

namespace snowcar::source {
namespace {

constexpr std::string_view kNewQuery = "^NQ";

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::string_view TrimBlank(std::string_view s) {
  while (!s.empty() && IsBlank(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsBlank(s.back())) s.remove_suffix(1);
  return s;
}

// True when a ^NQ branch holds a condition. An empty branch ("a=1^NQ", "a=1^NQ^NQb=2",
// "a=1^NQEQ", "a=1^NQGROUPBYx") would otherwise receive the cursor terms alone and match every row
// in the cursor's range, not only the rows the base query selects.
bool HasCondition(std::string_view branch) {
  while (true) {
    const size_t caret = branch.find('^');
    std::string_view term = branch.substr(0, caret);
    while (term.starts_with("NQ")) term.remove_prefix(2);
    // EQ ends a query; GROUPBY (and ORDERBY, which the config refuses) are not conditions.
    if (!term.empty() && term != "EQ" && !term.starts_with("GROUPBY") &&
        !term.starts_with("ORDERBY")) {
      return true;
    }
    if (caret == std::string_view::npos) return false;
    branch.remove_prefix(caret + 1);
  }
}

// `base` with each of `alternatives` ANDed into every non-empty ^NQ branch (one branch per
// pair: an OR of ANDs stays one), then `order_by` once.
std::string Compose(std::string_view base, std::initializer_list<std::string_view> alternatives,
                    std::string_view order_by) {
  std::string out;
  out.reserve(base.size() * 2 + order_by.size() + 64);
  bool any_branch = false;
  while (!base.empty()) {
    const size_t nq = base.find(kNewQuery);
    const std::string_view branch = base.substr(0, nq);
    if (HasCondition(branch)) {
      for (std::string_view terms : alternatives) {
        if (any_branch) out.append(kNewQuery);
        out.append(branch);
        out += '^';
        out.append(terms);
        any_branch = true;
      }
    }
    if (nq == std::string_view::npos) break;
    base.remove_prefix(nq + kNewQuery.size());
  }
  if (!any_branch) {
    for (std::string_view terms : alternatives) {
      if (any_branch) out.append(kNewQuery);
      out.append(terms);
      any_branch = true;
    }
  }
  out += '^';
  out.append(order_by);
  return out;
}

uint64_t Fnv1a64(uint64_t hash, std::string_view bytes) {
  for (const char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

}  // namespace

std::string NormalizeBaseQuery(std::string_view query) {
  std::vector<std::string_view> terms;
  query = TrimBlank(query);
  while (!query.empty()) {
    const size_t caret = query.find('^');
    std::string_view term = TrimBlank(query.substr(0, caret));
    query = caret == std::string_view::npos ? std::string_view() : query.substr(caret + 1);
    if (term.empty()) continue;
    terms.push_back(term);
  }
  // A trailing ^EQ (copied from a list URL) marks the end of a query; cursor terms go after it.
  while (!terms.empty() && terms.back() == "EQ") terms.pop_back();
  std::string out;
  for (std::string_view term : terms) {
    if (!out.empty()) out += '^';
    // "NQ  field=x" and "OR  field=x": the operator word, then the condition, without blanks.
    for (std::string_view word : {std::string_view("NQ"), std::string_view("OR")}) {
      if (term.starts_with(word) && term.size() > word.size() && IsBlank(term[word.size()])) {
        out.append(word);
        term = TrimBlank(term.substr(word.size()));
      }
    }
    out.append(term);
  }
  return out;
}

std::string DrainSecondQuery(const TableSettings& table, int64_t ts,
                             std::string_view after_sys_id) {
  std::string terms = table.timestamp_field + "=" + FormatSnowTimestamp(ts);
  if (!after_sys_id.empty()) {
    terms += "^" + table.sys_id_field + ">";
    terms.append(after_sys_id);
  }
  return Compose(table.base_query, {terms}, "ORDERBY" + table.sys_id_field);
}

std::string MoveOnQuery(const TableSettings& table, int64_t after_ts, int64_t hi_ts) {
  const std::string terms = table.timestamp_field + ">" + FormatSnowTimestamp(after_ts) + "^" +
                            table.timestamp_field + "<=" + FormatSnowTimestamp(hi_ts);
  return Compose(table.base_query, {terms},
                 "ORDERBY" + table.timestamp_field + "^ORDERBY" + table.sys_id_field);
}

std::string KeysetQuery(const TableSettings& table, int64_t ts, std::string_view after_sys_id,
                        int64_t hi_ts) {
  std::string rest_of_second =
      table.timestamp_field + "=" + FormatSnowTimestamp(ts) + "^" + table.sys_id_field + ">";
  rest_of_second.append(after_sys_id);
  const std::string later = table.timestamp_field + ">" + FormatSnowTimestamp(ts) + "^" +
                            table.timestamp_field + "<=" + FormatSnowTimestamp(hi_ts);
  return Compose(table.base_query, {rest_of_second, later},
                 "ORDERBY" + table.timestamp_field + "^ORDERBY" + table.sys_id_field);
}

std::string PageTarget(const TableSettings& table, std::string_view encoded_query,
                       const PageRequestOptions& options) {
  std::string target = "/api/now/table/" + PercentEncode(table.name);
  target += "?sysparm_query=" + PercentEncode(encoded_query);
  target +=
      "&sysparm_limit=" + std::to_string(options.limit > 0 ? options.limit : table.batch_size);
  if (!options.fields_override.empty()) {
    target += "&sysparm_fields=" + PercentEncode(options.fields_override);
  } else if (!table.fields.empty()) {
    std::string fields;
    for (const std::string& f : table.fields) fields += (fields.empty() ? "" : ",") + f;
    target += "&sysparm_fields=" + PercentEncode(fields);
  }
  // `true` is asked for as `all` so the cursor fields arrive raw next to the display values.
  target += table.display_value == DisplayValue::kFalse ? "&sysparm_display_value=false"
                                                        : "&sysparm_display_value=all";
  target += table.exclude_reference_link ? "&sysparm_exclude_reference_link=true"
                                         : "&sysparm_exclude_reference_link=false";
  target += table.query_domain ? "&sysparm_query_no_domain=false" : "&sysparm_query_no_domain=true";
  target += options.with_count ? "&sysparm_no_count=false" : "&sysparm_no_count=true";
  target += "&sysparm_suppress_pagination_header=true";
  return target;
}

std::string QueryFingerprint(const TableSettings& table) {
  // FNV-1a 64 over the parts, each followed by a 0 byte so ("ab","c") != ("a","bc").
  uint64_t hash = 0xcbf29ce484222325ULL;
  hash = Fnv1a64(hash, table.name);
  hash = Fnv1a64(hash, std::string_view("\0", 1));
  hash = Fnv1a64(hash, table.base_query);
  hash = Fnv1a64(hash, std::string_view("\0", 1));
  hash = Fnv1a64(hash, table.query_domain ? "domain=1" : "domain=0");
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(hash));
  return hex;
}

state::CursorIdentity IdentityFor(const SourceSettings& source, const TableSettings& table) {
  return state::CursorIdentity{source.instance, table.alias, QueryFingerprint(table),
                               table.timestamp_field};
}

}  // namespace snowcar::source
