// SPDX-License-Identifier: Apache-2.0
#include "snowcar/servicenow/response_headers.h"

#include <gtest/gtest.h>

#include "snowcar/servicenow/instance_http.h"

namespace snowcar::servicenow {
namespace {

constexpr int64_t kRfcExampleMs = int64_t{784111777} * 1000;  // Sun, 06 Nov 1994 08:49:37 GMT

TEST(HttpDateTest, ReadsAllThreeHttpForms) {
  EXPECT_EQ(ParseHttpDate("Sun, 06 Nov 1994 08:49:37 GMT"), kRfcExampleMs);
  EXPECT_EQ(ParseHttpDate("Sunday, 06-Nov-94 08:49:37 GMT"), kRfcExampleMs);
  EXPECT_EQ(ParseHttpDate("Sun Nov  6 08:49:37 1994"), kRfcExampleMs);
  EXPECT_EQ(ParseHttpDate("Thu, 01 Jan 1970 00:00:10 GMT"), 10000);
}

TEST(HttpDateTest, RejectsGarbage) {
  EXPECT_FALSE(ParseHttpDate(""));
  EXPECT_FALSE(ParseHttpDate("yesterday"));
  EXPECT_FALSE(ParseHttpDate("Sun, 06 Nov 1994"));               // no time
  EXPECT_FALSE(ParseHttpDate("Sun, 06 Foo 1994 08:49:37 GMT"));  // no month
  EXPECT_FALSE(ParseHttpDate("Sun, 06 Nov 1994 25:49:37 GMT"));  // hour out of range
  EXPECT_FALSE(ParseHttpDate("Sun, 06 Nov 1994 8:49:37 GMT"));
}

TEST(RetryAfterTest, SecondsOrDate) {
  EXPECT_EQ(ParseRetryAfterMillis("3", 0), 3000);
  EXPECT_EQ(ParseRetryAfterMillis(" 0 ", 0), 0);
  EXPECT_EQ(ParseRetryAfterMillis("Sun, 06 Nov 1994 08:49:47 GMT", kRfcExampleMs), 10000);
  // A date already past means "now".
  EXPECT_EQ(ParseRetryAfterMillis("Sun, 06 Nov 1994 08:49:27 GMT", kRfcExampleMs), 0);
  EXPECT_FALSE(ParseRetryAfterMillis("<seconds>", 0));
  EXPECT_FALSE(ParseRetryAfterMillis("-5", 0));
  EXPECT_FALSE(ParseRetryAfterMillis("1.5", 0));
  EXPECT_FALSE(ParseRetryAfterMillis("", 0));
}

TEST(LinkHeaderTest, ServiceNowShape) {
  auto links = ParseLinkHeader(
      "<https://i.example/api/now/table/incident?sysparm_limit=1&sysparm_offset=0>;rel=\"first\","
      "<https://i.example/api/now/table/incident?sysparm_limit=1&sysparm_offset=-1>;rel=\"prev\","
      "<https://i.example/api/now/table/incident?sysparm_limit=1&sysparm_offset=1>;rel=\"next\","
      "<https://i.example/api/now/table/incident?sysparm_limit=1&sysparm_offset=72>;rel=\"last\"");
  ASSERT_EQ(links.size(), 4u);
  EXPECT_EQ(links[0].rel, "first");
  EXPECT_EQ(links[3].rel, "last");
  EXPECT_EQ(FindLink(links, "next"),
            "https://i.example/api/now/table/incident?sysparm_limit=1&sysparm_offset=1");
  EXPECT_FALSE(FindLink(links, "self").has_value());
}

TEST(LinkHeaderTest, BlanksUnquotedAndTruncated) {
  auto links = ParseLinkHeader("<a?x=1>; rel=next , <b>; rel=\"last\"");
  ASSERT_EQ(links.size(), 2u);
  EXPECT_EQ(FindLink(links, "next"), "a?x=1");
  EXPECT_EQ(FindLink(links, "last"), "b");
  // Cut inside the second entry: the first survives.
  links = ParseLinkHeader("<a>;rel=\"first\",<https://dev284244.service-");
  ASSERT_EQ(links.size(), 1u);
  EXPECT_EQ(links[0].rel, "first");
  links = ParseLinkHeader("<a>;rel=\"fir");
  EXPECT_TRUE(links.empty());
  EXPECT_TRUE(ParseLinkHeader("").empty());
}

TEST(TotalCountTest, Decimal) {
  EXPECT_EQ(ParseTotalCount("73"), 73);
  EXPECT_EQ(ParseTotalCount(" 0"), 0);
  EXPECT_FALSE(ParseTotalCount("-1"));
  EXPECT_FALSE(ParseTotalCount("many"));
  EXPECT_FALSE(ParseTotalCount("99999999999999999999999"));
}

TEST(HttpMessageTest, HeaderLookupIgnoresCase) {
  InstanceResponse r;
  r.headers = {{"Cache-control", "no-cache "}, {"X-Total-Count", "5"}};
  EXPECT_EQ(r.Header("cache-control"), "no-cache");
  EXPECT_EQ(r.Header("X-TOTAL-COUNT"), "5");
  EXPECT_FALSE(r.Header("Link").has_value());
}

TEST(HttpMessageTest, ListTargets) {
  EXPECT_TRUE(IsTableListTarget("/api/now/table/incident?sysparm_limit=1"));
  EXPECT_TRUE(IsTableListTarget("/api/now/v1/table/incident"));
  EXPECT_TRUE(IsTableListTarget("/api/now/v2/table/incident/"));
  EXPECT_TRUE(IsTableListTarget("https://x.service-now.com/prefix/api/now/table/incident"));
  EXPECT_FALSE(IsTableListTarget("/api/now/table/incident/0123456789abcdef0123456789abcdef"));
  EXPECT_FALSE(IsTableListTarget("/api/now/v1/batch"));
  EXPECT_FALSE(IsTableListTarget("/oauth_token.do"));
  EXPECT_FALSE(IsTableListTarget("/api/now/table/"));
}

}  // namespace
}  // namespace snowcar::servicenow
