// SPDX-License-Identifier: Apache-2.0
#include "snowcar/api/api_http.h"

#include <strings.h>

#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include "snowcar/common/redact.h"

namespace snowcar::api {

namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 when the bytes there are not one
// (overlong forms, surrogates and values above U+10FFFF count as invalid).
size_t Utf8SequenceLength(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return 1;
  size_t n = 0;
  unsigned lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k) {
    if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
  }
  return n;
}

// Boost.JSON copies string bytes as they are, and a decoded path segment may hold any byte.
// Answers must stay valid JSON (RFC 8259 requires UTF-8), so invalid bytes become U+FFFD.
// JSON's structural characters are ASCII, so this never changes the document's shape.
void RepairUtf8(std::string& text) {
  size_t i = 0;
  while (i < text.size() && static_cast<unsigned char>(text[i]) < 0x80) ++i;
  if (i == text.size()) return;  // the common case: pure ASCII
  std::string out(text, 0, i);
  while (i < text.size()) {
    const size_t n = Utf8SequenceLength(text, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(text, i, n);
      i += n;
    }
  }
  text = std::move(out);
}

}  // namespace

const std::string& ApiRequest::Capture(const std::string& name) const {
  static const std::string kEmpty;
  auto it = captures.find(name);
  return it == captures.end() ? kEmpty : it->second;
}

const std::string* ApiRequest::QueryParam(const std::string& name) const {
  auto it = query.find(name);
  return it == query.end() ? nullptr : &it->second;
}

ApiResponse ApiResponse::Json(int status, const boost::json::value& value) {
  ApiResponse r;
  r.status = status;
  r.body = boost::json::serialize(value);
  RepairUtf8(r.body);
  r.body += '\n';  // friendlier on a terminal (curl); JSON parsers ignore it
  return r;
}

ApiResponse ApiResponse::Text(int status, std::string text) {
  ApiResponse r;
  r.status = status;
  r.content_type = "text/plain; charset=utf-8";
  r.body = std::move(text);
  return r;
}

ApiResponse ApiResponse::Error(int status, std::string_view message, std::string_view path) {
  boost::json::object error;
  error["message"] = redact::Mask(message);
  error["path"] = redact::Mask(path);
  boost::json::object root;
  root["error"] = std::move(error);
  return Json(status, root);
}

std::string ApiResponse::Header(std::string_view name) const {
  for (const auto& [k, v] : headers) {
    if (k.size() == name.size() && strncasecmp(k.data(), name.data(), k.size()) == 0) return v;
  }
  return {};
}

}  // namespace snowcar::api
