// SPDX-License-Identifier: Apache-2.0
// The state socket's HTTP handling: raw bytes from a client, parsed the way the servers'
// sessions parse them (src/api/http_session_read.cpp: Beast's request_parser with the default
// header and body limits, several requests per connection, ErrorForReadFailure's answers), answered
// by an ApiRouter holding the real core and state routes over a real (temporary) RocksDB state
// store, and serialized as the server writes answers.
//
// Properties: every answer has a known status and reason phrase and a JSON body that parses;
// an error answer carries {"error":{"message":...}}; 405 names the allowed methods; a request
// that is not a POST never gets a 200 from a state-changing route.
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/json/parse.hpp>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>

#include "api/connection_rules.h"
#include "fuzz_check.h"
#include "snowcar/api/api_router.h"
#include "snowcar/api/readiness.h"
#include "snowcar/api/routes.h"
#include "snowcar/common/text.h"
#include "snowcar/state/state_store.h"

namespace {

namespace http = boost::beast::http;
using snowcar::api::ApiRequest;
using snowcar::api::ApiResponse;

struct World {
  std::string dir;
  std::unique_ptr<snowcar::state::StateStore> store;
  snowcar::api::Readiness readiness;
  snowcar::api::HealthRegistry health;
  snowcar::api::ApiRouter router;
  snowcar::api::ConnectionLimits limits;  // the servers' default limits
};

World& TheWorld() {
  static World* world = [] {
    auto* w = new World;
    char tmpl[] = "/tmp/snowcar-fuzz-socket-XXXXXX";
    FUZZ_CHECK(mkdtemp(tmpl) != nullptr, "a temp dir for the state store");
    w->dir = tmpl;
    auto store = snowcar::state::StateStore::Open({.dir = w->dir + "/state"});
    FUZZ_CHECK(store.ok(), "the state store opens");
    w->store = std::move(store).value();
    w->readiness.MarkReady();
    w->health.Report("state", true);
    FUZZ_CHECK(snowcar::api::RegisterCoreRoutes(w->router, w->readiness, w->health).ok(), "core");
    FUZZ_CHECK(snowcar::api::RegisterStateRoutes(w->router, *w->store).ok(), "state routes");
    std::atexit([] { std::filesystem::remove_all(TheWorld().dir); });
    return w;
  }();
  return *world;
}

bool IsStateChanging(const snowcar::api::ApiRouter& router, std::string_view target) {
  const std::string_view path = target.substr(0, target.find('?'));
  for (const auto& route : router.routes()) {
    if (!route.mutates_state) continue;
    // Compare segment counts and the literal last segment ("reset").
    const std::string_view last = std::string_view(route.pattern).substr(route.pattern.rfind('/'));
    if (path.ends_with(last) || path.ends_with(std::string(last) + "/")) return true;
  }
  return false;
}

void CheckAnswer(const ApiResponse& r, unsigned version) {
  FUZZ_CHECK(snowcar::HttpReasonPhrase(r.status) != "Unknown", "a known status");
  if (r.content_type == "application/json") {
    boost::system::error_code ec;
    const auto body = boost::json::parse(r.body, ec);
    FUZZ_CHECK(!ec, "a JSON answer parses");
    if (r.status >= 400) {
      FUZZ_CHECK(body.is_object() && body.as_object().contains("error") &&
                     body.at("error").as_object().contains("message"),
                 "an error answer has error.message");
    }
  }
  if (r.status == 405) FUZZ_CHECK(!r.Header("Allow").empty(), "405 names the allowed methods");
  // Serialized as the server writes it.
  http::response<http::string_body> res;
  res.version(version == 10 ? 10 : 11);
  res.result(static_cast<unsigned>(r.status));
  res.reason(snowcar::HttpReasonPhrase(r.status));
  res.set(http::field::content_type, r.content_type);
  for (const auto& [k, v] : r.headers) res.set(k, v);
  res.body() = r.body;
  res.prepare_payload();
  std::ostringstream out;
  out << res;
  FUZZ_CHECK(!out.str().empty(), "the answer serializes");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  World& w = TheWorld();
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  // One connection: requests are answered until one fails or the bytes run out.
  for (int n = 0; n < 8 && !bytes.empty(); ++n) {
    http::request_parser<http::string_body> parser;
    parser.header_limit(static_cast<uint32_t>(w.limits.header_limit));
    parser.body_limit(w.limits.body_limit);
    parser.eager(true);
    boost::system::error_code ec;
    // As http::read does: feed what is buffered until the message is done or more is needed.
    while (!parser.is_done()) {
      const size_t used = parser.put(boost::asio::buffer(bytes.data(), bytes.size()), ec);
      bytes.remove_prefix(used);
      if (ec || used == 0) break;
    }
    if (ec == http::error::need_more) {
      parser.put_eof(ec);
      if (!ec && !parser.is_done()) ec = http::error::partial_message;
    }
    if (ec) {
      // The client left mid-request (partial_message): the server answers nobody.
      if (ec != http::error::partial_message)
        CheckAnswer(snowcar::api::internal::ErrorForReadFailure(ec, w.limits), 11);
      return 0;
    }
    if (!parser.is_done()) return 0;
    const auto& message = parser.get();
    ApiRequest request;
    request.method = std::string(message.method_string());
    request.target = std::string(message.target());
    request.body = message.body();
    request.peer = "pid=1 uid=0 gid=0";
    const ApiResponse response = w.router.Handle(request);
    CheckAnswer(response, message.version());
    if (request.method != "POST" && IsStateChanging(w.router, request.target)) {
      FUZZ_CHECK(response.status != 200, "only POST changes state");
    }
    if (!message.keep_alive()) return 0;
  }
  return 0;
}
