// SPDX-License-Identifier: Apache-2.0
// Binding an EncodedQuery to a schema, and evaluating it against rows.
#include <algorithm>
#include <charconv>

#include "snowcar/testbed/emulator/query.h"

namespace snowcar::emulator {
namespace {

char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

std::string Fold(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = Lower(c);
  return out;
}

bool EqualFolded(std::string_view text, std::string_view folded) {
  if (text.size() != folded.size()) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    if (Lower(text[i]) != folded[i]) return false;
  }
  return true;
}

bool ContainsFolded(std::string_view text, std::string_view folded) {
  if (folded.empty()) return true;
  if (folded.size() > text.size()) return false;
  const size_t last = text.size() - folded.size();
  for (size_t i = 0; i <= last; ++i) {
    if (Lower(text[i]) == folded[0] && EqualFolded(text.substr(i, folded.size()), folded)) {
      return true;
    }
  }
  return false;
}

// A number as an instance's integer column reads it: [-]digits[.digits].
bool ParseNumber(std::string_view s, double& out) {
  if (s.empty()) return false;
  size_t i = s[0] == '-' ? 1 : 0;
  size_t digits = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++digits;
  if (digits == 0) return false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    size_t frac = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++frac;
    if (frac == 0) return false;
  }
  if (i != s.size()) return false;
  auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

int Sign(int c) { return c < 0 ? -1 : (c > 0 ? 1 : 0); }

bool CondMatches(const BoundCondition& c, std::string_view v) {
  switch (c.op) {
    case QueryOp::kEq:
      return CompareValues(v, c.value, c.numeric) == 0;
    case QueryOp::kNe:
      return CompareValues(v, c.value, c.numeric) != 0;
    case QueryOp::kLt:
      return !v.empty() && CompareValues(v, c.value, c.numeric) < 0;
    case QueryOp::kLe:
      return !v.empty() && CompareValues(v, c.value, c.numeric) <= 0;
    case QueryOp::kGt:
      return !v.empty() && CompareValues(v, c.value, c.numeric) > 0;
    case QueryOp::kGe:
      return !v.empty() && CompareValues(v, c.value, c.numeric) >= 0;
    case QueryOp::kIn:
    case QueryOp::kNotIn: {
      bool in = false;
      for (const std::string& item : c.values) {
        if (CompareValues(v, item, c.numeric) == 0) {
          in = true;
          break;
        }
      }
      return c.op == QueryOp::kIn ? in : !in;
    }
    case QueryOp::kStartsWith:
      return v.size() >= c.folded.size() && EqualFolded(v.substr(0, c.folded.size()), c.folded);
    case QueryOp::kEndsWith:
      return v.size() >= c.folded.size() &&
             EqualFolded(v.substr(v.size() - c.folded.size()), c.folded);
    case QueryOp::kLike:
      return ContainsFolded(v, c.folded);
    case QueryOp::kNotLike:
      return !ContainsFolded(v, c.folded);
    case QueryOp::kIsEmpty:
      return v.empty();
    case QueryOp::kIsNotEmpty:
      return !v.empty();
    case QueryOp::kBetween:
      return !v.empty() && CompareValues(v, c.values[0], c.numeric) >= 0 &&
             CompareValues(v, c.values[1], c.numeric) <= 0;
  }
  return false;
}

}  // namespace

int CompareValues(std::string_view a, std::string_view b, bool numeric) {
  if (numeric) {
    // Empty first, then numbers by value, then other text by bytes.
    double na = 0, nb = 0;
    const int ca = a.empty() ? 0 : (ParseNumber(a, na) ? 1 : 2);
    const int cb = b.empty() ? 0 : (ParseNumber(b, nb) ? 1 : 2);
    if (ca != cb) return ca < cb ? -1 : 1;
    if (ca == 1) return na < nb ? -1 : (na > nb ? 1 : 0);
  }
  return Sign(a.compare(b));
}

CompiledQuery::CompiledQuery(const EncodedQuery& query, const TableSchema& schema)
    : ignored_(query.ignored) {
  for (const QueryBranch& branch : query.branches) {
    BoundBranch bb;
    for (const QueryGroup& group : branch.all_of) {
      BoundGroup bg;
      for (const QueryCondition& cond : group.any_of) {
        auto index = schema.IndexOf(cond.field);
        if (!index) {
          std::string text = cond.field;
          text += QueryOpText(cond.op);
          text += cond.value;
          ignored_.push_back({std::move(text), "unknown field '" + cond.field + "'"});
          continue;
        }
        BoundCondition bc;
        bc.field = *index;
        bc.numeric = schema.field(*index).CompareAsNumber();
        bc.op = cond.op;
        bc.value = cond.value;
        bc.values = cond.values;
        bc.folded = Fold(cond.value);
        bg.any_of.push_back(std::move(bc));
      }
      if (!bg.any_of.empty()) bb.all_of.push_back(std::move(bg));
    }
    branches_.push_back(std::move(bb));
  }
  matches_all_ =
      branches_.empty() || std::any_of(branches_.begin(), branches_.end(),
                                       [](const BoundBranch& b) { return b.all_of.empty(); });
  for (const OrderTerm& term : query.order_by) {
    auto index = schema.IndexOf(term.field);
    if (!index) {
      ignored_.push_back({(term.descending ? "ORDERBYDESC" : "ORDERBY") + term.field,
                          "unknown field '" + term.field + "'"});
      continue;
    }
    order_.push_back({*index, schema.field(*index).CompareAsNumber(), term.descending});
  }
}

bool CompiledQuery::Matches(const Row& row) const {
  if (matches_all_) return true;
  for (const BoundBranch& branch : branches_) {
    bool all = true;
    for (const BoundGroup& group : branch.all_of) {
      bool any = false;
      for (const BoundCondition& c : group.any_of) {
        if (CondMatches(c, row.Get(c.field))) {
          any = true;
          break;
        }
      }
      if (!any) {
        all = false;
        break;
      }
    }
    if (all) return true;
  }
  return false;
}

bool CompiledQuery::OrderLess(const Row& a, const Row& b) const {
  for (const BoundOrder& o : order_) {
    int c = CompareValues(a.Get(o.field), b.Get(o.field), o.numeric);
    if (c != 0) return o.descending ? c > 0 : c < 0;
  }
  return false;
}

bool QueryMatches(std::string_view query, const TableSchema& schema, const Row& row) {
  return CompiledQuery(ParseEncodedQuery(query), schema).Matches(row);
}

}  // namespace snowcar::emulator
