// SPDX-License-Identifier: Apache-2.0
// Drives auth and error paths at trace level against a hostile server that echoes every
// credential it gets back into its error messages, then searches everything the client
// printed or returned for the password, the client secret, base64 credentials and the
// issued tokens.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "client_harness.h"
#include "script_server.h"
#include "snowcar/common/log.h"
#include "snowcar/common/redact.h"

namespace snowcar::servicenow::testing {
namespace {

constexpr char kPassword[] = "Horse-Battery-Staple-77";
constexpr char kClientSecret[] = "client-secret-Zq9Xw2";
constexpr char kAccess1[] = "AT1-q8Jd7Lm2Np4Rs6Tv8Xz0Bc2De4Fg6Hj8Kl0Mn2Pq4";
constexpr char kAccess2[] = "AT2-z1Y2x3W4v5U6t7S8r9Q0p1O2n3M4l5K6j7I8h9G0";
constexpr char kRefresh[] = "RT-a9B8c7D6e5F4g3H2i1J0k9L8m7N6o5P4q3R2s1T0";
// base64("svc-user:Horse-Battery-Staple-77")
constexpr char kBasicBase64[] = "c3ZjLXVzZXI6SG9yc2UtQmF0dGVyeS1TdGFwbGUtNzc=";

std::string Echo(const std::string& text) {
  // A JSON string literal body (the test values need no escaping beyond quotes).
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

class CapturedLog {
 public:
  CapturedLog() {
    char path[] = "/tmp/snowcar-secrets-XXXXXX";
    fd_ = ::mkstemp(path);
    path_ = path;
    log::SetFd(fd_);
    log::SetLevel(log::Level::kTrace);
  }
  ~CapturedLog() {
    log::SetFd(2);
    log::SetLevel(log::Level::kInfo);
    ::close(fd_);
    ::unlink(path_.c_str());
  }
  std::string Text() const {
    std::ifstream in(path_);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

 private:
  int fd_ = -1;
  std::string path_;
};

void ExpectNoSecret(const std::string& where, const std::string& text) {
  for (const char* secret :
       {kPassword, kClientSecret, kAccess1, kAccess2, kRefresh, kBasicBase64}) {
    EXPECT_EQ(text.find(secret), std::string::npos) << where << " leaks " << secret << ":\n"
                                                    << text;
  }
}

TEST(SecretsTest, NothingLeaksThroughLogsOrErrors) {
  CapturedLog captured;
  IoThreads io;
  std::atomic<int> token_calls{0};
  ScriptServer server([&token_calls](const SeenRequest& req, int) {
    const std::string auth = req.Header("authorization");
    if (req.target == "/oauth_token.do") {
      int n = token_calls++;
      if (n == 0) {
        return Json(200, std::string(R"({"access_token":")") + kAccess1 + R"(","refresh_token":")" +
                             kRefresh + R"(","token_type":"Bearer","expires_in":1799})");
      }
      if (n == 1) {  // the refresh: refused, echoing the whole form back
        return Json(401, R"({"error":"server_error","error_description":"bad form )" +
                             Echo(req.body) + R"("})");
      }
      return Json(200, std::string(R"({"access_token":")") + kAccess2 +
                           R"(","token_type":"Bearer","expires_in":1799})");
    }
    // Table API: complain about whatever credentials came, quoting them.
    const int status = auth.find(kAccess2) != std::string::npos ? 400 : 401;
    return Json(status, R"({"error":{"message":"rejected )" + Echo(auth) +
                            R"(","detail":"header was )" + Echo(auth) +
                            R"("},"status":"failure"})");
  });
  server.Start();

  std::string everything;
  {
    ClientOptions o = BasicOptions(server.base_url());
    o.password = kPassword;
    o.auth_type = AuthType::kOAuth2;
    o.grant_type = GrantType::kPassword;
    o.client_id = "client-id";
    o.client_secret = kClientSecret;
    auto client = MakeClient(io.io(), o);
    CallResult r = SendAndWait(*client, io.io(), Get("/api/now/table/incident"));
    // 401 with AT1 -> refresh refused -> primary grant gives AT2 -> 400.
    EXPECT_EQ(r.klass, OutcomeClass::kPermanent) << r.message;
    EXPECT_EQ(token_calls.load(), 3);
    everything += r.message + "\n" + r.ToStatus().ToString() + "\n";
  }
  {
    ClientOptions o = BasicOptions(server.base_url());
    o.password = kPassword;
    auto client = MakeClient(io.io(), o);
    CallResult r = SendAndWait(*client, io.io(), Get("/api/now/table/incident"));
    EXPECT_EQ(r.klass, OutcomeClass::kUnauthorized);
    everything += r.message + "\n" + r.ToStatus().ToString() + "\n";
  }
  const std::string logs = captured.Text();
  if (std::getenv("SNOWCAR_SHOW_SECRETS_TEST")) std::cerr << everything << logs;
  EXPECT_NE(logs.find("snow.http.send"), std::string::npos) << "trace lines were written";
  EXPECT_NE(logs.find("snow.oauth.refresh_failed"), std::string::npos);
  ExpectNoSecret("results", everything);
  ExpectNoSecret("logs", logs);
  // The server did receive them (the test would prove nothing otherwise).
  bool saw_basic = false, saw_bearer = false;
  for (const auto& req : server.requests()) {
    saw_basic |= req.Header("authorization") == std::string("Basic ") + kBasicBase64;
    saw_bearer |= req.Header("authorization") == std::string("Bearer ") + kAccess1;
  }
  EXPECT_TRUE(saw_basic);
  EXPECT_TRUE(saw_bearer);
}

}  // namespace
}  // namespace snowcar::servicenow::testing
