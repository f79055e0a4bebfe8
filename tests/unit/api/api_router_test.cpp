// SPDX-License-Identifier: Apache-2.0
#include "snowcar/api/api_router.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <stdexcept>

#include "json_test_util.h"

namespace snowcar::api {
namespace {

using testing::ErrorMessage;
using testing::ParseJson;

// A handler that echoes what the router gave it.
ApiResponse Echo(const ApiRequest& r) {
  boost::json::object o;
  o["method"] = r.method;
  o["path"] = r.path;
  boost::json::object caps;
  for (const auto& [k, v] : r.captures) caps[k] = v;
  o["captures"] = std::move(caps);
  boost::json::object query;
  for (const auto& [k, v] : r.query) query[k] = v;
  o["query"] = std::move(query);
  o["body"] = r.body;
  return ApiResponse::Json(200, o);
}

class ApiRouterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(router_.Add({"GET", "/v1/items", "all items", false, Echo}).ok());
    ASSERT_TRUE(router_.Add({"GET", "/v1/items/{id}", "one item", false, Echo}).ok());
    ASSERT_TRUE(router_.Add({"GET", "/v1/pairs/{a}/x/{b}", "two captures", false, Echo}).ok());
    ASSERT_TRUE(router_.Add({"POST", "/v1/items/{id}/reset", "reset", true, Echo}).ok());
  }
  ApiRouter router_;
};

TEST_F(ApiRouterTest, MatchesLiteralPath) {
  ApiResponse r = router_.Handle("GET", "/v1/items");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.content_type, "application/json");
  EXPECT_EQ(ParseJson(r.body).at("path"), "/v1/items");
}

TEST_F(ApiRouterTest, FillsCaptures) {
  ApiResponse r = router_.Handle("GET", "/v1/pairs/one/x/two");
  ASSERT_EQ(r.status, 200) << r.body;
  const auto v = ParseJson(r.body);
  EXPECT_EQ(v.at("captures").at("a"), "one");
  EXPECT_EQ(v.at("captures").at("b"), "two");
}

TEST_F(ApiRouterTest, DecodesCapturesAfterSplittingSoEncodedSlashStaysInside) {
  ApiResponse r = router_.Handle("GET", "/v1/items/a%2Fb%20c");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(ParseJson(r.body).at("captures").at("id"), "a/b c");
}

TEST_F(ApiRouterTest, DecodesQueryParameters) {
  ApiResponse r = router_.Handle("GET", "/v1/items?x=1&name=a%26b+c&flag&x=2");
  ASSERT_EQ(r.status, 200) << r.body;
  const auto q = ParseJson(r.body).at("query");
  EXPECT_EQ(q.at("name"), "a&b c");
  EXPECT_EQ(q.at("x"), "2");  // the last of a repeated key wins
  EXPECT_EQ(q.at("flag"), "");
}

TEST_F(ApiRouterTest, MalformedEscapeInPathIs400NamingIt) {
  ApiResponse r = router_.Handle("GET", "/v1/items/ab%zz");
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(ErrorMessage(r.body).find("%zz"), std::string::npos) << r.body;
}

TEST_F(ApiRouterTest, MalformedEscapeInQueryIs400NamingTheParameter) {
  ApiResponse r = router_.Handle("GET", "/v1/items?sys_id=%4");
  EXPECT_EQ(r.status, 400);
  const std::string m = ErrorMessage(r.body);
  EXPECT_NE(m.find("sys_id"), std::string::npos) << m;
  EXPECT_NE(m.find("malformed percent escape"), std::string::npos) << m;
}

TEST_F(ApiRouterTest, UnknownPathIs404WithJsonErrorShape) {
  ApiResponse r = router_.Handle("GET", "/v1/nope?x=1");
  EXPECT_EQ(r.status, 404);
  const auto v = ParseJson(r.body);
  ASSERT_TRUE(v.at("error").is_object());
  EXPECT_FALSE(v.at("error").at("message").as_string().empty());
  EXPECT_EQ(v.at("error").at("path"), "/v1/nope");
}

TEST_F(ApiRouterTest, EmptyCaptureDoesNotMatch) {
  EXPECT_EQ(router_.Handle("GET", "/v1/items//reset").status, 404);
  EXPECT_EQ(router_.Handle("GET", "/v1/pairs//x/b").status, 404);
}

TEST_F(ApiRouterTest, TrailingSlashIsTolerated) {
  EXPECT_EQ(router_.Handle("GET", "/v1/items/").status, 200);
}

TEST_F(ApiRouterTest, MutatingRouteRejectsGetWith405AndAllow) {
  ApiResponse r = router_.Handle("GET", "/v1/items/7/reset");
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(r.Header("Allow"), "POST");
  EXPECT_EQ(r.Header("allow"), "POST");
  EXPECT_NE(ErrorMessage(r.body).find("GET"), std::string::npos);
  EXPECT_EQ(router_.Handle("POST", "/v1/items/7/reset").status, 200);
}

TEST_F(ApiRouterTest, ReadRouteRejectsPostWith405) {
  ApiResponse r = router_.Handle("POST", "/v1/items");
  EXPECT_EQ(r.status, 405);
  EXPECT_EQ(r.Header("Allow"), "GET");
}

TEST_F(ApiRouterTest, PassesBody) {
  ApiResponse r = router_.Handle("POST", "/v1/items/7/reset", "{\"why\":1}");
  EXPECT_EQ(ParseJson(r.body).at("body"), "{\"why\":1}");
}

TEST_F(ApiRouterTest, TargetWithoutLeadingSlashIs400) {
  EXPECT_EQ(router_.Handle("GET", "v1/items").status, 400);
  EXPECT_EQ(router_.Handle("GET", "").status, 400);
  EXPECT_EQ(router_.Handle("GET", "http://localhost/v1/items").status, 400);
}

TEST_F(ApiRouterTest, HelpListsEveryRoute) {
  ApiResponse r = router_.Handle("GET", "/help");
  ASSERT_EQ(r.status, 200);
  const auto routes = ParseJson(r.body).at("routes").as_array();
  std::set<std::string> listed;
  for (const auto& e : routes) {
    listed.insert(std::string(e.at("method").as_string()) + " " +
                  std::string(e.at("path").as_string()));
    EXPECT_FALSE(e.at("help").as_string().empty());
  }
  EXPECT_EQ(listed.size(), router_.routes().size());
  for (const auto& route : router_.routes()) {
    EXPECT_TRUE(listed.count(route.method + " " + route.pattern)) << route.pattern;
  }
  for (const auto& e : routes) {
    if (e.at("path") == "/v1/items/{id}/reset") {
      EXPECT_EQ(e.at("mutates_state"), true);
    }
    if (e.at("path") == "/v1/items") {
      EXPECT_EQ(e.at("mutates_state"), false);
    }
  }
}

TEST(RouterAdd, RejectsBadRoutes) {
  ApiRouter router;
  EXPECT_EQ(router.Add({"GET", "no-slash", "h", false, Echo}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(router.Add({"GET", "/a/{x}{y}", "h", false, Echo}).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(router.Add({"GET", "/a/{x}/{x}", "h", false, Echo}).code(),
            StatusCode::kInvalidArgument);
  Status s = router.Add({"GET", "/reset", "h", true, Echo});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("POST"), std::string::npos);
  EXPECT_EQ(router.Add({"GET", "/a", "h", false, nullptr}).code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(router.Add({"GET", "/a", "h", false, Echo}).ok());
  EXPECT_EQ(router.Add({"GET", "/a", "h", false, Echo}).code(), StatusCode::kAlreadyExists);
  EXPECT_TRUE(router.Add({"POST", "/a", "h", true, Echo}).ok());
}

TEST(RouterHandle, HandlerExceptionBecomes500AndIsMasked) {
  ApiRouter router;
  ASSERT_TRUE(router
                  .Add({"GET", "/boom", "throws", false,
                        [](const ApiRequest&) -> ApiResponse {
                          throw std::runtime_error("failed with password=hunter22");
                        }})
                  .ok());
  ApiResponse r = router.Handle("GET", "/boom");
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.body.find("hunter22"), std::string::npos) << r.body;
}

}  // namespace
}  // namespace snowcar::api

namespace snowcar::api {
namespace {

// Whatever arrives as method and target, Handle answers with one of its documented codes
// and a JSON body; it never throws or crashes.
TEST(RouterHandle, ArbitraryTargetsGetADocumentedAnswer) {
  ApiRouter router;
  ASSERT_TRUE(router.Add({"GET", "/v1/a/{x}", "h", false, Echo}).ok());
  ASSERT_TRUE(router.Add({"POST", "/v1/a/{x}/reset", "h", true, Echo}).ok());
  std::mt19937 rng(7);
  const std::string alphabet = "/%?&=+{}aAzZ09 ._-\x01\xff";
  for (int i = 0; i < 20000; ++i) {
    std::string target = i % 2 == 0 ? "/v1/a/" : "/";
    const size_t len = rng() % 24;
    for (size_t k = 0; k < len; ++k) target += alphabet[rng() % alphabet.size()];
    const char* method = (rng() % 2) ? "GET" : "POST";
    ApiResponse r = router.Handle(method, target);
    ASSERT_TRUE(r.status == 200 || r.status == 400 || r.status == 404 || r.status == 405)
        << r.status << " for " << method << " " << target;
    ASSERT_FALSE(ParseJson(r.body).is_null()) << target;
  }
}

}  // namespace
}  // namespace snowcar::api
