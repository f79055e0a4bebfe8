// SPDX-License-Identifier: Apache-2.0
#include "snowcar/servicenow/client_options.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>

#include "snowcar/common/redact.h"
#include "snowcar/config/config.h"

namespace snowcar::servicenow {
namespace {

TEST(ClientOptionsTest, DefaultsFromConfig) {
  auto config = config::Config::FromMap({{"snow.url", "https://acme.service-now.com/"},
                                         {"snow.auth.username", "svc"},
                                         {"snow.auth.password", "pw-abcdef"}});
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  auto o = ClientOptionsFromConfig(*config);
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->base_url, "https://acme.service-now.com");
  EXPECT_EQ(o->auth_type, AuthType::kBasic);
  EXPECT_EQ(o->connect_timeout_ms, 10000);
  EXPECT_EQ(o->request_timeout_ms, 60000);
  EXPECT_EQ(o->max_concurrent_requests, 8);
  EXPECT_EQ(o->max_response_bytes, 67108864);
  EXPECT_EQ(o->user_agent, "");  // the client sends DefaultUserAgent(), "snowcar/<version>"
  EXPECT_TRUE(o->adaptive_throttling);
  EXPECT_EQ(o->retry.max_attempts, 5);
  EXPECT_EQ(o->retry.max_elapsed_ms, 300000);
  EXPECT_EQ(o->retry.initial_backoff_ms, 500);
  EXPECT_EQ(o->retry.max_backoff_ms, 30000);
  EXPECT_TRUE(o->tls_verify);
  EXPECT_EQ(o->EffectiveTokenUrl(), "https://acme.service-now.com/oauth_token.do");
  EXPECT_EQ(redact::Mask("x pw-abcdef y").find("pw-abcdef"), std::string::npos);
}

// Credentials read from a `<key>.file` are passed on with their file, so the client can read
// a rotated Secret again; values given directly are not.
TEST(ClientOptionsTest, CredentialFilesNameWhereTheCredentialsCameFrom) {
  const std::string path = testing::TempDir() + "client-options-secret";
  std::ofstream(path, std::ios::trunc) << "csecret-from-file\n";
  auto config = config::Config::FromMap({{"snow.url", "https://acme.service-now.com"},
                                         {"snow.auth.type", "oauth2"},
                                         {"snow.oauth.client.id", "cid"},
                                         {"snow.oauth.client.secret.file", path}});
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  auto o = ClientOptionsFromConfig(*config);
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->client_secret, "csecret-from-file");
  EXPECT_EQ(o->credential_files,
            (std::map<std::string, std::string>{{"snow.oauth.client.secret", path}}));
  std::remove(path.c_str());
}

TEST(ClientOptionsTest, OAuthAndOverrides) {
  auto config = config::Config::FromMap({{"snow.url", "https://acme.service-now.com"},
                                         {"snow.auth.type", "oauth2"},
                                         {"snow.oauth.client.id", "cid"},
                                         {"snow.oauth.client.secret", "csecret-1234"},
                                         {"snow.http.user.agent", "acme-sync/2"},
                                         {"snow.http.max.concurrent.requests", "3"},
                                         {"snow.retry.max.attempts", "2"},
                                         {"snow.tls.verify", "false"}});
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  auto o = ClientOptionsFromConfig(*config);
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->auth_type, AuthType::kOAuth2);
  EXPECT_EQ(o->grant_type, GrantType::kClientCredentials);
  EXPECT_EQ(o->client_secret, "csecret-1234");
  EXPECT_EQ(o->user_agent, "acme-sync/2");
  EXPECT_EQ(o->max_concurrent_requests, 3);
  EXPECT_EQ(o->retry.max_attempts, 2);
  EXPECT_FALSE(o->tls_verify);
}

TEST(ClientOptionsTest, ValidateNamesTheMissingKey) {
  ClientOptions o;
  EXPECT_NE(o.Validate().message().find("snow.url"), std::string::npos);
  o.base_url = "ftp://x";
  EXPECT_NE(o.Validate().message().find("http"), std::string::npos);
  o.base_url = "https://x";
  EXPECT_NE(o.Validate().message().find("snow.auth.username"), std::string::npos);
  o.auth_type = AuthType::kOAuth2;
  EXPECT_NE(o.Validate().message().find("snow.oauth.client.id"), std::string::npos);
  o.client_id = "c";
  EXPECT_TRUE(o.Validate().ok());
}

}  // namespace
}  // namespace snowcar::servicenow
