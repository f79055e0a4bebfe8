// SPDX-License-Identifier: Apache-2.0
// A list answer's rows as text (SplitListRows): one pass of Boost.JSON's validating parser that
// builds nothing and checks the shape {"result":[...]}, then a scan for where each row starts
// and ends. A source page of 5 000 rows parsed whole takes about three and a half times its
// text; kept as text and parsed a row at a time, it takes its text.
#include <boost/json/basic_parser_impl.hpp>
#include <cstring>
#include <limits>

#include "snowcar/servicenow/table_response.h"

namespace snowcar::servicenow {
namespace {

namespace json = boost::json;

// Accepts any valid JSON and remembers whether it has the one shape the split handles. A
// handler returning false stops the parser; the caller then parses the body whole.
class ShapeCheck {
 public:
  static constexpr std::size_t max_object_size = std::numeric_limits<std::size_t>::max();
  static constexpr std::size_t max_array_size = std::numeric_limits<std::size_t>::max();
  static constexpr std::size_t max_key_size = std::numeric_limits<std::size_t>::max();
  static constexpr std::size_t max_string_size = std::numeric_limits<std::size_t>::max();

  bool on_document_begin(json::error_code& /*ec*/) { return true; }
  bool on_document_end(json::error_code& /*ec*/) { return true; }
  bool on_object_begin(json::error_code& ec) { return Open(ec, /*array=*/false); }
  bool on_object_end(std::size_t /*n*/, json::error_code& /*ec*/) { return Close(); }
  bool on_array_begin(json::error_code& ec) { return Open(ec, /*array=*/true); }
  bool on_array_end(std::size_t /*n*/, json::error_code& /*ec*/) { return Close(); }
  bool on_key_part(json::string_view s, std::size_t /*n*/, json::error_code& ec) {
    return Key(s, /*last=*/false, ec);
  }
  bool on_key(json::string_view s, std::size_t /*n*/, json::error_code& ec) {
    return Key(s, /*last=*/true, ec);
  }
  bool on_string_part(json::string_view /*s*/, std::size_t /*n*/, json::error_code& ec) {
    return Scalar(ec);
  }
  bool on_string(json::string_view /*s*/, std::size_t /*n*/, json::error_code& ec) {
    return Scalar(ec);
  }
  bool on_number_part(json::string_view /*s*/, json::error_code& ec) { return Scalar(ec); }
  bool on_int64(std::int64_t /*v*/, json::string_view /*s*/, json::error_code& ec) {
    return Scalar(ec);
  }
  bool on_uint64(std::uint64_t /*v*/, json::string_view /*s*/, json::error_code& ec) {
    return Scalar(ec);
  }
  bool on_double(double /*v*/, json::string_view /*s*/, json::error_code& ec) { return Scalar(ec); }
  bool on_bool(bool /*v*/, json::error_code& ec) { return Scalar(ec); }
  bool on_null(json::error_code& ec) { return Scalar(ec); }
  bool on_comment_part(json::string_view /*s*/, json::error_code& /*ec*/) { return true; }
  bool on_comment(json::string_view /*s*/, json::error_code& /*ec*/) { return true; }

  // The body held "result" with a list ({} or a lone key with no list has no rows to split).
  bool saw_list() const { return saw_list_; }

 private:
  // depth_ counts open containers: 1 inside the top object, 2 inside "result".
  bool Open(json::error_code& ec, bool array) {
    if (depth_ == 0 && array) return Mismatch(ec);                      // the top is not an object
    if (depth_ == 1 && (!array || members_ != 1)) return Mismatch(ec);  // result is no list
    if (depth_ == 1) saw_list_ = true;
    ++depth_;
    return true;
  }
  bool Close() {
    --depth_;
    return true;
  }
  bool Scalar(json::error_code& ec) { return depth_ >= 2 ? true : Mismatch(ec); }
  bool Key(json::string_view s, bool last, json::error_code& ec) {
    if (depth_ != 1) return true;
    if (members_ > 0) return Mismatch(ec);  // a second member ("error" beside the rows, ...)
    key_.append(s.data(), s.size());
    if (last) {
      ++members_;  // a key other than "result" stops the pass, so one member means "result"
      if (key_ != "result") return Mismatch(ec);
    }
    return true;
  }
  static bool Mismatch(json::error_code& ec) {
    ec = json::error::syntax;  // not read as a syntax error: it only stops the pass
    return false;
  }

  int depth_ = 0;
  int members_ = 0;
  bool saw_list_ = false;
  std::string key_;
};

size_t SkipBlanks(std::string_view s, size_t i) {
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
  return i;
}

// Past the string that opens at s[i] (a quote); the text is valid JSON.
size_t SkipString(std::string_view s, size_t i) {
  for (++i; i < s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;
    } else if (s[i] == '"') {
      return i + 1;
    }
  }
  return s.size();
}

// Past the value that starts at s[i]; the text is valid JSON.
size_t SkipValue(std::string_view s, size_t i) {
  if (s[i] == '"') return SkipString(s, i);
  if (s[i] != '{' && s[i] != '[') {
    while (i < s.size() && std::strchr(",]} \t\r\n", s[i]) == nullptr) ++i;
    return i;
  }
  int depth = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (c == '"') {
      i = SkipString(s, i);
      continue;
    }
    if (c == '{' || c == '[') ++depth;
    if (c == '}' || c == ']') {
      if (--depth == 0) return i + 1;
    }
    ++i;
  }
  return s.size();
}

}  // namespace

std::optional<RowTexts> SplitListRows(std::string& body) {
  // Offsets are 32-bit: an answer of 4 GiB is read whole (and refused long before by the
  // client's size limit).
  if (body.size() >= std::numeric_limits<uint32_t>::max()) return std::nullopt;
  json::basic_parser<ShapeCheck> check{json::parse_options{}};
  json::error_code ec;
  const size_t used = check.write_some(false, body.data(), body.size(), ec);
  if (ec || used != body.size() || !check.handler().saw_list()) return std::nullopt;

  // Valid JSON of the shape {"result":[...]}: find the list, then each element.
  const std::string_view s(body);
  size_t i = SkipBlanks(s, 0) + 1;      // past '{'
  i = SkipString(s, SkipBlanks(s, i));  // the key
  i = SkipBlanks(s, i) + 1;             // past ':'
  i = SkipBlanks(s, i) + 1;             // past '['
  RowTexts rows;
  for (i = SkipBlanks(s, i); i < s.size() && s[i] != ']'; i = SkipBlanks(s, i)) {
    const size_t end = SkipValue(s, i);
    rows.spans.emplace_back(static_cast<uint32_t>(i), static_cast<uint32_t>(end - i));
    i = SkipBlanks(s, end);
    if (i < s.size() && s[i] == ',') ++i;
  }
  rows.body = std::move(body);
  body.clear();
  return rows;
}

}  // namespace snowcar::servicenow
