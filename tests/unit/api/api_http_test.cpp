// SPDX-License-Identifier: Apache-2.0
#include "snowcar/api/api_http.h"

#include <gtest/gtest.h>

#include "json_test_util.h"
#include "snowcar/common/redact.h"
#include "snowcar/common/text.h"

namespace snowcar::api {
namespace {

using testing::ParseJson;

TEST(ApiResponse, ErrorHasTheOneShape) {
  ApiResponse r = ApiResponse::Error(404, "no such thing", "/v1/x");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(r.content_type, "application/json");
  const auto v = ParseJson(r.body);
  EXPECT_EQ(v.at("error").at("message"), "no such thing");
  EXPECT_EQ(v.at("error").at("path"), "/v1/x");
}

TEST(ApiResponse, ErrorMasksSecrets) {
  redact::RegisterSecret("TopSecretValue1");
  ApiResponse r =
      ApiResponse::Error(500, "login failed for TopSecretValue1, Bearer abc.def.ghi.jkl", "/p");
  EXPECT_EQ(r.body.find("TopSecretValue1"), std::string::npos) << r.body;
  EXPECT_EQ(r.body.find("abc.def.ghi"), std::string::npos) << r.body;
  redact::ClearForTest();
}

TEST(ApiResponse, InvalidUtf8BecomesReplacementCharacterAndValidUtf8Stays) {
  const std::string weird = std::string("a\xff") + "b\xc3" + "\xa9" + "\xed\xa0\x80" + "\xe2\x82";
  ApiResponse r = ApiResponse::Json(200, boost::json::object{{"v", weird}});
  const auto v = ParseJson(r.body);
  ASSERT_TRUE(v.is_object()) << r.body;
  EXPECT_EQ(v.at("v").as_string(),
            "a\xEF\xBF\xBD"
            "b\xC3\xA9"
            "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"
            "\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(ApiResponse, TextAndHeaders) {
  ApiResponse r = ApiResponse::Text(200, "x 1\n");
  EXPECT_EQ(r.content_type, "text/plain; charset=utf-8");
  r.headers.emplace_back("Allow", "POST");
  EXPECT_EQ(r.Header("ALLOW"), "POST");
  EXPECT_EQ(r.Header("missing"), "");
  EXPECT_EQ(HttpReasonPhrase(413), "Payload Too Large");
}

}  // namespace
}  // namespace snowcar::api
