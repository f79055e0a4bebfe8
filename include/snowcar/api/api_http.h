// SPDX-License-Identifier: Apache-2.0
// The request and response values the socket API's handlers see.
//
// They are plain data, free of Beast and Asio types, so a handler can be called and tested
// in-process (ApiRouter::Handle) exactly as the Unix socket server calls it.
#pragma once

#include <boost/json/value.hpp>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace snowcar::api {

struct ApiRequest {
  std::string method;  // "GET", "POST", ... as sent (HTTP methods are case-sensitive)
  // The request target as sent: path plus optional "?query". The router fills the fields
  // below from it; a handler reads those, never the raw target.
  std::string target;
  std::string body;
  // Who is asking, for the audit log of state changes: "pid=123 uid=1000 gid=1000" from the
  // socket's peer credentials; empty for in-process calls.
  std::string peer;

  // Filled by the router before the handler runs.
  std::string path;                             // still percent-encoded
  std::map<std::string, std::string> captures;  // {name} in the pattern -> decoded segment
  std::map<std::string, std::string> query;     // decoded; the last of repeated keys wins

  // Convenience for handlers: the capture or query value, or "" when absent.
  const std::string& Capture(const std::string& name) const;
  const std::string* QueryParam(const std::string& name) const;  // nullptr when absent
};

struct ApiResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra headers, e.g. Allow

  // A JSON answer; the body is the serialized value.
  static ApiResponse Json(int status, const boost::json::value& value);
  // text/plain; charset=utf-8 (Prometheus exposition, plain help).
  static ApiResponse Text(int status, std::string text);
  // The one error shape of the API: {"error":{"message":...,"path":...}}. The message is
  // passed through redact::Mask, so a secret inside a lower layer's message never leaves.
  static ApiResponse Error(int status, std::string_view message, std::string_view path);

  // The value of an extra header (case-insensitive name), or "" when absent.
  std::string Header(std::string_view name) const;
};

}  // namespace snowcar::api
