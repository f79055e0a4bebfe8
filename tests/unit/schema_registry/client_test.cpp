// SPDX-License-Identifier: Apache-2.0
// The client against the registry double, over a real loopback socket.
#include "snowcar/schema_registry/client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "snowcar/state/state_store.h"
#include "snowcar/testbed/registry/registry_server.h"
#include "support/http_post.h"
#include "support/refusing_port.h"
#include "support/temp_dir.h"

namespace snowcar::schema_registry {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kV1[] =
    R"({"type":"record","name":"Command","namespace":"snowcar.test","fields":[
        {"name":"short_description","type":"string"}]})";
// v1 plus an optional field: BACKWARD compatible.
constexpr char kV2[] =
    R"({"type":"record","name":"Command","namespace":"snowcar.test","fields":[
        {"name":"short_description","type":"string"},
        {"name":"priority","type":["null","string"],"default":null}]})";
// v1 plus a field without a default: refused under BACKWARD.
constexpr char kNoDefault[] =
    R"({"type":"record","name":"Command","namespace":"snowcar.test","fields":[
        {"name":"short_description","type":"string"},
        {"name":"impact","type":"int"}]})";

class ClientTest : public ::testing::Test {
 protected:
  void SetUp() override { StartServer({}); }

  void StartServer(registry::RegistryServerOptions o) {
    server_ = std::make_unique<registry::RegistryServer>(std::move(o));
    ASSERT_TRUE(server_->Start().ok());
  }

  RegistryOptions Options() const {
    RegistryOptions o;
    o.url = server_->base_url();
    o.retry.initial_backoff_ms = 1;
    o.retry.max_backoff_ms = 5;
    return o;
  }

  std::unique_ptr<SchemaRegistryClient> Client(RegistryOptions o,
                                               state::StateStore* store = nullptr) {
    auto c = SchemaRegistryClient::Create(o, store);
    EXPECT_TRUE(c.ok()) << c.status().message();
    return c.ok() ? std::move(c).value() : nullptr;
  }

  // A raw request to the double, for the test knob.
  void Post(const std::string& path) {
    const auto answer = testsupport::PostEmpty(server_->base_url() + path);
    ASSERT_EQ(answer.status, 200) << answer.body;
  }

  std::unique_ptr<registry::RegistryServer> server_;
};

TEST_F(ClientTest, RegisterIsIdempotentAndIdsResolve) {
  auto client = Client(Options());
  auto id = client->RegisterSchema("t-value", SchemaType::kAvro, kV1);
  ASSERT_TRUE(id.ok()) << id.status().message();
  // A second client (no shared cache) gets the same id from the registry.
  auto again = Client(Options())->RegisterSchema("t-value", SchemaType::kAvro, kV1);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *id);

  auto fresh = Client(Options());
  auto schema = fresh->SchemaById(*id);
  ASSERT_TRUE(schema.ok()) << schema.status().message();
  EXPECT_EQ(schema->id, *id);
  EXPECT_EQ(schema->type, SchemaType::kAvro);
  EXPECT_EQ(schema->schema, kV1);
}

TEST_F(ClientTest, CompatibleVersionGetsANewIdAndIncompatibleOneCarriesTheRegistrysWords) {
  auto client = Client(Options());
  const int32_t v1 = *client->RegisterSchema("t-value", SchemaType::kAvro, kV1);
  EXPECT_TRUE(*client->IsCompatible("t-value", SchemaType::kAvro, kV2));
  auto v2 = client->RegisterSchema("t-value", SchemaType::kAvro, kV2);
  ASSERT_TRUE(v2.ok()) << v2.status().message();
  EXPECT_NE(*v2, v1);

  EXPECT_FALSE(*client->IsCompatible("t-value", SchemaType::kAvro, kNoDefault));
  auto refused = client->RegisterSchema("t-value", SchemaType::kAvro, kNoDefault);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_TRUE(IsRegistryRefusal(refused.status()));
  EXPECT_THAT(refused.status().message(), HasSubstr("409"));
  EXPECT_THAT(refused.status().message(), HasSubstr("impact"));
  EXPECT_THAT(refused.status().message(), HasSubstr("without a default"));
}

TEST_F(ClientTest, NewSubjectIsCompatibleWithAnything) {
  auto c = Client(Options())->IsCompatible("fresh-value", SchemaType::kAvro, kNoDefault);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_TRUE(*c);
}

TEST_F(ClientTest, InvalidSchemaIs422) {
  auto r = Client(Options())->RegisterSchema("t-value", SchemaType::kAvro,
                                             R"({"type":"record","name":"X"})");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("42201"));
  EXPECT_TRUE(IsRegistryRefusal(r.status()));
}

TEST_F(ClientTest, UnknownIdIsNotFound) {
  auto r = Client(Options())->SchemaById(4711);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(r.status().message(), HasSubstr("40403"));
}

TEST_F(ClientTest, JsonSchemaTypeTravels) {
  auto client = Client(Options());
  const std::string schema = R"({"type":"object","properties":{"a":{"type":"string"}}})";
  const int32_t id = *client->RegisterSchema("j-value", SchemaType::kJson, schema);
  auto back = Client(Options())->SchemaById(id);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->type, SchemaType::kJson);
  EXPECT_EQ(back->schema, schema);
}

TEST_F(ClientTest, ServerErrorsAreRetried) {
  Post("/_registry/fail?count=2&status=503");
  auto id = Client(Options())->RegisterSchema("t-value", SchemaType::kAvro, kV1);
  ASSERT_TRUE(id.ok()) << id.status().message();
}

TEST_F(ClientTest, ServerErrorsBeyondTheAttemptsAreUnavailable) {
  Post("/_registry/fail?count=3&status=500");
  RegistryOptions o = Options();
  o.retry.max_attempts = 3;
  auto id = Client(o)->RegisterSchema("t-value", SchemaType::kAvro, kV1);
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.status().code(), StatusCode::kUnavailable);
  EXPECT_FALSE(IsRegistryRefusal(id.status()));
  EXPECT_THAT(id.status().message(), HasSubstr("after 3 attempts"));
}

TEST_F(ClientTest, UnreachableRegistryIsUnavailable) {
  const testsupport::RefusingPort gone;  // refuses connections; no other test can take it
  RegistryOptions o = Options();
  o.url = gone.http_url();
  o.retry.max_attempts = 2;
  auto id = Client(o)->RegisterSchema("t-value", SchemaType::kAvro, kV1);
  ASSERT_FALSE(id.ok());
  EXPECT_TRUE(id.status().retriable()) << id.status().ToString();
  EXPECT_THAT(id.status().message(), HasSubstr("after 2 attempts"));
}

TEST_F(ClientTest, BasicAuthIsSentAndWrongCredentialsAreNamedWithoutTheSecret) {
  server_->Stop();
  StartServer({.user = "sr-user", .password = "sr-password-123"});
  RegistryOptions o = Options();
  o.basic_auth_user_info = "sr-user:sr-password-123";
  ASSERT_TRUE(Client(o)->RegisterSchema("t-value", SchemaType::kAvro, kV1).ok());

  o.basic_auth_user_info = "sr-user:wrong-password-456";
  auto denied = Client(o)->RegisterSchema("t-value", SchemaType::kAvro, kV2);
  ASSERT_FALSE(denied.ok());
  EXPECT_EQ(denied.status().code(), StatusCode::kPermissionDenied);
  EXPECT_THAT(denied.status().message(), Not(HasSubstr("wrong-password-456")));
  EXPECT_THAT(denied.status().message(), HasSubstr("basic.auth.user.info"));
}

TEST_F(ClientTest, CredentialsFromTheUrlWhenTheSourceIsUrl) {
  server_->Stop();
  StartServer({.user = "sr-user", .password = "url-password-789"});
  RegistryOptions o = Options();
  const std::string host = o.url.substr(std::string("http://").size());
  o.basic_auth_credentials_source = "URL";
  o.url = "http://sr-user:url-password-789@" + host;
  ASSERT_TRUE(Client(o)->RegisterSchema("t-value", SchemaType::kAvro, kV1).ok());

  o.url = "http://sr-user:bad-url-password-321@" + host;
  auto denied = Client(o)->RegisterSchema("t-value", SchemaType::kAvro, kV2);
  ASSERT_FALSE(denied.ok());
  EXPECT_EQ(denied.status().code(), StatusCode::kPermissionDenied);
  EXPECT_THAT(denied.status().message(), Not(HasSubstr("bad-url-password-321")));
}

TEST_F(ClientTest, PersistedCacheAnswersAfterARestartWithoutTheRegistry) {
  testsupport::TempDir dir("sr-cache");
  int32_t id = 0;
  {
    auto store = state::StateStore::Open({.dir = dir.File("state")});
    ASSERT_TRUE(store.ok()) << store.status().message();
    id = *Client(Options(), store->get())->RegisterSchema("t-value", SchemaType::kAvro, kV1);
  }
  const RegistryOptions o = Options();
  server_->Stop();  // from here on every round trip would fail
  auto store = state::StateStore::Open({.dir = dir.File("state")});
  ASSERT_TRUE(store.ok());
  auto client = Client(o, store->get());
  auto again = client->RegisterSchema("t-value", SchemaType::kAvro, kV1);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(*again, id);
  auto schema = client->SchemaById(id);
  ASSERT_TRUE(schema.ok()) << schema.status().message();
  EXPECT_EQ(schema->schema, kV1);
  // Something never registered still needs the registry, which is gone.
  RegistryOptions one = o;
  one.retry.max_attempts = 1;
  EXPECT_FALSE(Client(one, store->get())->SchemaById(id + 1).ok());
}

TEST(RegistryOptionsTest, ValidateNamesTheKey) {
  RegistryOptions o;
  o.url = "ftp://x";
  EXPECT_THAT(o.Validate().message(), HasSubstr("schema.registry.url"));
  o.url = "http://x";
  o.basic_auth_user_info = "no-colon";
  EXPECT_THAT(o.Validate().message(), HasSubstr("user:password"));
  EXPECT_FALSE(SchemaRegistryClient::Create(RegistryOptions{}).ok());
}

}  // namespace
}  // namespace snowcar::schema_registry
