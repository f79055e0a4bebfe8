// SPDX-License-Identifier: Apache-2.0
// TableStore::List: plans a query onto the (sys_updated_on, sys_id) index when it can, and
// falls back to scan + stable sort otherwise. Both paths give the same rows in the same order
// (tests compare them on random keyset queries).
#include <algorithm>
#include <mutex>
#include <set>
#include <shared_mutex>

#include "snowcar/testbed/emulator/table_store.h"
#include "table_store_table.h"

namespace snowcar::emulator {
namespace {

struct RankRange {
  size_t lo = 0;
  size_t hi = 0;  // exclusive
};

using Probe = IndexProbe;

// The index ranks one ^NQ branch can match, and whether the range is exact (every row in
// it matches the branch) or only a superset to be filtered.
// `ts_field` is the index's time field; a `skip_field=...` condition is one the index already
// satisfies (the tablename of a sys_audit part index), so it does not make the range inexact.
// `ts_field` nullopt: the index is the table's sys_id index (every entry's ts is empty), so
// only sys_id conditions narrow the range.
RankRange BranchRange(const BoundBranch& branch, const KeysetIndex& index, bool& exact,
                      std::optional<size_t> ts_field = TableSchema::kSysUpdatedOn,
                      std::optional<size_t> skip_field = std::nullopt) {
  RankRange r{0, index.size()};
  exact = true;
  auto lower = [&](size_t v) { r.lo = std::max(r.lo, v); };
  auto upper = [&](size_t v) { r.hi = std::min(r.hi, v); };
  static const std::string kNoTs;
  const std::string* pinned = ts_field ? nullptr : &kNoTs;  // sys_updated_on=T
  std::vector<const BoundCondition*> id_conds;
  for (const BoundGroup& g : branch.all_of) {
    if (g.any_of.size() != 1) {
      exact = false;
      continue;
    }
    const BoundCondition& c = g.any_of[0];
    if (skip_field && c.field == *skip_field && c.op == QueryOp::kEq) continue;
    if (ts_field && c.field == *ts_field) {
      switch (c.op) {
        case QueryOp::kEq:
          lower(index.LowerBound(Probe{c.value, Probe::Id::kBeforeAll, {}}));
          upper(index.LowerBound(Probe{c.value, Probe::Id::kAfterAll, {}}));
          pinned = &c.value;
          continue;
        case QueryOp::kGt:
          lower(index.LowerBound(Probe{c.value, Probe::Id::kAfterAll, {}}));
          continue;
        case QueryOp::kGe:
          lower(index.LowerBound(Probe{c.value, Probe::Id::kBeforeAll, {}}));
          continue;
        case QueryOp::kLt:
          upper(index.LowerBound(Probe{c.value, Probe::Id::kBeforeAll, {}}));
          continue;
        case QueryOp::kLe:
          upper(index.LowerBound(Probe{c.value, Probe::Id::kAfterAll, {}}));
          continue;
        case QueryOp::kBetween:
          lower(index.LowerBound(Probe{c.values[0], Probe::Id::kBeforeAll, {}}));
          upper(index.LowerBound(Probe{c.values[1], Probe::Id::kAfterAll, {}}));
          continue;
        default:
          break;
      }
    } else if (c.field == TableSchema::kSysId &&
               (c.op == QueryOp::kEq || c.op == QueryOp::kGt || c.op == QueryOp::kGe ||
                c.op == QueryOp::kLt || c.op == QueryOp::kLe)) {
      id_conds.push_back(&c);
      continue;
    }
    exact = false;
  }
  if (!id_conds.empty()) {
    if (pinned == nullptr) {
      exact = false;
    } else {
      const std::string& t = *pinned;
      for (const BoundCondition* c : id_conds) {
        const size_t before = index.LowerBound(Probe{t, Probe::Id::kExact, c->value});
        const size_t after = index.UpperBoundExact(t, c->value);
        switch (c->op) {
          case QueryOp::kEq:
            lower(before);
            upper(after);
            break;
          case QueryOp::kGt:
            lower(after);
            break;
          case QueryOp::kGe:
            lower(before);
            break;
          case QueryOp::kLt:
            upper(before);
            break;
          case QueryOp::kLe:
            upper(after);
            break;
          default:
            break;
        }
      }
    }
  }
  if (r.hi < r.lo) r.hi = r.lo;
  return r;
}

// Sorted, disjoint ranges covering the union of the branches' ranges.
std::vector<RankRange> Union(std::vector<RankRange> ranges) {
  std::sort(ranges.begin(), ranges.end(),
            [](const RankRange& a, const RankRange& b) { return a.lo < b.lo; });
  std::vector<RankRange> out;
  for (const RankRange& r : ranges) {
    if (r.lo == r.hi) continue;
    if (!out.empty() && r.lo <= out.back().hi) {
      out.back().hi = std::max(out.back().hi, r.hi);
    } else {
      out.push_back(r);
    }
  }
  return out;
}

// The T of a `<ts_field>=T` condition standing alone in its group, or nullptr.
const std::string* PinnedTs(const BoundBranch& branch, size_t ts_field) {
  for (const BoundGroup& g : branch.all_of) {
    if (g.any_of.size() == 1 && g.any_of[0].field == ts_field && g.any_of[0].op == QueryOp::kEq) {
      return &g.any_of[0].value;
    }
  }
  return nullptr;
}

// True when the requested order is the index order, read forwards or backwards:
// ORDERBYsys_updated_on^ORDERBYsys_id (same direction; later terms cannot matter since
// sys_id is unique), or ORDERBYsys_id alone when every branch pins sys_updated_on to one T.
bool IndexOrder(const CompiledQuery& q, bool& descending,
                size_t ts_field = TableSchema::kSysUpdatedOn) {
  const auto& o = q.order_by();
  if (o.size() >= 2 && o[0].field == ts_field && o[1].field == TableSchema::kSysId &&
      o[0].descending == o[1].descending) {
    descending = o[0].descending;
    return true;
  }
  if (o.empty() || o[0].field != TableSchema::kSysId || q.matches_all()) return false;
  const std::string* t = nullptr;
  for (const BoundBranch& b : q.branches()) {
    const std::string* p = PinnedTs(b, ts_field);
    if (p == nullptr || (t != nullptr && *p != *t)) return false;
    t = p;
  }
  descending = o[0].descending;
  return true;
}

// The sys_ids a row must have to match `q`, when every ^NQ branch requires them (a
// `sys_idIN...` or `sys_id=` condition standing alone in its group): an instance finds those
// rows by its primary key. nullopt when some branch does not.
std::optional<std::set<std::string_view>> RequiredIds(const CompiledQuery& q) {
  if (q.matches_all()) return std::nullopt;
  std::set<std::string_view> ids;
  for (const BoundBranch& b : q.branches()) {
    bool found = false;
    for (const BoundGroup& g : b.all_of) {
      if (g.any_of.size() != 1 || g.any_of[0].field != TableSchema::kSysId) continue;
      const BoundCondition& c = g.any_of[0];
      if (c.op == QueryOp::kIn) {
        ids.insert(c.values.begin(), c.values.end());
      } else if (c.op == QueryOp::kEq) {
        ids.insert(c.value);
      } else {
        continue;
      }
      found = true;
      break;
    }
    if (!found) return std::nullopt;
  }
  return ids;
}

// True when the order is sys_id's (first term; later ones cannot matter, sys_id is unique):
// the table's sys_id index serves it.
bool IdOrder(const CompiledQuery& q, bool& descending) {
  const auto& o = q.order_by();
  if (o.empty() || o[0].field != TableSchema::kSysId) return false;
  descending = o[0].descending;
  return true;
}

// Walks the ranks of `ranges` in order (or reverse), calling visit(entry) until it says stop.
template <typename Visit>
void Walk(const KeysetIndex& index, const std::vector<RankRange>& ranges, bool descending,
          Visit&& visit) {
  if (!descending) {
    for (const RankRange& r : ranges) {
      auto cur = index.Seek(r.lo);
      for (size_t rank = r.lo; rank < r.hi; ++rank, index.Next(cur)) {
        if (!visit(index.At(cur))) return;
      }
    }
  } else {
    for (auto it = ranges.rbegin(); it != ranges.rend(); ++it) {
      auto cur = index.Seek(it->hi - 1);
      for (size_t rank = it->hi; rank > it->lo; --rank, index.Prev(cur)) {
        if (!visit(index.At(cur))) return;
      }
    }
  }
}

// The X when every ^NQ branch requires `tablename=X` (one X for all), else nullptr: the
// query then reads one part of sys_audit's by-tablename index.
const std::string* TablenamePart(const CompiledQuery& q, size_t tablename_field) {
  if (q.matches_all()) return nullptr;
  const std::string* x = nullptr;
  for (const BoundBranch& b : q.branches()) {
    const std::string* found = nullptr;
    for (const BoundGroup& g : b.all_of) {
      if (g.any_of.size() == 1 && g.any_of[0].field == tablename_field &&
          g.any_of[0].op == QueryOp::kEq) {
        found = &g.any_of[0].value;
        break;
      }
    }
    if (found == nullptr || (x != nullptr && *x != *found)) return nullptr;
    x = found;
  }
  return x;
}

// Serves a query whose order is the index order from `index` (the table's own, or one
// tablename's part of sys_audit): O(log n + page) when every branch is an exact key range.
void ServeFromIndex(const KeysetIndex& index, const CompiledQuery& q, const ListRequest& request,
                    bool descending, std::optional<size_t> ts_field,
                    std::optional<size_t> skip_field, ListPage& page) {
  const size_t offset = request.offset;
  const size_t limit = request.limit;
  page.used_index = true;
  std::vector<RankRange> ranges;
  bool exact = true;
  if (q.matches_all()) {
    ranges.push_back({0, index.size()});
  } else {
    for (const BoundBranch& b : q.branches()) {
      bool branch_exact = true;
      ranges.push_back(BranchRange(b, index, branch_exact, ts_field, skip_field));
      exact = exact && branch_exact;
    }
  }
  ranges = Union(std::move(ranges));
  if (exact) {
    // Every rank in the ranges matches: the total is free and the page starts at a rank.
    size_t total = 0;
    for (const RankRange& r : ranges) total += r.hi - r.lo;
    page.total = total;
    const size_t wanted = offset < total ? std::min(limit, total - offset) : 0;
    page.rows.reserve(wanted);
    size_t seen = 0;
    auto visit_range = [&](const RankRange& r) {
      const size_t n = r.hi - r.lo;
      if (seen + n <= offset) {
        seen += n;
        return;
      }
      const size_t start_in = offset > seen ? offset - seen : 0;
      const size_t count = std::min(n - start_in, wanted - page.rows.size());
      if (!descending) {
        auto cur = index.Seek(r.lo + start_in);
        for (size_t k = 0; k < count; ++k, index.Next(cur)) {
          page.rows.push_back(index.At(cur).row->shared_from_this());
        }
      } else {
        auto cur = index.Seek(r.hi - 1 - start_in);
        for (size_t k = 0; k < count; ++k, index.Prev(cur)) {
          page.rows.push_back(index.At(cur).row->shared_from_this());
        }
      }
      seen += n;
    };
    if (!descending) {
      for (const RankRange& r : ranges) {
        if (page.rows.size() >= wanted) break;
        visit_range(r);
      }
    } else {
      for (auto it = ranges.rbegin(); it != ranges.rend(); ++it) {
        if (page.rows.size() >= wanted) break;
        visit_range(*it);
      }
    }
  } else {
    size_t matched = 0;
    Walk(index, ranges, descending, [&](const IndexEntry& e) {
      if (!q.Matches(*e.row)) return true;
      if (matched >= offset && matched - offset < limit) {
        page.rows.push_back(e.row->shared_from_this());
      }
      ++matched;
      return request.count_total || matched < offset + limit;
    });
    page.total = request.count_total ? matched : 0;
  }
}

}  // namespace

Result<ListPage> TableStore::List(std::string_view table, const ListRequest& request) const {
  SNOWCAR_ASSIGN_OR_RETURN(Table * t, Find(table, options_.auto_create_tables));
  ListPage page;
  {
    std::shared_lock lock(t->mu);
    page.schema = t->schema;
    const CompiledQuery q(request.query, *page.schema);
    page.ignored = q.ignored();
    page.field_indices = page.schema->Project(request.fields);
    const size_t offset = request.offset;
    const size_t limit = request.limit;
    bool descending = false;
    const std::string* part = nullptr;
    if (t->tablename_field && IndexOrder(q, descending, TableSchema::kSysCreatedOn)) {
      part = TablenamePart(q, *t->tablename_field);
    }
    if (part != nullptr) {
      // sys_audit asked for one table's entries in (sys_created_on, sys_id) order.
      static const KeysetIndex kEmpty;
      auto it = t->by_tablename.find(*part);
      ServeFromIndex(it == t->by_tablename.end() ? kEmpty : it->second, q, request, descending,
                     TableSchema::kSysCreatedOn, t->tablename_field, page);
    } else if (IndexOrder(q, descending)) {
      ServeFromIndex(t->index, q, request, descending, TableSchema::kSysUpdatedOn, std::nullopt,
                     page);
    } else if (IdOrder(q, descending)) {
      ServeFromIndex(t->by_id, q, request, descending, std::nullopt, std::nullopt, page);
    } else {
      std::vector<const Row*> matches;
      // When every branch bounds sys_updated_on to a small part of the table, only rows in
      // those index ranges can match: take them, back in insertion order, instead of all rows.
      std::vector<RankRange> ranges;
      size_t covered = t->index.size();
      if (!q.matches_all()) {
        for (const BoundBranch& b : q.branches()) {
          bool exact = true;
          ranges.push_back(BranchRange(b, t->index, exact));
        }
        ranges = Union(std::move(ranges));
        covered = 0;
        for (const RankRange& r : ranges) covered += r.hi - r.lo;
      }
      if (auto ids = RequiredIds(q); ids.has_value()) {
        // Rows by sys_id, back in insertion order (what the scan below would visit).
        page.used_index = true;
        std::vector<std::pair<size_t, const Row*>> found;
        for (std::string_view id : *ids) {
          auto at = t->position.find(id);
          if (at == t->position.end()) continue;
          const Row* row = t->rows[at->second].get();
          if (row != nullptr && q.Matches(*row)) found.emplace_back(at->second, row);
        }
        std::sort(found.begin(), found.end());
        matches.reserve(found.size());
        for (const auto& f : found) matches.push_back(f.second);
      } else if (covered * 4 < t->index.size()) {
        page.used_index = true;
        std::vector<std::pair<size_t, const Row*>> found;  // (insertion position, row)
        Walk(t->index, ranges, false, [&](const IndexEntry& e) {
          if (q.Matches(*e.row)) found.emplace_back(t->position.find(e.id)->second, e.row);
          return true;
        });
        std::sort(found.begin(), found.end());
        matches.reserve(found.size());
        for (const auto& f : found) matches.push_back(f.second);
      } else {
        for (const RowPtr& r : t->rows) {
          if (r && q.Matches(*r)) matches.push_back(r.get());
        }
      }
      if (!q.order_by().empty()) {
        std::stable_sort(matches.begin(), matches.end(),
                         [&](const Row* a, const Row* b) { return q.OrderLess(*a, *b); });
      }
      page.total = matches.size();
      if (offset < matches.size()) {
        const size_t end = offset + std::min(limit, matches.size() - offset);
        page.rows.reserve(end - offset);
        for (size_t i = offset; i < end; ++i) page.rows.push_back(matches[i]->shared_from_this());
      }
    }
  }
  if (request.acl) {
    const size_t before = page.rows.size();
    std::erase_if(page.rows, [&](const RowPtr& r) { return !request.acl(*r); });
    page.acl_removed = before - page.rows.size();
  }
  return page;
}

}  // namespace snowcar::emulator
