// SPDX-License-Identifier: Apache-2.0
// ParseTableResponse on hostile answers. Input: an HTTP answer head and body as text,
//   "<status>\n<Name>: <value>\n...\n\n<body>"
// (no status line reads as 200). The same body is parsed with the headers given, with none,
// and with the header values moved to the other header names, and Classify reads the result.
// Invariants: the body's kind never depends on headers; a list's rows are exactly the
// body's "result" array; kMalformed comes with a reason and nothing else does; the header
// facts are in range (counts and waits never negative). Read with rows as text (what the
// source asks for), the answer has the same kind, and its rows, each parsed alone, are the
// whole parse's rows.
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "snowcar/servicenow/classify.h"
#include "snowcar/servicenow/table_response.h"

namespace {

using snowcar::servicenow::BodyKind;
using snowcar::servicenow::InstanceResponse;
using snowcar::servicenow::TableResponse;

constexpr int64_t kNowMs = 1'750'000'000'000;  // a fixed local clock: runs are repeatable

InstanceResponse ReadAnswer(std::string_view text) {
  InstanceResponse r;
  r.status = 200;
  const size_t head_end = text.find("\n\n");
  std::string_view head =
      head_end == std::string_view::npos ? std::string_view() : text.substr(0, head_end);
  r.body = std::string(head_end == std::string_view::npos ? text : text.substr(head_end + 2));
  bool first = true;
  while (!head.empty()) {
    const size_t nl = head.find('\n');
    std::string_view line = head.substr(0, nl);
    head = nl == std::string_view::npos ? std::string_view() : head.substr(nl + 1);
    if (first && !line.empty() && line.size() <= 3 &&
        line.find_first_not_of("0123456789") == std::string_view::npos) {
      r.status = std::stoi(std::string(line));
      first = false;
      continue;
    }
    first = false;
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    r.headers.emplace_back(std::string(line.substr(0, colon)), std::string(line.substr(colon + 1)));
  }
  return r;
}

void CheckConsistent(const TableResponse& p) {
  const bool has_rows_kind = p.kind == BodyKind::kList || p.kind == BodyKind::kFailedList;
  FUZZ_CHECK(has_rows_kind || p.rows.empty(), "rows only for list kinds");
  const bool has_record_kind = p.kind == BodyKind::kRecord || p.kind == BodyKind::kOther;
  FUZZ_CHECK(has_record_kind || p.record.empty(), "record only for record kinds");
  FUZZ_CHECK((p.kind == BodyKind::kMalformed) == !p.malformed_reason.empty(),
             "a reason exactly when malformed");
  if (p.total_count) FUZZ_CHECK(*p.total_count >= 0, "X-Total-Count never negative");
  if (p.retry_after_ms) FUZZ_CHECK(*p.retry_after_ms >= 0, "Retry-After never negative");
  for (const auto& link : p.links) FUZZ_CHECK(!link.rel.empty(), "every link has a rel");
  FUZZ_CHECK(!snowcar::servicenow::BodyKindName(p.kind).empty(), "every kind has a name");
}

void CheckAgainstJson(const InstanceResponse& r, const TableResponse& p) {
  boost::json::error_code ec;
  const boost::json::value root = boost::json::parse(r.body, ec);
  if (ec || !root.is_object()) {
    FUZZ_CHECK(p.kind == BodyKind::kMalformed || p.kind == BodyKind::kEmpty,
               "a body that is not a JSON object is malformed or empty");
    return;
  }
  const auto& obj = root.as_object();
  const auto* result = obj.if_contains("result");
  if (p.kind == BodyKind::kList) {
    FUZZ_CHECK(result != nullptr && result->is_array() && *result == p.rows,
               "a list's rows are the body's result array");
    FUZZ_CHECK(!obj.contains("error"), "a list has no error next to it");
  }
  if (p.kind == BodyKind::kRecord) {
    FUZZ_CHECK(result != nullptr && result->is_object() && *result == p.record,
               "a record is the body's result object");
  }
  if (p.kind == BodyKind::kError || p.kind == BodyKind::kFailedList) {
    FUZZ_CHECK(obj.contains("error"), "an error kind comes from an error member");
  }
  if (result == nullptr && !obj.contains("error")) {
    FUZZ_CHECK(p.kind == BodyKind::kOther, "an object without result or error is kOther");
  }
}

void Classify(const InstanceResponse& r, const TableResponse& p) {
  for (auto method : {snowcar::servicenow::Method::kGet, snowcar::servicenow::Method::kPost}) {
    snowcar::servicenow::AttemptFacts facts;
    facts.method = method;
    facts.list_request = method == snowcar::servicenow::Method::kGet;
    facts.request_sent = true;
    facts.http_status = r.status;
    facts.parsed = &p;
    const auto verdict = snowcar::servicenow::Classify(facts);
    FUZZ_CHECK(!snowcar::servicenow::OutcomeClassName(verdict.klass).empty(), "named class");
    if (verdict.klass == snowcar::servicenow::OutcomeClass::kOk) {
      FUZZ_CHECK(!verdict.retry, "success is never retried");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const InstanceResponse given =
      ReadAnswer(std::string_view(reinterpret_cast<const char*>(data), size));
  const TableResponse parsed = snowcar::servicenow::ParseTableResponse(given, kNowMs);
  CheckConsistent(parsed);
  CheckAgainstJson(given, parsed);
  Classify(given, parsed);

  // Rows as text: the same reading, the rows split exactly where the whole parse has them.
  InstanceResponse as_text = given;
  const TableResponse text = snowcar::servicenow::ParseTableResponse(as_text, kNowMs, true);
  FUZZ_CHECK(text.kind == parsed.kind, "asking for text never changes the body kind");
  FUZZ_CHECK(text.malformed_reason == parsed.malformed_reason, "nor why it is malformed");
  if (text.rows.empty() && parsed.kind == BodyKind::kList) {
    FUZZ_CHECK(text.row_texts.size() == parsed.rows.size(), "one text per row");
    for (size_t i = 0; i < text.row_texts.size(); ++i) {
      boost::json::error_code ec;
      const boost::json::value row = boost::json::parse(text.row_texts[i], ec);
      FUZZ_CHECK(!ec && row == parsed.rows[i], "each text parses to its row");
    }
  } else {
    FUZZ_CHECK(text.rows == parsed.rows && text.row_texts.empty(), "else rows parsed whole");
    FUZZ_CHECK(as_text.body == given.body, "a body read whole is left as it was");
  }

  // The same body without headers: the body's reading must not change.
  InstanceResponse bare = given;
  bare.headers.clear();
  const TableResponse bare_parsed = snowcar::servicenow::ParseTableResponse(bare, kNowMs);
  FUZZ_CHECK(bare_parsed.kind == parsed.kind, "headers never change the body kind");
  FUZZ_CHECK(bare_parsed.rows == parsed.rows, "headers never change the rows");
  FUZZ_CHECK(!bare_parsed.total_count && !bare_parsed.retry_after_ms && bare_parsed.links.empty(),
             "no header facts without headers");

  // Every header value offered to every header the parser reads.
  for (const char* name : {"X-Total-Count", "Link", "Retry-After", "Date", "Location"}) {
    InstanceResponse variant = bare;
    for (const auto& [k, v] : given.headers) variant.headers.emplace_back(name, v);
    const TableResponse p = snowcar::servicenow::ParseTableResponse(variant, kNowMs);
    CheckConsistent(p);
    FUZZ_CHECK(p.kind == parsed.kind, "headers never change the body kind");
  }
  return 0;
}
