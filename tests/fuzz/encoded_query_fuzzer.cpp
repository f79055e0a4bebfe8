// SPDX-License-Identifier: Apache-2.0
// The emulator's encoded-query parser (ParseEncodedQuery) and its evaluation. Input: a query
// as it arrives in sysparm_query (already URL-decoded).
//
// Properties: every kept condition names a valid field and its operands agree with its value
// (IN lists split at commas, BETWEEN at the first '@'); writing the parsed query back as text
// (values with '^' doubled) and parsing that gives the same query (round trip); compiled
// against the incident schema, ORDERBY is a strict weak ordering on rows built from the
// query's own values (std::stable_sort relies on it), and CompareValues is antisymmetric.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "snowcar/testbed/emulator/query.h"

namespace {

namespace emu = snowcar::emulator;

bool IsFieldName(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.')) return false;
  }
  return true;
}

std::string Escape(std::string_view value) {
  std::string out;
  for (char c : value) {
    out += c;
    if (c == '^') out += '^';
  }
  return out;
}

std::string Condition(const emu::QueryCondition& c) {
  return c.field + std::string(emu::QueryOpText(c.op)) + Escape(c.value);
}

// The parsed query written back as an encoded query.
std::string Write(const emu::EncodedQuery& q) {
  std::string out;
  for (size_t b = 0; b < q.branches.size(); ++b) {
    if (b > 0) out += "^NQ";
    std::string branch;
    for (const auto& group : q.branches[b].all_of) {
      for (size_t i = 0; i < group.any_of.size(); ++i) {
        if (!branch.empty()) branch += '^';
        if (i > 0) branch += "OR";
        branch += Condition(group.any_of[i]);
      }
    }
    // A branch whose parts were all ignored matches every row; an ignored part keeps it.
    out += branch.empty() ? "zz" : branch;
  }
  for (const auto& o : q.order_by) {
    out += (o.descending ? "^ORDERBYDESC" : "^ORDERBY") + o.field;
  }
  return out;
}

bool SameConditions(const emu::EncodedQuery& a, const emu::EncodedQuery& b) {
  if (a.branches.size() != b.branches.size() || a.order_by.size() != b.order_by.size()) {
    return false;
  }
  for (size_t i = 0; i < a.order_by.size(); ++i) {
    if (a.order_by[i].field != b.order_by[i].field ||
        a.order_by[i].descending != b.order_by[i].descending) {
      return false;
    }
  }
  for (size_t i = 0; i < a.branches.size(); ++i) {
    const auto& x = a.branches[i].all_of;
    const auto& y = b.branches[i].all_of;
    if (x.size() != y.size()) return false;
    for (size_t g = 0; g < x.size(); ++g) {
      if (x[g].any_of.size() != y[g].any_of.size()) return false;
      for (size_t c = 0; c < x[g].any_of.size(); ++c) {
        const auto& p = x[g].any_of[c];
        const auto& q = y[g].any_of[c];
        if (p.field != q.field || p.op != q.op || p.value != q.value || p.values != q.values) {
          return false;
        }
      }
    }
  }
  return true;
}

int Sign(int v) { return (v > 0) - (v < 0); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const emu::EncodedQuery q = emu::ParseEncodedQuery(text);

  std::vector<std::string> values;
  for (const auto& branch : q.branches) {
    for (const auto& group : branch.all_of) {
      FUZZ_CHECK(!group.any_of.empty(), "no empty ^OR groups are kept");
      for (const auto& c : group.any_of) {
        FUZZ_CHECK(IsFieldName(c.field), "a condition names a valid field");
        values.push_back(c.value);
        if (c.op == emu::QueryOp::kBetween) {
          FUZZ_CHECK(c.values.size() == 2 && c.values[0] + "@" + c.values[1] == c.value,
                     "BETWEEN operands are low@high");
        }
        if (c.op == emu::QueryOp::kIsEmpty || c.op == emu::QueryOp::kIsNotEmpty) {
          FUZZ_CHECK(c.value.empty(), "ISEMPTY has no operand");
        }
        if (c.op == emu::QueryOp::kIn || c.op == emu::QueryOp::kNotIn) {
          std::string joined;
          for (size_t i = 0; i < c.values.size(); ++i) joined += (i ? "," : "") + c.values[i];
          FUZZ_CHECK(joined == c.value, "IN operands are the comma list");
        }
      }
    }
  }
  for (const auto& o : q.order_by) FUZZ_CHECK(IsFieldName(o.field), "ORDERBY names a field");

  const std::string written = Write(q);
  const emu::EncodedQuery again = emu::ParseEncodedQuery(written);
  if (!SameConditions(q, again)) std::fprintf(stderr, "written back: %s\n", written.c_str());
  FUZZ_CHECK(SameConditions(q, again), "parse(write(parse(x))) == parse(x)");

  // Evaluation: rows made of the query's own values, so comparisons hit the edges.
  auto schema = emu::KnownTableSchema("incident");
  if (!schema) return 0;
  const emu::CompiledQuery compiled(q, *schema);
  if (values.size() > 6) values.resize(6);
  values.push_back("");
  values.push_back("10");
  std::vector<std::shared_ptr<const emu::Row>> rows;
  for (size_t r = 0; r < values.size(); ++r) {
    std::vector<std::string> cells(schema->size());
    for (size_t f = 0; f < cells.size(); ++f) cells[f] = values[(r + f) % values.size()];
    rows.push_back(emu::Row::Make(cells));
  }
  for (const auto& row : rows) {
    (void)compiled.Matches(*row);
    FUZZ_CHECK(!compiled.OrderLess(*row, *row), "ORDERBY is irreflexive");
  }
  for (const auto& a : rows) {
    for (const auto& b : rows) {
      if (compiled.OrderLess(*a, *b)) {
        FUZZ_CHECK(!compiled.OrderLess(*b, *a), "ORDERBY is asymmetric");
        for (const auto& c : rows) {
          if (compiled.OrderLess(*b, *c)) {
            FUZZ_CHECK(compiled.OrderLess(*a, *c), "ORDERBY is transitive");
          }
        }
      }
    }
  }
  for (bool numeric : {false, true}) {
    for (const auto& a : values) {
      FUZZ_CHECK(emu::CompareValues(a, a, numeric) == 0, "a value equals itself");
      for (const auto& b : values) {
        FUZZ_CHECK(
            Sign(emu::CompareValues(a, b, numeric)) == -Sign(emu::CompareValues(b, a, numeric)),
            "CompareValues is antisymmetric");
        for (const auto& c : values) {
          if (emu::CompareValues(a, b, numeric) < 0 && emu::CompareValues(b, c, numeric) < 0) {
            FUZZ_CHECK(emu::CompareValues(a, c, numeric) < 0, "CompareValues is transitive");
          }
        }
      }
    }
  }
  return 0;
}
