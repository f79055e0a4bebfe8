// SPDX-License-Identifier: Apache-2.0
// The socket API's handler table.
//
// Every endpoint is one Route: method, path pattern, help text, whether it changes state, and
// the handler. Routes are added while the process starts, before the server accepts; after
// that the table is read-only, so Handle may run on many threads at once (the handlers
// themselves must be thread-safe).
//
// Patterns are literal segments and {captures}: "/v1/state/dedup/{table}". Matching happens
// on the raw path split at '/', then each segment is percent-decoded, so an encoded "%2F"
// stays inside one capture instead of splitting the path.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "snowcar/api/api_http.h"
#include "snowcar/common/status.h"

namespace snowcar::api {

using Handler = std::function<ApiResponse(const ApiRequest&)>;

struct Route {
  std::string method;   // "GET" or "POST"
  std::string pattern;  // "/v1/state/cursors/{table}"
  std::string help;     // one line for /help
  // A route that changes state accepts only POST, so a stray GET (a browser, a probe, a
  // curl without -X) can never reset anything.
  bool mutates_state = false;
  Handler handler;
};

class ApiRouter {
 public:
  ApiRouter();  // registers GET /help
  // A table without /help: only what is added. The TCP admin listener uses one so that it
  // advertises nothing it does not serve.
  struct WithoutHelp {};
  explicit ApiRouter(WithoutHelp);
  // The /help handler refers to this table, so an ApiRouter stays where it was built.
  ApiRouter(const ApiRouter&) = delete;
  ApiRouter& operator=(const ApiRouter&) = delete;

  // Fails with kInvalidArgument when the pattern is malformed (must start with '/', captures
  // are whole segments with unique names), when a mutating route is not POST, or when the
  // same method and pattern are already registered.
  Status Add(Route route);

  // Answers one request: 404 for an unknown path, 405 with an Allow header when the path is
  // known but not for this method, 400 for a malformed percent escape, 500 when the handler
  // throws. Never throws.
  ApiResponse Handle(const ApiRequest& request) const;
  ApiResponse Handle(std::string_view method, std::string_view target,
                     std::string_view body = {}) const;

  const std::vector<Route>& routes() const { return routes_; }

 private:
  struct Compiled {
    std::vector<std::string> segments;  // literal text, or the capture name
    std::vector<bool> is_capture;
  };
  ApiResponse Help() const;
  std::string Patterns() const;  // "/metrics, /v1/health", for the 404 of a table without /help

  std::vector<Route> routes_;
  std::vector<Compiled> compiled_;
};

// A new router (without /help) holding the routes of `from` whose pattern is one of
// `patterns`, every method of each. Fails with kNotFound naming a pattern `from` lacks. The
// handlers are shared, so what they reference must outlive both routers.
Result<std::shared_ptr<ApiRouter>> SubsetRouter(const ApiRouter& from,
                                                const std::vector<std::string>& patterns);

}  // namespace snowcar::api
