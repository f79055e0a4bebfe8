// SPDX-License-Identifier: Apache-2.0
// The sink's column of the Schema Registry's outcomes (docs/outcomes.md, "schema by id"): each
// failure of the registry's catalogue made real by the registry double, met by a lane decoding
// a framed command through the real client and decoder (one registry request per lane attempt,
// as the sink configures it), ends as the outcome table says:
//   record error  exactly one DLQ record holding the record as it came, its offset stored
//                 (behavior.on.api.errors=log);
//   hold          the lane keeps the record (class SCHEMA_REGISTRY_UNAVAILABLE), stores no
//                 offset, dead-letters nothing, and writes it once the registry answers again.
#include <curl/curl.h>
#include <gtest/gtest.h>

#include "lane_rig.h"
#include "snowcar/schema_registry/client.h"
#include "snowcar/schema_registry/framed_decoder.h"
#include "snowcar/schema_registry/outcomes.h"
#include "snowcar/schema_registry/wire_format.h"
#include "snowcar/testbed/registry/registry_server.h"
#include "support/fake_table_client.h"
#include "support/http_post.h"
#include "support/refusing_port.h"

namespace snowcar::sinktest {
namespace {

using namespace std::chrono_literals;
using schema_registry::RegistryFailure;
using servicenow::Action;
using servicenow::CallPurpose;
using servicenow::CallResult;
using servicenow::InstanceRequest;
using servicenow::Method;
using testsupport::WaitFor;

constexpr char kCommandSchema[] =
    R"({"type":"object","properties":{"short_description":{"type":"string"}}})";

class RegistryOutcomeTest : public ::testing::TestWithParam<size_t> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.Start().ok());
    schema_registry::RegistryOptions o;
    o.url = server_.base_url();
    auto client = schema_registry::SchemaRegistryClient::Create(o);
    ASSERT_TRUE(client.ok());
    auto id =
        (*client)->RegisterSchema("cmds-value", schema_registry::SchemaType::kJson, kCommandSchema);
    ASSERT_TRUE(id.ok()) << id.status().ToString();
    schema_id_ = *id;
  }
  void TearDown() override { server_.Stop(); }

  void Knob(const std::string& query) {
    const auto answer = testsupport::PostEmpty(server_.base_url() + "/_registry/fail?" + query);
    ASSERT_EQ(answer.status, 200) << answer.body;
  }

  // Makes every registry request meet `f`; false when the failure is in the client's URL (the
  // registry cannot be healed for this client then).
  bool Arrange(const RegistryFailure& f, schema_registry::RegistryOptions& o) {
    if (f.http_status != 0) {
      char* body = curl_easy_escape(nullptr, f.body.data(), static_cast<int>(f.body.size()));
      Knob("count=-1&status=" + std::to_string(f.http_status) + "&body=" + body);
      curl_free(body);
      return true;
    }
    if (f.timed_out) {
      o.request_timeout_ms = 200;
      Knob("count=-1&status=503&delay_ms=1000");
      return true;
    }
    if (f.name == "connection refused") {
      o.url = refusing_.http_url();
    } else if (f.name == "DNS failure") {
      o.url = "http://registry.snowcar-test.invalid:8081";
    } else if (f.name == "TLS failure") {
      o.url = "https://127.0.0.1:" + std::to_string(server_.port());
    } else {
      ADD_FAILURE() << "no way to make " << f.name << " happen";
    }
    return false;
  }

  registry::RegistryServer server_{registry::RegistryServerOptions{}};
  testsupport::RefusingPort refusing_;
  int32_t schema_id_ = 0;
};

TEST_P(RegistryOutcomeTest, TheSchemaByIdCellEndsAsTheTableSays) {
  const RegistryFailure& f = schema_registry::RegistryFailureCatalogue()[GetParam()];
  SCOPED_TRACE(std::string(f.name));
  const schema_registry::RegistryFinal final = schema_registry::RegistryFinalOf(f);
  const Action action = servicenow::Decide(final.verdict, CallPurpose::kSchemaById);
  ASSERT_TRUE(action == Action::kHold || action == Action::kRecordError)
      << "a lane cannot end in " << servicenow::ActionName(action);

  schema_registry::RegistryOptions o;
  o.url = server_.base_url();
  o.retry.max_attempts = 1;  // as the sink configures it: the lane's back-off is the retry loop
  o.connect_timeout_ms = 3000;
  o.request_timeout_ms = 3000;
  const bool healable = Arrange(f, o);
  auto client = schema_registry::SchemaRegistryClient::Create(o);
  ASSERT_TRUE(client.ok());
  schema_registry::FramedDecoder decoder(**client);

  testsupport::FakeTableClient table_api([](const InstanceRequest& r) -> CallResult {
    if (r.method == Method::kPatch) return Ok({{"sys_id", SysId(1)}});
    return testsupport::FakeTableClient::Empty(404);
  });
  sink::SinkSettings s;
  s.on_api_errors = sink::ApiErrorBehavior::kLog;
  s.dlq_topic = "cmds.dlq";
  LaneRig rig(table_api, 2, s);
  rig.set_decoder(&decoder);
  auto lane = rig.Lane("cmds", 0);
  kafka::InRecord record = Record("cmds", 0, 0, SysId(1), std::nullopt);
  record.value = schema_registry::Frame(schema_id_, R"({"short_description":"framed"})");
  const std::string as_it_came = *record.value;
  lane->Enqueue(std::move(record));

  const auto dlq = [&] {
    std::vector<kafka::OutRecord> out;
    for (const auto& r : rig.producer().acknowledged()) {
      if (r.topic == "cmds.dlq") out.push_back(r);
    }
    return out;
  };
  if (action == Action::kRecordError) {
    ASSERT_TRUE(WaitFor([&] { return rig.Completed(0).size() == 1; }, 10s))
        << lane->Snapshot().last_error_class << " " << lane->Snapshot().last_error;
    EXPECT_EQ(rig.Completed(0), std::vector<int64_t>{1});
    ASSERT_EQ(dlq().size(), 1u) << "exactly one DLQ record";
    EXPECT_EQ(dlq()[0].value, as_it_came) << "the DLQ keeps the record as it came";
    EXPECT_EQ(table_api.request_count(), 0u) << "nothing is written";
    return;
  }
  ASSERT_TRUE(WaitFor([&] { return lane->Snapshot().retries >= 2; }, 10s))
      << lane->Snapshot().last_error_class << " " << lane->Snapshot().last_error;
  const sink::LaneStatus held = lane->Snapshot();
  EXPECT_EQ(held.last_error_class, "SCHEMA_REGISTRY_UNAVAILABLE") << held.last_error;
  EXPECT_TRUE(rig.Completed(0).empty()) << "no offset moves while held";
  EXPECT_TRUE(dlq().empty()) << "nothing dead-lettered";
  EXPECT_TRUE(rig.Failed().empty());
  EXPECT_EQ(table_api.request_count(), 0u);
  if (!healable) return;
  Knob("count=0");  // the registry answers again
  ASSERT_TRUE(WaitFor([&] { return rig.Completed(0).size() == 1; }, 10s)) << "resumes";
  EXPECT_TRUE(dlq().empty());
  EXPECT_EQ(table_api.request_count(), 1u) << "written once";
}

INSTANTIATE_TEST_SUITE_P(
    Catalogue, RegistryOutcomeTest,
    ::testing::Range<size_t>(0, schema_registry::RegistryFailureCatalogue().size()));

}  // namespace
}  // namespace snowcar::sinktest
