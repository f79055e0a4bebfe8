// SPDX-License-Identifier: Apache-2.0
// ServiceNow encoded queries (sysparm_query): parsing, and evaluation against rows.
//
// Grammar, as the instance reads it:
//   query   := part ( '^' part )*          '^^' inside a value is a literal '^'
//   part    := condition | 'OR' condition | 'NQ' | 'ORDERBY' field | 'ORDERBYDESC' field | 'EQ'
//   condition := field operator value       field = [a-z0-9_.]+
// `^OR` binds tighter than `^`: a^b^ORc means a AND (b OR c). `^NQ` starts a new query whose
// matches are OR-ed with the previous ones. ORDERBY terms may appear anywhere and order the
// whole result, in the order they appear.
//
// Like a real instance, parts that make no sense are ignored rather than rejected: the query
// then matches more rows than the client meant. Unlike an instance, every ignored part is
// reported (EncodedQuery::ignored) so the emulator can journal it and tests can see it.
//
// Comparison rules (the same for filtering and for ORDERBY):
//  - integer fields (and integer-valued choices such as priority): when both sides look like
//    numbers they compare as numbers; empty sorts first, then numbers, then other text;
//  - date-times compare as their "YYYY-MM-DD HH:MM:SS" text, which is chronological;
//  - everything else compares as bytes (case-sensitive).
//  - <, <=, >, >= and BETWEEN never match an empty value (like SQL NULL).
//  - LIKE / NOT LIKE / STARTSWITH / ENDSWITH ignore ASCII case, as the instance's database does.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "snowcar/testbed/emulator/table_store_schema.h"

namespace snowcar::emulator {

enum class QueryOp {
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kIn,     // value is a comma list
  kNotIn,  // value is a comma list
  kStartsWith,
  kEndsWith,
  kLike,        // contains
  kNotLike,     // does not contain
  kIsEmpty,     // no value
  kIsNotEmpty,  // no value
  kBetween,     // "low@high", inclusive
};

// The operator as written in a query ("NOT IN", ">=", ...).
std::string_view QueryOpText(QueryOp op);

struct QueryCondition {
  std::string field;
  QueryOp op = QueryOp::kEq;
  std::string value;                // the text after the operator, unescaped
  std::vector<std::string> values;  // IN / NOT IN: the items; BETWEEN: {low, high}
};

// Conditions joined by ^OR: the group holds when any condition holds.
struct QueryGroup {
  std::vector<QueryCondition> any_of;
};

// One ^NQ-separated query: holds when every group holds; no groups = every row.
struct QueryBranch {
  std::vector<QueryGroup> all_of;
};

struct OrderTerm {
  std::string field;
  bool descending = false;
};

// A part of the query text that was ignored, and why ("unknown operator", "unknown field").
struct IgnoredPart {
  std::string text;
  std::string reason;
};

struct EncodedQuery {
  // OR-ed together; no branches = every row. A branch whose conditions were all ignored is
  // kept (empty), so it matches every row, as on an instance.
  std::vector<QueryBranch> branches;
  std::vector<OrderTerm> order_by;
  std::vector<IgnoredPart> ignored;
};

// Parses `text` (already URL-decoded). Never fails: bad parts land in `ignored`.
EncodedQuery ParseEncodedQuery(std::string_view text);

// A condition bound to a schema: field position, kind and pre-parsed operands.
struct BoundCondition {
  size_t field = 0;
  bool numeric = false;  // compare by CompareValues' numeric rule
  QueryOp op = QueryOp::kEq;
  std::string value;
  std::vector<std::string> values;  // IN / NOT IN items, BETWEEN {low, high}
  std::string folded;               // lower-cased value for LIKE / STARTSWITH / ENDSWITH
};

struct BoundGroup {
  std::vector<BoundCondition> any_of;
};

struct BoundBranch {
  std::vector<BoundGroup> all_of;
};

struct BoundOrder {
  size_t field = 0;
  bool numeric = false;
  bool descending = false;
};

// An EncodedQuery checked against a table schema. Conditions and ORDERBY terms naming
// fields the table does not have are dropped and reported, as an instance drops them.
class CompiledQuery {
 public:
  CompiledQuery(const EncodedQuery& query, const TableSchema& schema);

  bool Matches(const Row& row) const;
  // Strict "a sorts before b" by the ORDERBY terms; false on a tie (callers keep the
  // insertion order of tied rows by sorting stably).
  bool OrderLess(const Row& a, const Row& b) const;

  bool matches_all() const { return matches_all_; }
  const std::vector<BoundBranch>& branches() const { return branches_; }
  const std::vector<BoundOrder>& order_by() const { return order_; }
  // The parser's ignored parts plus those dropped here.
  const std::vector<IgnoredPart>& ignored() const { return ignored_; }

 private:
  std::vector<BoundBranch> branches_;
  std::vector<BoundOrder> order_;
  std::vector<IgnoredPart> ignored_;
  bool matches_all_ = true;
};

// Three-way comparison of two field values by the rules above (numeric = the field compares
// as a number). Empty values sort first.
int CompareValues(std::string_view a, std::string_view b, bool numeric);

// Convenience for tests: parse, compile against `schema` and test one row.
bool QueryMatches(std::string_view query, const TableSchema& schema, const Row& row);

}  // namespace snowcar::emulator
