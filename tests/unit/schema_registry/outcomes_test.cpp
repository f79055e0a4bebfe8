// SPDX-License-Identifier: Apache-2.0
// The Schema Registry's cells of the outcome table: each failure of the registry's catalogue
// made real by the registry double (its /_registry/fail knob, a refusing port, a name that does
// not resolve, TLS spoken to a plain-HTTP port), met by the real client's RegisterSchema and
// SchemaById, read as the verdict row and the Action this test expects; and docs/outcomes.md
// being exactly the table's rendering.
#include "snowcar/schema_registry/outcomes.h"

#include <curl/curl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "snowcar/schema_registry/client.h"
#include "snowcar/testbed/registry/registry_server.h"
#include "support/http_post.h"
#include "support/refusing_port.h"

namespace snowcar::schema_registry {
namespace {

using servicenow::Action;
using servicenow::CallPurpose;
using servicenow::FinalVerdict;
using ::testing::HasSubstr;

constexpr char kSchema[] =
    R"({"type":"record","name":"Row","namespace":"snowcar.test","fields":[
        {"name":"number","type":"string"}]})";

// What each failure must come to, written out here rather than derived: the row, whether the
// client resends it, and the cells of the source's registration and the sink's lookup.
struct Expected {
  FinalVerdict verdict;
  bool client_retries;
  Action register_schema;
  Action schema_by_id;
};
const std::map<std::string, Expected, std::less<>>& ExpectedOutcomes() {
  static const std::map<std::string, Expected, std::less<>> m = {
      {"409 incompatible", {FinalVerdict::kConflict, false, Action::kHold, Action::kRecordError}},
      {"409 Protobuf field number",
       {FinalVerdict::kConflict, false, Action::kHold, Action::kRecordError}},
      {"422 Protobuf refused",
       {FinalVerdict::kRefused, false, Action::kHold, Action::kRecordError}},
      {"422 invalid", {FinalVerdict::kRefused, false, Action::kHold, Action::kRecordError}},
      {"404 unknown id or subject",
       {FinalVerdict::kNotFound, false, Action::kHold, Action::kRecordError}},
      {"400", {FinalVerdict::kRefused, false, Action::kHold, Action::kRecordError}},
      {"401", {FinalVerdict::kPermission, false, Action::kHold, Action::kHold}},
      {"403", {FinalVerdict::kPermission, false, Action::kHold, Action::kHold}},
      {"429", {FinalVerdict::kTransient, true, Action::kHold, Action::kHold}},
      {"500", {FinalVerdict::kTransient, true, Action::kHold, Action::kHold}},
      {"503", {FinalVerdict::kTransient, true, Action::kHold, Action::kHold}},
      {"2xx not JSON", {FinalVerdict::kTransient, true, Action::kHold, Action::kHold}},
      {"timeout", {FinalVerdict::kTransient, true, Action::kHold, Action::kHold}},
      {"connection refused", {FinalVerdict::kTransient, true, Action::kHold, Action::kHold}},
      {"DNS failure", {FinalVerdict::kTransient, true, Action::kHold, Action::kHold}},
      {"TLS failure", {FinalVerdict::kTransient, true, Action::kHold, Action::kHold}},
  };
  return m;
}

TEST(RegistryOutcomes, OutcomesMarkdownIsCurrent) {
  const std::string path = std::string(SNOWCAR_SOURCE_DIR) + "/docs/outcomes.md";
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << path << " is missing; run make docs-outcomes";
  std::ostringstream file;
  file << in.rdbuf();
  EXPECT_TRUE(file.str() == RenderOutcomesMarkdown())
      << path << " differs from the decision table; run make docs-outcomes";
}

TEST(RegistryOutcomes, EveryErrorOfTheClientHasARow) {
  EXPECT_EQ(RegistryVerdictOf(Status::Ok()), FinalVerdict::kOk);
  EXPECT_EQ(RegistryVerdictOf(Status::Unavailable("x")), FinalVerdict::kTransient);
  EXPECT_EQ(RegistryVerdictOf(Status::DeadlineExceeded("x")), FinalVerdict::kTransient);
  EXPECT_EQ(RegistryVerdictOf(Status::FailedPrecondition("x")), FinalVerdict::kConflict);
  EXPECT_EQ(RegistryVerdictOf(Status::InvalidArgument("x")), FinalVerdict::kRefused);
  EXPECT_EQ(RegistryVerdictOf(Status::NotFound("x")), FinalVerdict::kNotFound);
  EXPECT_EQ(RegistryVerdictOf(Status::PermissionDenied("x")), FinalVerdict::kPermission);
  // Not the client's: what could not be done reads as a refusal.
  EXPECT_EQ(RegistryVerdictOf(Status::Internal("x")), FinalVerdict::kRefused);
}

// The catalogue holds the registry's failures, each read by the client's own answer reading
// as this test expects, and each rendered into docs/outcomes.md.
TEST(RegistryOutcomes, CatalogueReadsAsExpected) {
  std::set<std::string, std::less<>> seen;
  const std::string md = RenderOutcomesMarkdown();
  for (const RegistryFailure& f : RegistryFailureCatalogue()) {
    SCOPED_TRACE(std::string(f.name));
    const auto it = ExpectedOutcomes().find(f.name);
    ASSERT_NE(it, ExpectedOutcomes().end()) << "no expectation for this failure";
    seen.insert(std::string(f.name));
    const RegistryFinal final = RegistryFinalOf(f);
    EXPECT_EQ(final.verdict, it->second.verdict) << final.status.ToString();
    EXPECT_EQ(final.client_retries, it->second.client_retries);
    EXPECT_EQ(servicenow::Decide(final.verdict, CallPurpose::kRegisterSchema),
              it->second.register_schema);
    EXPECT_EQ(servicenow::Decide(final.verdict, CallPurpose::kSchemaById), it->second.schema_by_id);
    EXPECT_THAT(md, HasSubstr("| " + std::string(f.name) + " | " + std::string(f.what) + " |"));
  }
  EXPECT_EQ(seen.size(), ExpectedOutcomes().size()) << "a failure left the catalogue";
}

// ---- the real client against the registry double ---------------------------------------

class RegistryFailureTest : public ::testing::TestWithParam<size_t> {
 protected:
  void SetUp() override { ASSERT_TRUE(server_.Start().ok()); }
  void TearDown() override { server_.Stop(); }

  const RegistryFailure& failure() const { return RegistryFailureCatalogue()[GetParam()]; }

  RegistryOptions Options() const {
    RegistryOptions o;
    o.url = server_.base_url();
    o.retry.max_attempts = 2;
    o.retry.initial_backoff_ms = 1;
    o.retry.max_backoff_ms = 5;
    o.connect_timeout_ms = 3000;
    o.request_timeout_ms = 3000;
    return o;
  }

  // POST /_registry/fail with `query`.
  void Knob(const std::string& query) {
    const auto answer = testsupport::PostEmpty(server_.base_url() + "/_registry/fail?" + query);
    ASSERT_EQ(answer.status, 200) << answer.body;
  }
  static std::string Escape(std::string_view text) {
    char* e = curl_easy_escape(nullptr, text.data(), static_cast<int>(text.size()));
    std::string out(e);
    curl_free(e);
    return out;
  }

  // Makes the double (or the URL) meet every request with the failure; returns the options
  // the client is to use.
  RegistryOptions Arrange(const RegistryFailure& f) {
    RegistryOptions o = Options();
    if (f.http_status != 0) {
      Knob("count=-1&status=" + std::to_string(f.http_status) + "&body=" + Escape(f.body));
    } else if (f.timed_out) {
      o.request_timeout_ms = 200;
      Knob("count=-1&status=503&delay_ms=1000");
    } else if (f.name == "connection refused") {
      o.url = refusing_.http_url();
    } else if (f.name == "DNS failure") {
      o.url = "http://registry.snowcar-test.invalid:8081";
    } else if (f.name == "TLS failure") {
      o.url = "https://127.0.0.1:" + std::to_string(server_.port());  // plain HTTP answers
    } else {
      ADD_FAILURE() << "no way to make " << f.name << " happen";
    }
    return o;
  }

  registry::RegistryServer server_{registry::RegistryServerOptions{}};
  testsupport::RefusingPort refusing_;
};

TEST_P(RegistryFailureTest, TheClientsErrorReadsAsTheRowAndCellTheTableStates) {
  const RegistryFailure& f = failure();
  SCOPED_TRACE(std::string(f.name));
  const Expected& expected = ExpectedOutcomes().at(std::string(f.name));
  const RegistryOptions options = Arrange(f);
  auto client = SchemaRegistryClient::Create(options);
  ASSERT_TRUE(client.ok()) << client.status().ToString();

  // The source's call: registering a schema under its subject.
  auto id = (*client)->RegisterSchema("snow.incident-value", SchemaType::kAvro, kSchema);
  ASSERT_FALSE(id.ok()) << "registered as " << *id;
  EXPECT_EQ(RegistryVerdictOf(id.status()), expected.verdict) << id.status().ToString();
  EXPECT_EQ(DecideRegistryCall(id.status(), CallPurpose::kRegisterSchema),
            expected.register_schema);
  EXPECT_EQ(id.status().message().find("(after 2 attempts)") != std::string::npos,
            expected.client_retries)
      << id.status().message();

  // The sink's call: the writer schema of a framed command.
  auto schema = (*client)->SchemaById(1);
  ASSERT_FALSE(schema.ok());
  EXPECT_EQ(RegistryVerdictOf(schema.status()), expected.verdict) << schema.status().ToString();
  EXPECT_EQ(DecideRegistryCall(schema.status(), CallPurpose::kSchemaById), expected.schema_by_id);
}

INSTANTIATE_TEST_SUITE_P(Catalogue, RegistryFailureTest,
                         ::testing::Range<size_t>(0, RegistryFailureCatalogue().size()));

// Without the knob, the double's own refusals read the same: an id it never gave out, and an
// incompatible second version.
TEST(RegistryOutcomes, TheDoublesOwnRefusalsReadAsTheCatalogueSays) {
  registry::RegistryServer server{registry::RegistryServerOptions{}};
  ASSERT_TRUE(server.Start().ok());
  RegistryOptions o;
  o.url = server.base_url();
  auto client = SchemaRegistryClient::Create(o);
  ASSERT_TRUE(client.ok());
  auto unknown = (*client)->SchemaById(4242);
  EXPECT_EQ(RegistryVerdictOf(unknown.status()), FinalVerdict::kNotFound);
  EXPECT_EQ(DecideRegistryCall(unknown.status(), CallPurpose::kSchemaById), Action::kRecordError);
  ASSERT_TRUE((*client)->RegisterSchema("t-value", SchemaType::kAvro, kSchema).ok());
  auto changed = (*client)->RegisterSchema(
      "t-value", SchemaType::kAvro,
      R"({"type":"record","name":"Row","namespace":"snowcar.test","fields":[
          {"name":"number","type":"int"}]})");
  EXPECT_EQ(RegistryVerdictOf(changed.status()), FinalVerdict::kConflict)
      << changed.status().ToString();
  EXPECT_EQ(DecideRegistryCall(changed.status(), CallPurpose::kRegisterSchema), Action::kHold);
  server.Stop();
}

}  // namespace
}  // namespace snowcar::schema_registry
