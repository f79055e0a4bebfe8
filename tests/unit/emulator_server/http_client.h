// SPDX-License-Identifier: Apache-2.0
// A small blocking libcurl client for the emulator's tests: one request, all headers and the
// body, and the transfer error code (so a dropped connection is visible as such).
#pragma once

#include <curl/curl.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace snowcar::emulator::testing {

struct HttpResult {
  CURLcode code = CURLE_OK;  // CURLE_OK, or the transfer error (partial file, empty reply...)
  long status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased; last one wins
  std::string body;

  bool Has(const std::string& name) const { return headers.count(name) > 0; }
  std::string Header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
};

struct InstanceRequest {
  std::string method = "GET";
  std::string url;
  std::string body;
  std::vector<std::string> headers;  // "Name: value"
  std::string userpwd;               // "user:password" for basic auth; empty = none
  long timeout_ms = 10000;
  std::string accept_encoding;  // e.g. "gzip": libcurl asks for it and decodes the body
};

HttpResult Fetch(const InstanceRequest& request);

// Shorthands with the emulator's default basic credentials.
HttpResult Get(const std::string& url, const std::string& userpwd = "admin:admin-emulator");
HttpResult Send(const std::string& method, const std::string& url, const std::string& json_body,
                const std::string& userpwd = "admin:admin-emulator");

}  // namespace snowcar::emulator::testing
