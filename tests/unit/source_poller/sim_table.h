// SPDX-License-Identifier: Apache-2.0
// A simulated ServiceNow table for the poller's unit tests: rows (ts, sys_id, mod count), an
// ACL stand-in that hides rows after the limit is applied (as an instance does), and an
// evaluator for the two keyset query shapes, both as PlannedQuery values (plan tests) and
// as request targets (poller tests, through FakeTableClient).
#pragma once

#include <algorithm>
#include <boost/json.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "snowcar/common/time.h"
#include "snowcar/common/url_encoding.h"
#include "snowcar/servicenow/table_client.h"
#include "source/rows/poll_plan.h"

namespace snowcar::source::testing {

// The instant the poller tests start their clocks at: 2026-01-01 00:00:00 UTC.
inline constexpr int64_t kT0 = 1767225600;

struct SimRow {
  int64_t ts = 0;
  std::string sys_id;
  uint32_t mod = 0;
  bool operator<(const SimRow& o) const { return ts != o.ts ? ts < o.ts : sys_id < o.sys_id; }
  bool operator==(const SimRow& o) const = default;
};

// A 32-hex sys_id from a number, so ids sort like the numbers.
inline std::string Id(uint64_t n) {
  char buf[33];
  std::snprintf(buf, sizeof(buf), "%016llx%016llx", 0ULL, static_cast<unsigned long long>(n));
  return buf;
}

// A 32-hex sys_id spread over the whole id space like a real one (random high bits), so
// hidden-row bisection behaves as it would on an instance.
inline std::string SpreadId(uint64_t n) {
  uint64_t z = n + 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  char buf[33];
  std::snprintf(buf, sizeof(buf), "%016llx%016llx", static_cast<unsigned long long>(z),
                static_cast<unsigned long long>(n));
  return buf;
}

// One condition of an encoded query: field, operator, value.
struct Term {
  std::string field, op, value;
};

class SimTable {
 public:
  std::vector<SimRow> rows;
  std::function<bool(const SimRow&)> hidden = [](const SimRow&) { return false; };
  // Which rows X-Total-Count counts is not documented for a real instance; both readings
  // are modelled. false: every matching row, hidden ones included; true: readable rows only.
  bool count_readable_only = false;
  std::string ts_field = "sys_updated_on";
  std::string id_field = "sys_id";

  void Sort() { std::sort(rows.begin(), rows.end()); }

  static bool Matches(const SimRow& r, const PlannedQuery& q) {
    if (q.shape == QueryShape::kMoveOn) return r.ts > q.after_ts && r.ts <= q.hi_ts;
    if (q.shape == QueryShape::kKeyset) {
      return (r.ts == q.drain_ts && r.sys_id > q.after_sys_id) ||
             (r.ts > q.drain_ts && r.ts <= q.hi_ts);
    }
    return r.ts == q.drain_ts && r.sys_id > q.after_sys_id &&
           (q.upto_sys_id.empty() || r.sys_id <= q.upto_sys_id);
  }
  // Limit first, then the ACL: the page may be short or empty while rows follow.
  std::vector<SimRow> Page(const PlannedQuery& q, int limit) const {
    std::vector<SimRow> out;
    int taken = 0;
    for (const SimRow& r : Sorted()) {
      if (!Matches(r, q)) continue;
      if (taken++ >= limit) break;
      if (!hidden(r)) out.push_back(r);
    }
    return out;
  }
  int64_t Count(const PlannedQuery& q) const {
    int64_t n = 0;
    for (const SimRow& r : rows) n += Matches(r, q) && !(count_readable_only && hidden(r)) ? 1 : 0;
    return n;
  }

  // ---- the same over HTTP targets ----
  static std::map<std::string, std::string> Params(const std::string& target) {
    std::map<std::string, std::string> out;
    const size_t q = target.find('?');
    if (q == std::string::npos) return out;
    std::string rest = target.substr(q + 1);
    size_t begin = 0;
    while (begin <= rest.size()) {
      size_t amp = rest.find('&', begin);
      std::string part =
          rest.substr(begin, amp == std::string::npos ? std::string::npos : amp - begin);
      size_t eq = part.find('=');
      auto value = PercentDecode(eq == std::string::npos ? "" : part.substr(eq + 1));
      out[part.substr(0, eq)] = value.ok() ? *value : "";
      if (amp == std::string::npos) break;
      begin = amp + 1;
    }
    return out;
  }
  static std::vector<Term> Terms(const std::string& query) {
    std::vector<Term> out;
    size_t begin = 0;
    while (begin <= query.size()) {
      size_t caret = query.find('^', begin);
      std::string term =
          query.substr(begin, caret == std::string::npos ? std::string::npos : caret - begin);
      if (!term.empty() && !term.starts_with("ORDERBY")) {
        for (const char* op : {">=", "<=", ">", "<", "="}) {
          size_t at = term.find(op);
          if (at != std::string::npos) {
            out.push_back({term.substr(0, at), op, term.substr(at + std::string(op).size())});
            break;
          }
        }
      }
      if (caret == std::string::npos) break;
      begin = caret + 1;
    }
    return out;
  }
  bool MatchesTerms(const SimRow& r, const std::vector<Term>& terms) const {
    for (const Term& t : terms) {
      int cmp = 0;
      if (t.field == ts_field) {
        auto v = ParseSnowTimestamp(t.value);
        if (!v.ok()) return false;
        cmp = r.ts < *v ? -1 : (r.ts > *v ? 1 : 0);
      } else if (t.field == id_field) {
        cmp = r.sys_id.compare(t.value);
        cmp = cmp < 0 ? -1 : (cmp > 0 ? 1 : 0);
      } else {
        continue;
      }
      if (t.op == "=" && cmp != 0) return false;
      if (t.op == ">" && cmp <= 0) return false;
      if (t.op == ">=" && cmp < 0) return false;
      if (t.op == "<" && cmp >= 0) return false;
      if (t.op == "<=" && cmp > 0) return false;
    }
    return true;
  }
  boost::json::object RowJson(const SimRow& r) const {
    boost::json::object o;
    o[id_field] = r.sys_id;
    o[ts_field] = FormatSnowTimestamp(r.ts);
    o["sys_mod_count"] = std::to_string(r.mod);
    o["short_description"] = "row " + r.sys_id.substr(24);
    return o;
  }
  // Answers a GET of a table list the way an instance would.
  servicenow::CallResult Answer(const std::string& target) const {
    auto params = Params(target);
    // ^NQ: an OR of whole queries (the keyset shape is one), each a list of ANDed terms.
    std::vector<std::vector<Term>> branches;
    const std::string query = params["sysparm_query"];
    for (size_t begin = 0;;) {
      const size_t nq = query.find("^NQ", begin);
      branches.push_back(Terms(query.substr(begin, nq == std::string::npos ? nq : nq - begin)));
      if (nq == std::string::npos) break;
      begin = nq + 3;
    }
    const int limit = std::stoi(params.count("sysparm_limit") ? params["sysparm_limit"] : "10000");
    servicenow::CallResult r;
    r.http_status = 200;
    r.response.kind = servicenow::BodyKind::kList;
    int taken = 0;
    int64_t total = 0;
    for (const SimRow& row : Sorted()) {
      bool matches = false;
      for (const auto& terms : branches) matches = matches || MatchesTerms(row, terms);
      if (!matches) continue;
      if (!(count_readable_only && hidden(row))) ++total;
      if (taken++ >= limit) continue;
      if (!hidden(row)) r.response.rows.push_back(RowJson(row));
    }
    if (params["sysparm_no_count"] != "true") r.response.total_count = total;
    return r;
  }

 private:
  std::vector<SimRow> Sorted() const {
    std::vector<SimRow> out = rows;
    std::sort(out.begin(), out.end());
    return out;
  }
};

}  // namespace snowcar::source::testing
