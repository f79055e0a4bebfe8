// SPDX-License-Identifier: Apache-2.0
// redact::Mask (src/common/redact.cpp): the config module registers every secret it reads,
// so these are the guarantees it relies on.
#include "snowcar/common/redact.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace snowcar::redact {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string Base64(std::string_view in) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  unsigned buffer = 0;
  int bits = 0;
  for (unsigned char c : in) {
    buffer = (buffer << 8) | c;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out += kAlphabet[(buffer >> bits) & 63];
    }
  }
  if (bits > 0) out += kAlphabet[(buffer << (6 - bits)) & 63];
  while (out.size() % 4 != 0) out += '=';
  return out;
}

class RedactTest : public ::testing::Test {
 protected:
  void TearDown() override { ClearForTest(); }
};

TEST_F(RedactTest, AuthorizationSchemesMasked) {
  EXPECT_EQ(Mask("Authorization: Bearer eyJhbGciOi.J9x-y_z"), "Authorization: Bearer ***");
  EXPECT_EQ(Mask("header Basic dXNlcjpwYXNz== end"), "header Basic *** end");
  EXPECT_EQ(Mask("bearer abcdefghijkl"), "bearer ***");
}

TEST_F(RedactTest, JsonAndFormSecretFieldsMasked) {
  EXPECT_EQ(Mask(R"({"user":"a","password":"p@ss","access_token": "tok"})"),
            R"({"user":"a","password":"***","access_token": "***"})");
  EXPECT_EQ(Mask("grant_type=password&client_secret=abc&username=u"),
            "grant_type=password&client_secret=***&username=u");
}

// A URL's user-info is a credential whether or not anyone registered it: a refused snow.url,
// a Kafka property, a peer's error text.
TEST_F(RedactTest, UrlUserInfoMasked) {
  EXPECT_EQ(Mask("snow.url: 'https://svc:pw-9@acme.example/x' carries credentials"),
            "snow.url: 'https://svc:***@acme.example/x' carries credentials");
  EXPECT_EQ(Mask("http://tok3n@registry:8081"), "http://***@registry:8081");
  // The last '@' of the authority ends the user-info; '@' in a path is not user-info.
  EXPECT_EQ(Mask("see https://a:p@ss@h.example/p@q and http://h.example/a@b"),
            "see https://a:***@h.example/p@q and http://h.example/a@b");
  EXPECT_EQ(Mask(R"({"url":"https://u:secretpw@h"})"), R"({"url":"https://u:***@h"})");
  EXPECT_EQ(Mask("https://acme.example:8443/api"), "https://acme.example:8443/api");
}

TEST_F(RedactTest, UrlSecretsRegisteredStayMaskedOutsideTheUrl) {
  RegisterUrlSecrets("http://key:s3cret-value@registry.example,http://other.example");
  EXPECT_EQ(Mask("the password s3cret-value alone"), "the password [redacted] alone");
  EXPECT_THAT(Mask("Authorization: " + Base64("key:s3cret-value")), Not(HasSubstr("s3cr")));
}

TEST_F(RedactTest, OrdinaryTextUntouched) {
  EXPECT_EQ(Mask("table incident page 3 (500 rows)"), "table incident page 3 (500 rows)");
}

TEST_F(RedactTest, RegisteredSecretMaskedRawAndInsideBase64UserColonSecret) {
  const std::string secret = "correct-horse-battery";
  RegisterSecret(secret);
  EXPECT_EQ(Mask("login failed with " + secret + "!"), "login failed with [redacted]!");
  // Basic auth sends base64("user:secret"); the user name shifts the secret's alignment, so
  // try user names of every length modulo 3.
  for (const std::string user : {"a", "ab", "abc", "svc.integration"}) {
    const std::string encoded = Base64(std::string(user).append(":").append(secret));
    const std::string masked = Mask("sent " + encoded);
    EXPECT_THAT(masked, HasSubstr("[redacted]")) << user;
    EXPECT_THAT(masked, Not(HasSubstr(encoded))) << user;
  }
}

TEST_F(RedactTest, ShortValuesNotRegistered) {
  RegisterSecret("abc");
  EXPECT_EQ(Mask("abc abc"), "abc abc");
}

TEST_F(RedactTest, SecretNames) {
  EXPECT_TRUE(IsSecretName("snow.auth.password"));
  EXPECT_TRUE(IsSecretName("Client_Secret"));
  EXPECT_TRUE(IsSecretName("X-Auth-Token"));
  EXPECT_FALSE(IsSecretName("snow.auth.username"));
}

}  // namespace
}  // namespace snowcar::redact
