// SPDX-License-Identifier: Apache-2.0
// Query semantics against an independent, deliberately simple reference evaluator, on
// generated data, for every operator, ^OR precedence, ^NQ and ORDERBY chains.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <random>
#include <set>

#include "snowcar/testbed/emulator/data_gen.h"
#include "snowcar/testbed/emulator/query.h"
#include "snowcar/testbed/emulator/table_store.h"
#include "test_clock.h"

namespace snowcar::emulator {
namespace {

using RefRow = std::map<std::string, std::string>;

// ---- reference evaluator: written from the rules in query.h, sharing no code -------------
const std::set<std::string> kNumericFields = {
    "sys_mod_count",      "priority",     "impact",       "urgency",  "state",
    "reassignment_count", "reopen_count", "calendar_stc", "severity", "escalation"};

struct RefCond {
  std::string field, op, value;
};
using RefGroup = std::vector<RefCond>;    // OR
using RefBranch = std::vector<RefGroup>;  // AND
struct RefQuery {
  std::vector<RefBranch> branches;                  // OR
  std::vector<std::pair<std::string, bool>> order;  // field, descending
};

std::string LowerCopy(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

int RefCompare(const std::string& a, const std::string& b, bool numeric) {
  if (numeric) {
    // A number is: optional '-', digits, optionally '.' and more digits.
    auto is_number = [](const std::string& s) {
      size_t i = (!s.empty() && s[0] == '-') ? 1 : 0;
      const size_t int_start = i;
      while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
      if (i == int_start) return false;
      if (i == s.size()) return true;
      if (s[i] != '.') return false;
      const size_t frac_start = ++i;
      while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
      return i > frac_start && i == s.size();
    };
    auto rank = [&](const std::string& s) { return s.empty() ? 0 : (is_number(s) ? 1 : 2); };
    int ra = rank(a), rb = rank(b);
    if (ra != rb) return ra < rb ? -1 : 1;
    if (ra == 1) {
      double x = std::stod(a), y = std::stod(b);
      return x < y ? -1 : (x > y ? 1 : 0);
    }
  }
  return a < b ? -1 : (a == b ? 0 : 1);
}

std::vector<std::string> SplitOn(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

bool RefCondHolds(const RefCond& c, const RefRow& row) {
  auto it = row.find(c.field);
  const std::string v = it == row.end() ? "" : it->second;
  const bool num = kNumericFields.count(c.field) > 0;
  const std::string lv = LowerCopy(v), lc = LowerCopy(c.value);
  if (c.op == "=") return RefCompare(v, c.value, num) == 0;
  if (c.op == "!=") return RefCompare(v, c.value, num) != 0;
  if (c.op == "<") return !v.empty() && RefCompare(v, c.value, num) < 0;
  if (c.op == "<=") return !v.empty() && RefCompare(v, c.value, num) <= 0;
  if (c.op == ">") return !v.empty() && RefCompare(v, c.value, num) > 0;
  if (c.op == ">=") return !v.empty() && RefCompare(v, c.value, num) >= 0;
  if (c.op == "IN" || c.op == "NOT IN") {
    bool found = false;
    for (const auto& item : SplitOn(c.value, ',')) found = found || RefCompare(v, item, num) == 0;
    return c.op == "IN" ? found : !found;
  }
  if (c.op == "STARTSWITH") return lv.compare(0, lc.size(), lc) == 0 && lv.size() >= lc.size();
  if (c.op == "ENDSWITH") {
    return lv.size() >= lc.size() && lv.compare(lv.size() - lc.size(), lc.size(), lc) == 0;
  }
  if (c.op == "LIKE") return lv.find(lc) != std::string::npos;
  if (c.op == "NOT LIKE") return lv.find(lc) == std::string::npos;
  if (c.op == "ISEMPTY") return v.empty();
  if (c.op == "ISNOTEMPTY") return !v.empty();
  if (c.op == "BETWEEN") {
    auto parts = SplitOn(c.value, '@');
    return !v.empty() && RefCompare(v, parts[0], num) >= 0 && RefCompare(v, parts[1], num) <= 0;
  }
  ADD_FAILURE() << "reference does not know " << c.op;
  return false;
}

bool RefMatches(const RefQuery& q, const RefRow& row) {
  if (q.branches.empty()) return true;
  for (const RefBranch& b : q.branches) {
    bool all = true;
    for (const RefGroup& g : b) {
      bool any = false;
      for (const RefCond& c : g) any = any || RefCondHolds(c, row);
      all = all && any;
    }
    if (all) return true;
  }
  return false;
}

std::string ToText(const RefQuery& q) {
  std::string text;
  for (size_t b = 0; b < q.branches.size(); ++b) {
    if (b > 0) text += "^NQ";
    for (size_t g = 0; g < q.branches[b].size(); ++g) {
      if (g > 0) text += "^";
      for (size_t c = 0; c < q.branches[b][g].size(); ++c) {
        const RefCond& cond = q.branches[b][g][c];
        if (c > 0) text += "^OR";
        text += cond.field + cond.op + cond.value;
      }
    }
  }
  for (const auto& [field, desc] : q.order) text += (desc ? "^ORDERBYDESC" : "^ORDERBY") + field;
  return text;
}

// ---- the fixture ------------------------------------------------------------------------
class QuerySemantics : public ::testing::Test {
 protected:
  void SetUp() override {
    GenOptions o;
    o.seed = 11;
    o.rows = 1500;
    o.span_seconds = int64_t{3} * 86400;
    ASSERT_TRUE(Populate(store_, "incident", o).ok());
    // Odd values for the numeric rule: text, negatives, decimals, leading zeros, empty.
    for (const char* stc : {"abc", "-5", "1.5", "007", "", "10", "9"}) {
      ASSERT_TRUE(
          store_.Insert("incident", {{"calendar_stc", stc}, {"short_description", "Odd"}}).ok());
    }
    auto snap = store_.Snapshot("incident");
    ASSERT_TRUE(snap.ok());
    auto schema = store_.Schema("incident");
    for (const RowPtr& r : *snap) {
      RefRow row;
      for (size_t i = 0; i < schema->size(); ++i)
        row[schema->field(i).name] = std::string(r->Get(i));
      rows_.push_back(std::move(row));
    }
  }

  std::vector<std::string> ListIds(const std::string& text, size_t* total = nullptr) {
    ListRequest req;
    req.query = ParseEncodedQuery(text);
    req.limit = 1000000;
    auto page = store_.List("incident", req);
    EXPECT_TRUE(page.ok()) << page.status().ToString();
    EXPECT_TRUE(page->ignored.empty()) << text << ": " << page->ignored[0].text;
    std::vector<std::string> ids;
    for (const RowPtr& r : page->rows) ids.emplace_back(r->sys_id());
    if (total != nullptr) *total = page->total;
    return ids;
  }

  std::vector<std::string> RefIds(const RefQuery& q) {
    std::vector<const RefRow*> m;
    for (const RefRow& r : rows_) {
      if (RefMatches(q, r)) m.push_back(&r);
    }
    std::stable_sort(m.begin(), m.end(), [&](const RefRow* a, const RefRow* b) {
      for (const auto& [field, desc] : q.order) {
        int c = RefCompare(a->at(field), b->at(field), kNumericFields.count(field) > 0);
        if (c != 0) return desc ? c > 0 : c < 0;
      }
      return false;
    });
    std::vector<std::string> ids;
    ids.reserve(m.size());
    for (const RefRow* r : m) ids.push_back(r->at("sys_id"));
    return ids;
  }

  testing::TestClock clock_{testing::kBaseTime};
  TableStore store_{clock_};
  std::vector<RefRow> rows_;
};

TEST_F(QuerySemantics, HandPickedRules) {
  auto n = [&](const std::string& q) { return ListIds(q).size(); };
  // Numbers compare as numbers on integer fields: "10" > "9"; text sorts after numbers.
  RefQuery gt9;
  gt9.branches = {RefBranch{RefGroup{RefCond{"calendar_stc", ">", "9"}}}};
  EXPECT_EQ(RefIds(gt9).size(), n("calendar_stc>9"));
  EXPECT_GT(n("calendar_stc>9^short_description=Odd"), 0u);
  EXPECT_EQ(n("calendar_stc=7^short_description=Odd"), 1u);         // "007"
  EXPECT_EQ(n("calendar_stc>99999999^short_description=Odd"), 1u);  // "abc"
  // LIKE ignores case; = does not.
  EXPECT_EQ(n("short_descriptionLIKEodd"), 7u);
  EXPECT_EQ(n("short_description=odd"), 0u);
  // Ordering comparisons never match empty values.
  EXPECT_EQ(n("calendar_stc<0^short_description=Odd"), 1u);  // "-5" only, not ""
  EXPECT_EQ(n("calendar_stcISEMPTY^short_description=Odd"), 1u);
}

TEST_F(QuerySemantics, RandomQueriesMatchTheReference) {
  const std::vector<std::string> fields = {
      "sys_updated_on", "sys_id",    "number",        "priority",     "state",  "short_description",
      "category",       "caller_id", "sys_mod_count", "calendar_stc", "active", "resolved_at"};
  const std::vector<std::string> ops = {
      "=",    "!=",       "<",          "<=",       ">",       ">=",         "IN",     "NOT IN",
      "LIKE", "NOT LIKE", "STARTSWITH", "ENDSWITH", "ISEMPTY", "ISNOTEMPTY", "BETWEEN"};
  std::mt19937 rng(1234);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  auto sample = [&](const std::string& field) {
    std::string v = rows_[pick(rows_.size())].at(field);
    v.erase(
        std::remove_if(v.begin(), v.end(), [](char c) { return c == ',' || c == '@' || c == '^'; }),
        v.end());
    if (pick(4) == 0 && v.size() > 3) v = v.substr(pick(2), 3);  // a fragment
    if (pick(10) == 0) v = std::to_string(pick(20));
    return v;
  };
  int nonempty = 0;
  for (int iter = 0; iter < 300; ++iter) {
    RefQuery q;
    const size_t branches = 1 + pick(pick(3) == 0 ? 3 : 1);
    for (size_t b = 0; b < branches; ++b) {
      RefBranch branch;
      const size_t groups = 1 + pick(3);
      for (size_t g = 0; g < groups; ++g) {
        RefGroup group;
        const size_t conds = 1 + pick(pick(2) == 0 ? 3 : 1);
        for (size_t c = 0; c < conds; ++c) {
          RefCond cond{fields[pick(fields.size())], ops[pick(ops.size())], ""};
          if (cond.op == "IN" || cond.op == "NOT IN") {
            cond.value = sample(cond.field);
            for (size_t k = pick(3); k > 0; --k) cond.value += "," + sample(cond.field);
          } else if (cond.op == "BETWEEN") {
            std::string a = sample(cond.field), z = sample(cond.field);
            if (a > z && pick(3) != 0) std::swap(a, z);
            cond.value.assign(a).append("@").append(z);
          } else if (cond.op != "ISEMPTY" && cond.op != "ISNOTEMPTY") {
            cond.value = sample(cond.field);
          }
          group.push_back(cond);
        }
        branch.push_back(group);
      }
      q.branches.push_back(branch);
    }
    for (size_t k = pick(3); k > 0; --k)
      q.order.emplace_back(fields[pick(fields.size())], pick(2) == 0);
    const std::string text = ToText(q);
    SCOPED_TRACE(text);
    size_t total = 0;
    std::vector<std::string> expected = RefIds(q);
    std::vector<std::string> got = ListIds(text, &total);
    ASSERT_EQ(total, expected.size());
    // Without ORDERBY both keep insertion order; with it, ties keep insertion order.
    ASSERT_EQ(got, expected);
    if (!expected.empty()) ++nonempty;
  }
  EXPECT_GT(nonempty, 100);  // the generator hits rows, not just empty results
}

}  // namespace
}  // namespace snowcar::emulator
