// SPDX-License-Identifier: Apache-2.0
#include "page_request.h"

#include <vector>

#include "snowcar/source/rows/keyset_query.h"

namespace snowcar::source {

std::string AddTermToEveryBranch(std::string_view encoded, std::string_view term) {
  // ORDERBY comes once, at the end: split it off first.
  std::string_view head = encoded;
  std::string_view tail;
  size_t order = encoded.find("^ORDERBY");
  if (order == std::string_view::npos && encoded.starts_with("ORDERBY")) order = 0;
  if (order != std::string_view::npos) {
    head = encoded.substr(0, order);
    tail = encoded.substr(order);
  }
  std::string out;
  size_t begin = 0;
  while (true) {
    const size_t nq = head.find("^NQ", begin);
    const std::string_view branch =
        head.substr(begin, nq == std::string_view::npos ? std::string_view::npos : nq - begin);
    out.append(branch);
    if (!branch.empty()) out.push_back('^');
    out.append(term);
    if (nq == std::string_view::npos) break;
    out.append("^NQ");
    begin = nq + 3;
  }
  if (!tail.empty()) {
    if (tail.front() != '^') out.push_back('^');
    out.append(tail);
  }
  return out;
}

std::string EncodedQueryFor(const TableSettings& table, const PlannedQuery& query) {
  if (query.shape == QueryShape::kMoveOn) {
    return MoveOnQuery(table, query.after_ts, query.hi_ts);
  }
  if (query.shape == QueryShape::kKeyset) {
    return KeysetQuery(table, query.drain_ts, query.after_sys_id, query.hi_ts);
  }
  std::string q = DrainSecondQuery(table, query.drain_ts, query.after_sys_id);
  if (!query.upto_sys_id.empty()) {
    q = AddTermToEveryBranch(q, table.sys_id_field + "<=" + query.upto_sys_id);
  }
  return q;
}

std::string PageTargetFor(const TableSettings& table, const PlannedQuery& query) {
  PageRequestOptions options;
  options.limit = query.count ? 1 : table.batch_size;
  // A page in phase stream asks for its range's count too (PlannedQuery::with_total).
  options.with_count = query.count || query.with_total;
  if (query.count) {
    options.fields_override = table.sys_id_field + "," + table.timestamp_field;
  }
  return PageTarget(table, EncodedQueryFor(table, query), options);
}

}  // namespace snowcar::source
