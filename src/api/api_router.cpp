// SPDX-License-Identifier: Apache-2.0
#include "snowcar/api/api_router.h"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <exception>
#include <set>

#include "snowcar/common/log.h"
#include "snowcar/common/url_encoding.h"

namespace snowcar::api {
namespace {

// "/a/b/" -> {"a", "b", ""}; "/" -> {""}. The leading '/' is required by the caller.
std::vector<std::string_view> SplitPath(std::string_view path) {
  std::vector<std::string_view> out;
  path.remove_prefix(1);
  size_t start = 0;
  while (true) {
    const size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) {
      out.push_back(path.substr(start));
      return out;
    }
    out.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
}

Status ParseQuery(std::string_view query, std::map<std::string, std::string>& out) {
  size_t start = 0;
  while (start <= query.size()) {
    size_t amp = query.find('&', start);
    if (amp == std::string_view::npos) amp = query.size();
    const std::string_view pair = query.substr(start, amp - start);
    if (!pair.empty()) {
      const size_t eq = pair.find('=');
      const std::string_view raw_key = pair.substr(0, eq);
      const std::string_view raw_value =
          eq == std::string_view::npos ? std::string_view{} : pair.substr(eq + 1);
      SNOWCAR_ASSIGN_OR_RETURN(std::string key, PercentDecode(raw_key, true));
      auto value = PercentDecode(raw_value, true);
      if (!value.ok()) {
        return value.status().WithContext("query parameter '" + key + "'");
      }
      out[std::move(key)] = std::move(value).value();
    }
    start = amp + 1;
  }
  return Status::Ok();
}

}  // namespace

ApiRouter::ApiRouter() {
  Status s = Add(Route{"GET", "/help", "this list of routes, generated from the handler table",
                       false, [this](const ApiRequest&) { return Help(); }});
  (void)s;  // a fixed, valid pattern on an empty table
}

ApiRouter::ApiRouter(WithoutHelp) {}

Result<std::shared_ptr<ApiRouter>> SubsetRouter(const ApiRouter& from,
                                                const std::vector<std::string>& patterns) {
  auto subset = std::make_shared<ApiRouter>(ApiRouter::WithoutHelp{});
  for (const std::string& pattern : patterns) {
    bool found = false;
    for (const Route& route : from.routes()) {
      if (route.pattern != pattern) continue;
      found = true;
      SNOWCAR_RETURN_IF_ERROR(subset->Add(route));
    }
    if (!found) return Status::NotFound("no route " + pattern + " to serve");
  }
  return subset;
}

Status ApiRouter::Add(Route route) {
  const std::string& p = route.pattern;
  if (p.empty() || p[0] != '/') {
    return Status::InvalidArgument("route pattern '" + p + "' must start with '/'");
  }
  if (route.method.empty()) {
    return Status::InvalidArgument("route " + p + " has no method");
  }
  if (route.mutates_state && route.method != "POST") {
    return Status::InvalidArgument("route " + route.method + " " + p +
                                   " changes state and must be POST");
  }
  if (!route.handler) return Status::InvalidArgument("route " + p + " has no handler");
  Compiled compiled;
  std::set<std::string> names;
  for (std::string_view segment : SplitPath(p)) {
    const bool capture = segment.size() >= 2 && segment.front() == '{' && segment.back() == '}';
    std::string_view text = capture ? segment.substr(1, segment.size() - 2) : segment;
    if (text.find_first_of("{}") != std::string_view::npos) {
      return Status::InvalidArgument("route pattern '" + p + "': a capture must be a whole " +
                                     "segment like {name}, got '" + std::string(segment) + "'");
    }
    if (capture && !names.insert(std::string(text)).second) {
      return Status::InvalidArgument("route pattern '" + p + "' repeats capture {" +
                                     std::string(text) + "}");
    }
    compiled.segments.emplace_back(text);
    compiled.is_capture.push_back(capture);
  }
  for (const auto& existing : routes_) {
    if (existing.method == route.method && existing.pattern == route.pattern) {
      return Status::AlreadyExists("route " + route.method + " " + p + " is already registered");
    }
  }
  routes_.push_back(std::move(route));
  compiled_.push_back(std::move(compiled));
  return Status::Ok();
}

ApiResponse ApiRouter::Handle(std::string_view method, std::string_view target,
                              std::string_view body) const {
  ApiRequest request;
  request.method = std::string(method);
  request.target = std::string(target);
  request.body = std::string(body);
  return Handle(request);
}

ApiResponse ApiRouter::Handle(const ApiRequest& in) const {
  ApiRequest request = in;
  const std::string_view target = request.target;
  const size_t qmark = target.find('?');
  request.path = std::string(target.substr(0, qmark));
  if (request.path.empty() || request.path[0] != '/') {
    return ApiResponse::Error(400, "request target must be an absolute path starting with '/'",
                              request.path.substr(0, 200));
  }
  // One trailing slash is tolerated: "/v1/health/" is "/v1/health".
  std::string_view match_path = request.path;
  if (match_path.size() > 1 && match_path.back() == '/') match_path.remove_suffix(1);

  request.query.clear();
  if (qmark != std::string_view::npos) {
    Status s = ParseQuery(target.substr(qmark + 1), request.query);
    if (!s.ok()) return ApiResponse::Error(400, s.message(), request.path);
  }

  std::vector<std::string> decoded;
  for (std::string_view segment : SplitPath(match_path)) {
    auto d = PercentDecode(segment);
    if (!d.ok()) return ApiResponse::Error(400, d.status().message(), request.path);
    decoded.push_back(std::move(d).value());
  }

  std::vector<std::string> allowed;
  for (size_t r = 0; r < routes_.size(); ++r) {
    const Compiled& c = compiled_[r];
    if (c.segments.size() != decoded.size()) continue;
    bool match = true;
    for (size_t i = 0; i < decoded.size() && match; ++i) {
      match = c.is_capture[i] ? !decoded[i].empty() : c.segments[i] == decoded[i];
    }
    if (!match) continue;
    if (routes_[r].method != request.method) {
      allowed.push_back(routes_[r].method);
      continue;
    }
    request.captures.clear();
    for (size_t i = 0; i < decoded.size(); ++i) {
      if (c.is_capture[i]) request.captures[c.segments[i]] = decoded[i];
    }
    try {
      return routes_[r].handler(request);
    } catch (const std::exception& e) {
      SNOWCAR_LOG(kError, "api.handler_threw",
                  {{"path", request.path}, {"error", std::string(e.what())}});
      return ApiResponse::Error(500, std::string("internal error: ") + e.what(), request.path);
    } catch (...) {
      SNOWCAR_LOG(kError, "api.handler_threw", {{"path", request.path}});
      return ApiResponse::Error(500, "internal error", request.path);
    }
  }
  if (!allowed.empty()) {
    std::string allow;
    for (const auto& m : allowed) {
      if (!allow.empty()) allow += ", ";
      allow += m;
    }
    ApiResponse r = ApiResponse::Error(
        405, "method " + request.method + " not allowed on this path; allowed: " + allow,
        request.path);
    r.headers.emplace_back("Allow", allow);
    return r;
  }
  const bool has_help = !routes_.empty() && routes_.front().pattern == "/help";
  return ApiResponse::Error(404,
                            has_help ? "no such endpoint; GET /help lists them"
                                     : "no such endpoint here; this listener serves " + Patterns(),
                            request.path);
}

std::string ApiRouter::Patterns() const {
  std::string out;
  std::set<std::string_view> seen;
  for (const auto& route : routes_) {
    if (!seen.insert(route.pattern).second) continue;
    out += (out.empty() ? "" : ", ") + route.pattern;
  }
  return out;
}

ApiResponse ApiRouter::Help() const {
  boost::json::array list;
  for (const auto& route : routes_) {
    boost::json::object entry;
    entry["method"] = route.method;
    entry["path"] = route.pattern;
    entry["help"] = route.help;
    entry["mutates_state"] = route.mutates_state;
    list.push_back(std::move(entry));
  }
  boost::json::object root;
  root["routes"] = std::move(list);
  return ApiResponse::Json(200, root);
}

}  // namespace snowcar::api
