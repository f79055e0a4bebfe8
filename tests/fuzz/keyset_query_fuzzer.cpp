// SPDX-License-Identifier: Apache-2.0
// The source's keyset queries, read back by the emulator's query parser. Input, parts split
// by "--" lines: base query (as configured), the sys_id to drain after, a timestamp.
//
// The builder's promise (keyset_query.h): the cursor terms are ANDed into every ^NQ branch of
// the base query and the ordering comes once at the end. Checked on the parsed result, for
// every base query the config accepts and every sys_id the source can hold as a cursor (no
// '^', no line break: ReadRowKey refuses those): each branch holds exactly the base branch's
// conditions plus the cursor terms, and the ORDERBY terms are exactly the source's. Also:
// NormalizeBaseQuery is idempotent, and the page target percent-decodes back to the query.
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>

#include "config/value_checks.h"
#include "fuzz_check.h"
#include "snowcar/common/time.h"
#include "snowcar/common/url_encoding.h"
#include "snowcar/source/rows/keyset_query.h"
#include "snowcar/testbed/emulator/query.h"

namespace {

namespace emu = snowcar::emulator;
using snowcar::source::TableSettings;

constexpr int64_t kMaxTs = 253402300799;  // 9999-12-31 23:59:59

std::string Describe(const emu::QueryCondition& c) {
  return c.field + std::string(emu::QueryOpText(c.op)) + c.value;
}

std::vector<std::string> Conditions(const emu::QueryBranch& branch) {
  std::vector<std::string> out;
  for (const auto& group : branch.all_of) {
    std::string g;
    for (const auto& c : group.any_of) g += (g.empty() ? "" : " OR ") + Describe(c);
    out.push_back(g);
  }
  return out;
}

// `built`, parsed, is `base` with `cursor` appended to each branch and `order` as ordering.
void CheckComposed(std::string_view what, const std::string& built, const emu::EncodedQuery& base,
                   const std::vector<std::string>& cursor, const std::vector<std::string>& order) {
  const emu::EncodedQuery q = emu::ParseEncodedQuery(built);
  const size_t expected_branches = base.branches.empty() ? 1 : base.branches.size();
  if (q.branches.size() != expected_branches) {
    std::fprintf(stderr, "%.*s: %s\n", static_cast<int>(what.size()), what.data(), built.c_str());
  }
  FUZZ_CHECK(q.branches.size() == expected_branches, "one branch per base branch");
  for (size_t b = 0; b < q.branches.size(); ++b) {
    std::vector<std::string> expected =
        base.branches.empty() ? std::vector<std::string>{} : Conditions(base.branches[b]);
    expected.insert(expected.end(), cursor.begin(), cursor.end());
    if (Conditions(q.branches[b]) != expected) {
      std::fprintf(stderr, "%.*s: branch %zu of %s\n", static_cast<int>(what.size()), what.data(),
                   b, built.c_str());
    }
    FUZZ_CHECK(Conditions(q.branches[b]) == expected, "branch = base branch AND cursor terms");
  }
  std::vector<std::string> got_order;
  for (const auto& o : q.order_by) got_order.push_back((o.descending ? "-" : "") + o.field);
  FUZZ_CHECK(got_order == order, "the source's ordering and nothing else");
  FUZZ_CHECK(built.find_first_of("\r\n") == std::string::npos, "one line");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto parts =
      snowcar::fuzz::SplitParts(std::string_view(reinterpret_cast<const char*>(data), size), "--");
  const std::string_view raw_query = parts[0];
  const std::string_view sys_id = parts.size() > 1 ? parts[1] : "";
  int64_t ts = 1'700'000'000;
  if (parts.size() > 2) {
    std::from_chars(parts[2].data(), parts[2].data() + parts[2].size(), ts);
    if (ts < 0 || ts > kMaxTs) ts = 1'700'000'000;
  }

  const std::string normalized = snowcar::source::NormalizeBaseQuery(raw_query);
  FUZZ_CHECK(snowcar::source::NormalizeBaseQuery(normalized) == normalized,
             "normalizing twice changes nothing");
  // Only what the config loader accepts reaches the builder.
  if (!snowcar::config::CheckBaseQuery(raw_query).empty()) return 0;
  FUZZ_CHECK(snowcar::config::CheckBaseQuery(normalized).empty(),
             "normalizing never makes an accepted query refused");

  // Normalizing only drops blanks and empty terms: without blanks it never changes meaning.
  if (raw_query.find_first_of(" \t\r\n\f\v") == std::string_view::npos) {
    const auto raw = emu::ParseEncodedQuery(raw_query);
    const auto norm = emu::ParseEncodedQuery(normalized);
    FUZZ_CHECK(raw.branches.size() == norm.branches.size(), "normalizing keeps the branches");
    for (size_t b = 0; b < raw.branches.size(); ++b) {
      FUZZ_CHECK(Conditions(raw.branches[b]) == Conditions(norm.branches[b]),
                 "normalizing keeps the conditions");
    }
  }

  TableSettings table;
  table.name = "incident";
  table.base_query = normalized;
  const emu::EncodedQuery base = emu::ParseEncodedQuery(normalized);
  const std::string ts_text = snowcar::FormatSnowTimestamp(ts);

  const bool usable_id = sys_id.find_first_of("^\r\n") == std::string_view::npos;
  if (usable_id) {
    const std::string drain = snowcar::source::DrainSecondQuery(table, ts, sys_id);
    std::vector<std::string> cursor = {"sys_updated_on=" + ts_text};
    if (!sys_id.empty()) cursor.push_back("sys_id>" + std::string(sys_id));
    CheckComposed("drain", drain, base, cursor, {"sys_id"});

    snowcar::source::PageRequestOptions options;
    const std::string target = snowcar::source::PageTarget(table, drain, options);
    const size_t q = target.find("?sysparm_query=");
    FUZZ_CHECK(q != std::string::npos, "the target carries the query");
    const size_t end = target.find('&', q);
    const std::string_view encoded =
        std::string_view(target).substr(q + 15, end == std::string::npos ? end : end - q - 15);
    auto decoded = snowcar::PercentDecode(encoded);
    FUZZ_CHECK(decoded.ok() && *decoded == drain, "the target decodes back to the query");
    for (const char c : target) {
      FUZZ_CHECK(c > 0x20 && c < 0x7f && c != '#' && c != ' ', "the target is plain URL text");
    }
  }
  const std::string move_on = snowcar::source::MoveOnQuery(table, ts > 0 ? ts - 1 : 0, ts);
  CheckComposed("move on", move_on, base,
                {"sys_updated_on>" + snowcar::FormatSnowTimestamp(ts > 0 ? ts - 1 : 0),
                 "sys_updated_on<=" + ts_text},
                {"sys_updated_on", "sys_id"});
  return 0;
}
