// SPDX-License-Identifier: Apache-2.0
// Encoded query text → EncodedQuery. Lenient like an instance, but every ignored part is
// reported with a reason.
#include <array>
#include <utility>

#include "snowcar/testbed/emulator/query.h"

namespace snowcar::emulator {
namespace {

struct OpSpelling {
  std::string_view text;
  QueryOp op;
};

// Longest spellings first, so "<=" wins over "<" and "NOT IN" is not read as something else.
constexpr std::array<OpSpelling, 15> kOps = {{
    {"ISNOTEMPTY", QueryOp::kIsNotEmpty},
    {"STARTSWITH", QueryOp::kStartsWith},
    {"NOT LIKE", QueryOp::kNotLike},
    {"ENDSWITH", QueryOp::kEndsWith},
    {"ISEMPTY", QueryOp::kIsEmpty},
    {"BETWEEN", QueryOp::kBetween},
    {"NOT IN", QueryOp::kNotIn},
    {"LIKE", QueryOp::kLike},
    {"IN", QueryOp::kIn},
    {"!=", QueryOp::kNe},
    {"<=", QueryOp::kLe},
    {">=", QueryOp::kGe},
    {"=", QueryOp::kEq},
    {"<", QueryOp::kLt},
    {">", QueryOp::kGt},
}};

bool IsFieldChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}

bool IsFieldName(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!IsFieldChar(c)) return false;
  }
  return true;
}

// Splits on '^'; "^^" is a literal caret inside a part.
std::vector<std::string> SplitParts(std::string_view text) {
  std::vector<std::string> parts;
  std::string cur;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '^') {
      cur.push_back(text[i]);
    } else if (i + 1 < text.size() && text[i + 1] == '^') {
      cur.push_back('^');
      ++i;
    } else {
      parts.push_back(std::move(cur));
      cur.clear();
    }
  }
  parts.push_back(std::move(cur));
  return parts;
}

std::vector<std::string> SplitCommas(std::string_view s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t comma = s.find(',', start);
    out.emplace_back(s.substr(start, comma == std::string_view::npos ? comma : comma - start));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

// Parses "field OP value"; on failure returns false with `why` set.
bool ParseCondition(std::string_view text, QueryCondition& out, std::string& why) {
  size_t pos = 0;
  while (pos < text.size() && IsFieldChar(text[pos])) ++pos;
  if (pos == 0) {
    why = "no field name";
    return false;
  }
  out.field = std::string(text.substr(0, pos));
  std::string_view rest = text.substr(pos);
  if (rest.empty()) {
    why = "no operator after field '" + out.field + "'";
    return false;
  }
  const OpSpelling* found = nullptr;
  for (const OpSpelling& s : kOps) {
    if (rest.substr(0, s.text.size()) == s.text) {
      found = &s;
      break;
    }
  }
  if (found == nullptr) {
    why = "unknown operator at '" + std::string(rest.substr(0, 16)) + "'";
    return false;
  }
  out.op = found->op;
  out.value = std::string(rest.substr(found->text.size()));
  switch (out.op) {
    case QueryOp::kIsEmpty:
    case QueryOp::kIsNotEmpty:
      if (!out.value.empty()) {
        why = "unexpected text after " + std::string(found->text);
        return false;
      }
      break;
    case QueryOp::kIn:
    case QueryOp::kNotIn:
      out.values = SplitCommas(out.value);
      break;
    case QueryOp::kBetween: {
      size_t at = out.value.find('@');
      if (at == std::string::npos) {
        why = "BETWEEN needs low@high";
        return false;
      }
      out.values = {out.value.substr(0, at), out.value.substr(at + 1)};
      break;
    }
    default:
      break;
  }
  return true;
}

class Parser {
 public:
  EncodedQuery Run(std::string_view text) {
    if (text.empty()) return std::move(q_);
    for (std::string& part : SplitParts(text)) Part(part);
    CloseBranch(false);
    return std::move(q_);
  }

 private:
  void Ignore(std::string_view text, std::string reason) {
    q_.ignored.push_back({std::string(text), std::move(reason)});
  }

  void CloseBranch(bool at_nq) {
    if (branch_parts_ == 0 && (at_nq || seen_nq_)) {
      Ignore("NQ", at_nq ? "empty query before ^NQ" : "empty query after ^NQ");
    } else if (branch_parts_ > 0) {
      std::erase_if(branch_.all_of, [](const QueryGroup& g) { return g.any_of.empty(); });
      q_.branches.push_back(std::move(branch_));
    }
    branch_ = {};
    branch_parts_ = 0;
  }

  void Part(std::string_view part) {
    if (part.empty()) return;  // "a=1^^" style leftovers and a trailing '^' mean nothing
    if (part == "EQ") return;  // the UI's end-of-query marker
    if (part.substr(0, 2) == "NQ") {
      CloseBranch(true);
      seen_nq_ = true;
      Part(part.substr(2));
      return;
    }
    if (part.substr(0, 11) == "ORDERBYDESC") return Order(part, part.substr(11), true);
    if (part.substr(0, 7) == "ORDERBY") return Order(part, part.substr(7), false);
    if (part.substr(0, 7) == "GROUPBY") return Ignore(part, "GROUPBY does not apply to a list");
    bool is_or = part.size() > 2 && part.substr(0, 2) == "OR" && IsFieldChar(part[2]);
    std::string_view cond_text = is_or ? part.substr(2) : part;
    ++branch_parts_;
    QueryCondition cond;
    std::string why;
    const bool parsed = ParseCondition(cond_text, cond, why);
    if (!parsed) {
      Ignore(part, why);
      // An ignored condition still opens its ^OR group, so a following ^OR term does not
      // attach to an unrelated earlier condition; empty groups are dropped at the end.
      if (!is_or) branch_.all_of.emplace_back();
      return;
    }
    if (is_or && !branch_.all_of.empty()) {
      branch_.all_of.back().any_of.push_back(std::move(cond));
    } else {
      branch_.all_of.push_back(QueryGroup{{std::move(cond)}});
    }
  }

  void Order(std::string_view part, std::string_view field, bool desc) {
    if (!IsFieldName(field)) return Ignore(part, "invalid field name in ORDERBY");
    q_.order_by.push_back({std::string(field), desc});
  }

  EncodedQuery q_;
  QueryBranch branch_;
  size_t branch_parts_ = 0;
  bool seen_nq_ = false;
};

}  // namespace

std::string_view QueryOpText(QueryOp op) {
  for (const OpSpelling& s : kOps) {
    if (s.op == op) return s.text;
  }
  return "?";
}

EncodedQuery ParseEncodedQuery(std::string_view text) { return Parser().Run(text); }

}  // namespace snowcar::emulator
