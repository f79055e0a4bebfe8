// SPDX-License-Identifier: Apache-2.0
// docs/examples/production.properties is the file docs/production.md walks through: it must
// stay what the guide says it is (OAuth client credentials, SASL_SSL with SCRAM-SHA-512 and a
// CA file, source incident + change_request, sink to incident with correlation_lookup) and
// pass `snowcar config check`. The secret files and the CA it names live in the pod, so the
// check runs with temporary copies given through --set.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/child_process.h"
#include "support/temp_dir.h"

namespace snowcar {
namespace {

using namespace std::chrono_literals;

const std::string kExample =
    std::string(SNOWCAR_SOURCE_DIR) + "/docs/examples/production.properties";

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

testsupport::RunResult ConfigCheck(const std::vector<std::string>& sets) {
  testsupport::ChildOptions options;
  options.args = {"config", "check", kExample};
  for (const auto& s : sets) {
    options.args.push_back("--set");
    options.args.push_back(s);
  }
  // The pod's environment: POD_NAME names the replica (its static group member id).
  options.env = {{"POD_NAME", "snowcar-app-0"}};
  auto r = testsupport::RunToCompletion(SNOWCAR_BINARY, options, 30s);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : testsupport::RunResult{};
}

TEST(ProductionExampleTest, IsTheSetupTheGuideDescribes) {
  const std::string text = ReadAll(kExample);
  ASSERT_FALSE(text.empty()) << kExample;
  for (const char* line :
       {"snow.auth.type=oauth2\n", "snow.oauth.grant.type=client_credentials\n",
        "snow.oauth.client.secret.file=", "kafka.security.protocol=SASL_SSL\n",
        "kafka.sasl.mechanisms=SCRAM-SHA-512\n", "kafka.sasl.password.file=",
        "kafka.ssl.ca.location=", "snow.tables=incident,change_request\n",
        "snow.sink.table=incident\n", "snow.sink.create.ambiguous.behavior=correlation_lookup\n",
        "source.enabled=true\n", "sink.enabled=true\n"}) {
    EXPECT_NE(text.find(line), std::string::npos) << "the example lost: " << line;
  }
  // Secrets only ever by file: no inline password or client secret.
  EXPECT_EQ(text.find("snow.oauth.client.secret="), std::string::npos);
  EXPECT_EQ(text.find("kafka.sasl.password="), std::string::npos);
}

TEST(ProductionExampleTest, PassesConfigCheckWithItsSecretFilesPresent) {
  testsupport::TempDir dir("snowcar-production");
  const std::string client_secret = dir.File("snow-client-secret");
  const std::string kafka_password = dir.File("kafka-password");
  const std::string ca = dir.File("ca.crt");
  std::ofstream(client_secret) << "not-a-real-client-secret\n";
  std::ofstream(kafka_password) << "not-a-real-password\n";
  // A real PEM bundle where the machine has one, so a check that loads the CA file accepts it.
  std::error_code ec;
  if (!std::filesystem::copy_file("/etc/ssl/certs/ca-certificates.crt", ca, ec)) {
    std::ofstream(ca) << "\n";
  }

  // Without the secret files (they live in the pod): refused, naming each.
  const auto missing = ConfigCheck({"kafka.ssl.ca.location=" + ca});
  EXPECT_TRUE(missing.status.exited && missing.status.code == 2) << missing.status.ToString();
  EXPECT_NE(missing.err.find("snow.oauth.client.secret.file"), std::string::npos) << missing.err;
  EXPECT_NE(missing.err.find("kafka.sasl.password.file"), std::string::npos) << missing.err;

  const auto ok =
      ConfigCheck({"snow.oauth.client.secret.file=" + client_secret,
                   "kafka.sasl.password.file=" + kafka_password, "kafka.ssl.ca.location=" + ca});
  EXPECT_TRUE(ok.status.exited && ok.status.code == 0) << ok.status.ToString() << "\n" << ok.err;
  EXPECT_NE(ok.out.find("config OK"), std::string::npos) << ok.out;
  // The secrets' values never reach the output.
  EXPECT_EQ((ok.out + ok.err).find("not-a-real"), std::string::npos) << ok.out << ok.err;
}

}  // namespace
}  // namespace snowcar
