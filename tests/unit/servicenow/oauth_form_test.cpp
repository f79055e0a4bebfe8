// SPDX-License-Identifier: Apache-2.0
#include "snowcar/servicenow/oauth_form.h"

#include <gtest/gtest.h>

#include "snowcar/common/redact.h"

namespace snowcar::servicenow {
namespace {

ClientOptions Options() {
  ClientOptions o;
  o.base_url = "https://acme.service-now.com";
  o.auth_type = AuthType::kOAuth2;
  o.client_id = "client id";
  o.client_secret = "s3cr&t=value";
  o.username = "integration";
  o.password = "p@ss word";
  return o;
}

TEST(OAuthFormTest, Grants) {
  ClientOptions o = Options();
  EXPECT_EQ(PrimaryGrantForm(o),
            "grant_type=client_credentials&client_id=client%20id&client_secret=s3cr%26t%3Dvalue");
  o.grant_type = GrantType::kPassword;
  o.scope = "useraccount";
  EXPECT_EQ(PrimaryGrantForm(o),
            "grant_type=password&client_id=client%20id&client_secret=s3cr%26t%3Dvalue&"
            "username=integration&password=p%40ss%20word&scope=useraccount");
  EXPECT_EQ(RefreshGrantForm(o, "r+t"),
            "grant_type=refresh_token&client_id=client%20id&client_secret=s3cr%26t%3Dvalue&"
            "refresh_token=r%2Bt");
}

TEST(OAuthFormTest, TokenUrlDefault) {
  ClientOptions o = Options();
  EXPECT_EQ(o.EffectiveTokenUrl(), "https://acme.service-now.com/oauth_token.do");
  o.token_url = "{snow.url}/oauth_token.do";
  EXPECT_EQ(o.EffectiveTokenUrl(), "https://acme.service-now.com/oauth_token.do");
  o.token_url = "https://sso.example/token";
  EXPECT_EQ(o.EffectiveTokenUrl(), "https://sso.example/token");
}

TEST(OAuthFormTest, Answers) {
  InstanceResponse ok{200, {}, R"({"access_token":"abc","token_type":"Bearer","expires_in":"60"})"};
  auto t = ParseTokenAnswer(ok);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->access_token, "abc");
  EXPECT_EQ(t->refresh_token, "");
  EXPECT_EQ(t->expires_in_seconds, 60);

  InstanceResponse no_token{200, {}, R"({"token_type":"Bearer"})"};
  EXPECT_EQ(ParseTokenAnswer(no_token).status().code(), StatusCode::kUnavailable);
  InstanceResponse down{503, {}, "<html>down</html>"};
  EXPECT_EQ(ParseTokenAnswer(down).status().code(), StatusCode::kUnavailable);
  InstanceResponse bad{400, {}, R"({"error":"invalid_request"})"};
  EXPECT_EQ(ParseTokenAnswer(bad).status().code(), StatusCode::kPermissionDenied);
}

TEST(OAuthFormTest, RefusalNeverEchoesTheSecret) {
  redact::RegisterSecret("s3cr&t=value");
  // A server that echoes the form back in its error must not leak it through us.
  InstanceResponse echo{
      401, {}, R"({"error":"server_error","error_description":"bad s3cr&t=value"})"};
  auto t = ParseTokenAnswer(echo);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message().find("s3cr&t=value"), std::string::npos) << t.status().message();
  redact::ClearForTest();
}

}  // namespace
}  // namespace snowcar::servicenow
