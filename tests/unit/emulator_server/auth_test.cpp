// SPDX-License-Identifier: Apache-2.0
// Basic auth, OAuth's three grants, expiry by the emulator clock, and the 401 shapes.
#include <gtest/gtest.h>

#include "emulator_fixture.h"

namespace snowcar::emulator::testing {
namespace {

class Auth : public EmulatorTest {
 protected:
  HttpResult Token(const std::string& form) {
    InstanceRequest req;
    req.method = "POST";
    req.url = Url("/oauth_token.do");
    req.body = form;
    req.headers = {"Content-Type: application/x-www-form-urlencoded"};
    return Fetch(req);
  }
  HttpResult WithBearer(const std::string& token) {
    InstanceRequest req;
    req.url = Url("/api/now/table/incident?sysparm_limit=1");
    req.headers = {"Authorization: Bearer " + token};
    return Fetch(req);
  }
  static constexpr const char* kClient =
      "client_id=snowcar-emulator-client&client_secret=snowcar-emulator-secret";
};

TEST_F(Auth, BasicGoodCredentialsPass) {
  EXPECT_EQ(Get(Url("/api/now/table/incident?sysparm_limit=1")).status, 200);
}

TEST_F(Auth, MissingOrBadBasicIs401WithChallenge) {
  for (const char* creds : {"", "admin:wrong", "nobody:admin-emulator"}) {
    auto r = Get(Url("/api/now/table/incident"), creds);
    EXPECT_EQ(r.status, 401) << creds;
    EXPECT_EQ(r.Header("www-authenticate"), "Basic realm=\"Service-now\"");
    auto doc = Json(r.body);
    EXPECT_EQ(doc.at("error").at("message").as_string(), "User Not Authenticated");
    EXPECT_EQ(doc.at("status").as_string(), "failure");
  }
}

TEST_F(Auth, PasswordGrantGivesBothTokensAndNumericExpiry) {
  auto r = Token(std::string("grant_type=password&") + kClient +
                 "&username=admin&password=admin-emulator");
  ASSERT_EQ(r.status, 200) << r.body;
  auto doc = Json(r.body).as_object();
  EXPECT_EQ(doc.at("token_type").as_string(), "Bearer");
  EXPECT_EQ(doc.at("expires_in").as_int64(), 1799);
  EXPECT_EQ(doc.at("access_token").as_string().size(), 86u);
  EXPECT_TRUE(doc.contains("refresh_token"));
  EXPECT_TRUE(doc.contains("scope"));
  auto api = WithBearer(std::string(doc.at("access_token").as_string()));
  EXPECT_EQ(api.status, 200);
  EXPECT_EQ(server_->journal().All().back().auth, "bearer");
}

TEST_F(Auth, ClientCredentialsGrant) {
  auto r = Token(std::string("grant_type=client_credentials&") + kClient);
  ASSERT_EQ(r.status, 200) << r.body;
  auto token = std::string(Json(r.body).at("access_token").as_string());
  EXPECT_EQ(WithBearer(token).status, 200);
}

TEST_F(Auth, RefreshGrantAndExpiryByTheClock) {
  server_->oauth().SetLifetimes(60, 3600);
  auto r = Token(std::string("grant_type=password&") + kClient +
                 "&username=admin&password=admin-emulator");
  ASSERT_EQ(r.status, 200);
  auto doc = Json(r.body);
  EXPECT_EQ(doc.at("expires_in").as_int64(), 59);
  const std::string access(doc.at("access_token").as_string());
  const std::string refresh(doc.at("refresh_token").as_string());
  EXPECT_EQ(WithBearer(access).status, 200);

  server_->clock().Advance(int64_t{61} * 1000);
  auto expired = WithBearer(access);
  EXPECT_EQ(expired.status, 401);
  EXPECT_EQ(Json(expired.body).at("status").as_string(), "failure");

  auto again =
      Token(std::string("grant_type=refresh_token&") + kClient + "&refresh_token=" + refresh);
  ASSERT_EQ(again.status, 200) << again.body;
  const std::string fresh(Json(again.body).at("access_token").as_string());
  EXPECT_NE(fresh, access);
  EXPECT_EQ(WithBearer(fresh).status, 200);

  server_->clock().Advance(int64_t{3601} * 1000);  // the refresh token is now expired too
  auto dead =
      Token(std::string("grant_type=refresh_token&") + kClient + "&refresh_token=" + refresh);
  EXPECT_EQ(dead.status, 401);
}

TEST_F(Auth, BadClientUserOrRefreshTokenIs401WithOAuthShape) {
  const std::string expected = R"({"error_description":"access_denied","error":"server_error"})";
  for (const std::string& form :
       {std::string("grant_type=password&client_id=x&client_secret=y&username=admin&password=admin-"
                    "emulator"),
        std::string("grant_type=password&") + kClient + "&username=admin&password=bad",
        std::string("grant_type=refresh_token&") + kClient + "&refresh_token=unknown",
        std::string("grant_type=nonsense&") + kClient}) {
    auto r = Token(form);
    EXPECT_EQ(r.status, 401) << form;
    EXPECT_EQ(r.body, expected) << form;
  }
}

TEST_F(Auth, TokenEndpointReadsOnlyFormBodies) {
  InstanceRequest req;
  req.method = "POST";
  req.url = Url("/oauth_token.do");
  req.body =
      R"({"grant_type":"client_credentials","client_id":"snowcar-emulator-client","client_secret":"snowcar-emulator-secret"})";
  req.headers = {"Content-Type: application/json"};
  EXPECT_EQ(Fetch(req).status, 401);
}

TEST_F(Auth, UnknownBearerIs401) { EXPECT_EQ(WithBearer("not-a-token").status, 401); }

}  // namespace
}  // namespace snowcar::emulator::testing
