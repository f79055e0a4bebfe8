// SPDX-License-Identifier: Apache-2.0
// The Link and X-Total-Count headers, against the documented rule and fixture 01.
#include "testbed/emulator/pagination.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "emulator_fixture.h"

namespace snowcar::emulator::testing {
namespace {

std::string Rel(const std::string& base, const std::string& query, const char* rel) {
  return "<" + base + "?" + query + ">;rel=\"" + rel + "\"";
}

TEST(BuildLinkHeader, FirstPageOfLimitOneHasNegativePrev) {
  const auto params = ParseUrlParams("sysparm_limit=1");
  LinkInput in{"https://i.example/api/now/table/incident", &params, 0, 1, 73, true};
  const std::string b = in.url_base;
  EXPECT_EQ(BuildLinkHeader(in).value(),
            Rel(b, "sysparm_limit=1&sysparm_offset=0", "first") + "," +
                Rel(b, "sysparm_limit=1&sysparm_offset=-1", "prev") + "," +
                Rel(b, "sysparm_limit=1&sysparm_offset=1", "next") + "," +
                Rel(b, "sysparm_limit=1&sysparm_offset=72", "last"));
}

TEST(BuildLinkHeader, LastPageHasNoNextAndOffsetIsRewrittenLast) {
  const auto params = ParseUrlParams("sysparm_offset=20&sysparm_limit=10&x=%3D");
  LinkInput in{"http://h/api/now/table/t", &params, 20, 10, 25, false};
  EXPECT_EQ(
      BuildLinkHeader(in).value(),
      Rel("http://h/api/now/table/t", "sysparm_limit=10&x=%3D&sysparm_offset=0", "first") + "," +
          Rel("http://h/api/now/table/t", "sysparm_limit=10&x=%3D&sysparm_offset=10", "prev") +
          "," +
          Rel("http://h/api/now/table/t", "sysparm_limit=10&x=%3D&sysparm_offset=20", "last"));
}

TEST(BuildLinkHeader, NoLinkWhenResultFitsOnePage) {
  const auto params = ParseUrlParams("sysparm_limit=10");
  EXPECT_FALSE(BuildLinkHeader({"http://h/p", &params, 0, 10, 10, true}).has_value());
  EXPECT_FALSE(BuildLinkHeader({"http://h/p", &params, 0, 10, 0, false}).has_value());
  EXPECT_TRUE(BuildLinkHeader({"http://h/p", &params, 0, 10, 11, true}).has_value());
}

TEST(BuildLinkHeader, LastIsFloorOfTotalMinusOne) {
  const auto params = ParseUrlParams("");
  auto link = BuildLinkHeader({"http://h/p", &params, 0, 10, 30, true}).value();
  EXPECT_NE(link.find("<http://h/p?sysparm_offset=20>;rel=\"last\""), std::string::npos) << link;
  link = BuildLinkHeader({"http://h/p", &params, 0, 10, 31, true}).value();
  EXPECT_NE(link.find("<http://h/p?sysparm_offset=30>;rel=\"last\""), std::string::npos) << link;
}

TEST(BuildLinkHeader, WithoutCountThereIsNoLastAndNextOnlyWhenPageFull) {
  const auto params = ParseUrlParams("sysparm_limit=5&sysparm_no_count=true");
  auto link = BuildLinkHeader({"http://h/p", &params, 5, 5, std::nullopt, true}).value();
  EXPECT_EQ(link.find("rel=\"last\""), std::string::npos);
  EXPECT_NE(link.find("sysparm_offset=10>;rel=\"next\""), std::string::npos);
  link = BuildLinkHeader({"http://h/p", &params, 5, 5, std::nullopt, false}).value();
  EXPECT_EQ(link.find("rel=\"next\""), std::string::npos);
}

class PaginationOverHttp : public EmulatorTest {};

TEST_F(PaginationOverHttp, FirstPageMatchesFixture01Exactly) {
  // Fixture 01: 73 incidents, limit 1, first page. Same rows here, so the same header with
  // the emulator's address in place of the instance's.
  std::ifstream in(std::string(SNOWCAR_FIXTURES_DIR) +
                   "/servicenow/01-list-link-total-curl-2021.json");
  ASSERT_TRUE(in) << "fixture 01 missing under " << SNOWCAR_FIXTURES_DIR;
  std::stringstream ss;
  ss << in.rdbuf();
  auto doc = boost::json::parse(ss.str());
  std::string expected(doc.at("response").at("headers").at("Link").as_string());
  const std::string host = "https://dev86373.service-now.com";
  for (size_t at; (at = expected.find(host)) != std::string::npos;) {
    expected.replace(at, host.size(), base_);
  }
  auto r = Get(Url("/api/now/table/incident?sysparm_limit=1"));
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.Header("x-total-count"), "73");
  EXPECT_EQ(r.Header("link"), expected);
  EXPECT_EQ(Json(r.body).at("result").as_array().size(), 1u);
}

TEST_F(PaginationOverHttp, MiddlePageHasAllFourRels) {
  auto r = Get(Url("/api/now/table/incident?sysparm_limit=10&sysparm_offset=30"));
  ASSERT_EQ(r.status, 200);
  const std::string p = base_ + "/api/now/table/incident?sysparm_limit=10&sysparm_offset=";
  EXPECT_EQ(r.Header("link"), "<" + p + "0>;rel=\"first\",<" + p + "20>;rel=\"prev\",<" + p +
                                  "40>;rel=\"next\",<" + p + "70>;rel=\"last\"");
  EXPECT_EQ(Json(r.body).at("result").as_array().size(), 10u);
}

TEST_F(PaginationOverHttp, LastPageHasNoNext) {
  auto r = Get(Url("/api/now/table/incident?sysparm_limit=10&sysparm_offset=70"));
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.Header("link").find("rel=\"next\""), std::string::npos);
  EXPECT_NE(r.Header("link").find("sysparm_offset=60>;rel=\"prev\""), std::string::npos);
  EXPECT_EQ(Json(r.body).at("result").as_array().size(), 3u);
}

TEST_F(PaginationOverHttp, SinglePageHasTotalButNoLink) {
  auto r = Get(Url("/api/now/table/incident?sysparm_limit=100"));
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.Header("x-total-count"), "73");
  EXPECT_FALSE(r.Has("link"));
  r = Get(Url("/api/now/table/incident"));  // default limit 10000
  EXPECT_FALSE(r.Has("link"));
  EXPECT_EQ(Json(r.body).at("result").as_array().size(), 73u);
}

TEST_F(PaginationOverHttp, UnknownParametersAreEchoedAsReceived) {
  auto r = Get(Url(
      "/api/now/v2/table/incident?query=number%3DINC0000040&display_value=True&sysparm_limit=1"));
  ASSERT_EQ(r.status, 200);
  EXPECT_NE(
      r.Header("link").find("<" + base_ +
                            "/api/now/v2/table/incident?query=number%3DINC0000040&"
                            "display_value=True&sysparm_limit=1&sysparm_offset=72>;rel=\"last\""),
      std::string::npos)
      << r.Header("link");
}

TEST_F(PaginationOverHttp, NoCountAndSuppressHeader) {
  auto r = Get(Url("/api/now/table/incident?sysparm_limit=10&sysparm_no_count=true"));
  ASSERT_EQ(r.status, 200);
  EXPECT_FALSE(r.Has("x-total-count"));
  r = Get(Url("/api/now/table/incident?sysparm_limit=10&sysparm_suppress_pagination_header=true"));
  EXPECT_FALSE(r.Has("link"));
  EXPECT_EQ(r.Header("x-total-count"), "73");
}

TEST_F(PaginationOverHttp, QueryFiltersTheTotal) {
  auto all = Json(Get(Url("/api/now/table/incident?sysparm_fields=number")).body);
  const std::string number(all.at("result").at(5).at("number").as_string());
  auto r = Get(Url("/api/now/table/incident?sysparm_query=number%3D" + number));
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.Header("x-total-count"), "1");
  EXPECT_EQ(Json(r.body).at("result").at(0).at("number").as_string(), number);
}

}  // namespace
}  // namespace snowcar::emulator::testing
