// SPDX-License-Identifier: Apache-2.0
// The registry double's REST answers over a real socket: paths, status codes, error codes.
#include <curl/curl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>

#include "snowcar/testbed/registry/registry_server.h"

namespace snowcar::registry {
namespace {

namespace json = boost::json;

struct Reply {
  long status = 0;  // NOLINT(google-runtime-int): libcurl's type
  json::value body;
};

class RegistryRestTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(server_.Start().ok()); }

  Reply Call(const std::string& method, const std::string& path, const std::string& body = "") {
    CURL* e = curl_easy_init();
    std::string out;
    const std::string url = server_.base_url() + path;
    curl_easy_setopt(e, CURLOPT_URL, url.c_str());
    curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, method.c_str());
    curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers);
    if (!body.empty() || method == "POST" || method == "PUT") {
      curl_easy_setopt(e, CURLOPT_POSTFIELDS, body.c_str());
    }
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &out);
    curl_easy_setopt(
        e, CURLOPT_WRITEFUNCTION, +[](char* d, size_t s, size_t n, void* u) {
          static_cast<std::string*>(u)->append(d, s * n);
          return s * n;
        });
    Reply r;
    EXPECT_EQ(curl_easy_perform(e), CURLE_OK);
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &r.status);
    curl_slist_free_all(headers);
    curl_easy_cleanup(e);
    boost::system::error_code ec;
    r.body = json::parse(out, ec);
    EXPECT_FALSE(ec) << out;
    return r;
  }

  static std::string Body(const std::string& schema, const std::string& type = "") {
    json::object o{{"schema", schema}};
    if (!type.empty()) o["schemaType"] = type;
    return json::serialize(o);
  }

  static int64_t Code(const Reply& r) { return r.body.as_object().at("error_code").as_int64(); }

  RegistryServer server_{{}};
};

const std::string kV1 = R"({"type":"record","name":"C","fields":[{"name":"a","type":"string"}]})";
const std::string kV2 =
    R"({"type":"record","name":"C","fields":[{"name":"a","type":"string"},{"name":"b","type":"string","default":""}]})";
const std::string kBad = R"({"type":"record","name":"C","fields":[{"name":"a","type":"int"}]})";

TEST_F(RegistryRestTest, SubjectsVersionsAndIds) {
  EXPECT_EQ(Call("GET", "/subjects").body, json::array{});
  Reply first = Call("POST", "/subjects/t-value/versions", Body(kV1));
  ASSERT_EQ(first.status, 200);
  const int64_t id1 = first.body.at("id").as_int64();
  // Same schema, other spacing: same id, no new version.
  Reply same =
      Call("POST", "/subjects/t-value/versions",
           Body(R"({"type": "record", "name": "C", "fields": [{"name": "a", "type": "string"}]})"));
  EXPECT_EQ(same.body.at("id").as_int64(), id1);
  const int64_t id2 =
      Call("POST", "/subjects/t-value/versions", Body(kV2)).body.at("id").as_int64();
  EXPECT_NE(id2, id1);
  // Another subject with an existing schema shares its id.
  EXPECT_EQ(Call("POST", "/subjects/u-value/versions", Body(kV1)).body.at("id").as_int64(), id1);

  EXPECT_EQ(Call("GET", "/subjects").body, (json::array{"t-value", "u-value"}));
  EXPECT_EQ(Call("GET", "/subjects/t-value/versions").body, (json::array{1, 2}));
  Reply latest = Call("GET", "/subjects/t-value/versions/latest");
  EXPECT_EQ(latest.body.at("version").as_int64(), 2);
  EXPECT_EQ(latest.body.at("id").as_int64(), id2);
  EXPECT_EQ(latest.body.at("schema").as_string(), kV2);
  EXPECT_EQ(Call("GET", "/subjects/t-value/versions/1").body.at("id").as_int64(), id1);
  EXPECT_EQ(Call("GET", "/schemas/ids/" + std::to_string(id1)).body.at("schema").as_string(), kV1);
  Reply lookup = Call("POST", "/subjects/t-value", Body(kV2));
  EXPECT_EQ(lookup.body.at("version").as_int64(), 2);
}

TEST_F(RegistryRestTest, ErrorCodes) {
  Reply no_subject = Call("GET", "/subjects/nope/versions");
  EXPECT_EQ(no_subject.status, 404);
  EXPECT_EQ(Code(no_subject), 40401);
  EXPECT_EQ(Code(Call("GET", "/schemas/ids/77")), 40403);
  ASSERT_EQ(Call("POST", "/subjects/t-value/versions", Body(kV1)).status, 200);
  Reply no_version = Call("GET", "/subjects/t-value/versions/9");
  EXPECT_EQ(no_version.status, 404);
  EXPECT_EQ(Code(no_version), 40402);
  EXPECT_EQ(Code(Call("POST", "/subjects/t-value", Body(kV2))), 40403);

  Reply invalid = Call("POST", "/subjects/t-value/versions", Body(R"({"type":"recrd"})"));
  EXPECT_EQ(invalid.status, 422);
  EXPECT_EQ(Code(invalid), 42201);
  Reply incompatible = Call("POST", "/subjects/t-value/versions", Body(kBad));
  EXPECT_EQ(incompatible.status, 409);
  EXPECT_EQ(Code(incompatible), 409);
  EXPECT_THAT(std::string(incompatible.body.at("message").as_string()),
              ::testing::HasSubstr("type changed from string to int"));
  EXPECT_EQ(Code(Call("PUT", "/config", R"({"compatibility":"SIDEWAYS"})")), 42203);
}

// The test knob: a failure for N requests (or all, until the next setting), with the error
// code, message or verbatim body asked for; a setting out of range is refused and changes
// nothing.
TEST_F(RegistryRestTest, FailKnob) {
  ASSERT_EQ(
      Call("POST", "/_registry/fail?count=2&status=409&error_code=409&message=no%20way").status,
      200);
  for (int i = 0; i < 2; ++i) {
    Reply r = Call("GET", "/subjects");
    EXPECT_EQ(r.status, 409);
    EXPECT_EQ(Code(r), 409);
    EXPECT_EQ(r.body.at("message").as_string(), "no way");
  }
  EXPECT_EQ(Call("GET", "/subjects").status, 200) << "two requests only";

  ASSERT_EQ(Call("POST", "/_registry/fail?count=-1&status=200&body=%7B%7D").status, 200);
  for (int i = 0; i < 3; ++i) {
    Reply r = Call("GET", "/schemas/ids/1");
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(json::serialize(r.body), "{}") << "the body verbatim";
  }
  EXPECT_EQ(Call("POST", "/_registry/fail?status=700").status, 400);
  EXPECT_EQ(Call("POST", "/_registry/fail?count=x").status, 400);
  EXPECT_EQ(Call("GET", "/schemas/ids/1").status, 200) << "a refused setting changes nothing";
  ASSERT_EQ(Call("POST", "/_registry/fail?count=0").status, 200);
  EXPECT_EQ(Call("GET", "/schemas/ids/1").status, 404) << "count=0 ends the failure";

  ASSERT_EQ(Call("POST", "/_registry/fail?status=503&delay_ms=300").status, 200);
  const auto start = std::chrono::steady_clock::now();
  Reply slow = Call("GET", "/subjects");
  EXPECT_EQ(slow.status, 503);
  EXPECT_EQ(Code(slow), 50301);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(300));
}

TEST_F(RegistryRestTest, CompatibilityEndpointAndLevels) {
  Reply none = Call("POST", "/compatibility/subjects/t-value/versions/latest", Body(kV1));
  EXPECT_EQ(Code(none), 40401);
  ASSERT_EQ(Call("POST", "/subjects/t-value/versions", Body(kV1)).status, 200);
  EXPECT_EQ(Call("POST", "/compatibility/subjects/t-value/versions/latest", Body(kV2))
                .body.at("is_compatible"),
            true);
  Reply verbose =
      Call("POST", "/compatibility/subjects/t-value/versions/latest?verbose=true", Body(kBad));
  EXPECT_EQ(verbose.body.at("is_compatible"), false);
  EXPECT_FALSE(verbose.body.at("messages").as_array().empty());

  EXPECT_EQ(Call("GET", "/config").body.at("compatibilityLevel"), "BACKWARD");
  EXPECT_EQ(Code(Call("GET", "/config/t-value")), 40408);
  EXPECT_EQ(Call("GET", "/config/t-value?defaultToGlobal=true").body.at("compatibilityLevel"),
            "BACKWARD");
  EXPECT_EQ(Call("PUT", "/config/t-value", R"({"compatibility":"NONE"})").body.at("compatibility"),
            "NONE");
  EXPECT_EQ(Call("GET", "/config/t-value").body.at("compatibilityLevel"), "NONE");
  EXPECT_EQ(Call("POST", "/subjects/t-value/versions", Body(kBad)).status, 200);
  EXPECT_EQ(Call("GET", "/config").body.at("compatibilityLevel"), "BACKWARD");
}

TEST_F(RegistryRestTest, JsonSchemaSubjects) {
  const std::string v1 = R"({"type":"object","properties":{"a":{"type":"string"}}})";
  const std::string v2 =
      R"({"type":"object","properties":{"a":{"type":"string"}},"required":["a"]})";
  Reply first = Call("POST", "/subjects/j-value/versions", Body(v1, "JSON"));
  ASSERT_EQ(first.status, 200);
  EXPECT_EQ(Call("GET", "/schemas/ids/" + std::to_string(first.body.at("id").as_int64()))
                .body.at("schemaType"),
            "JSON");
  EXPECT_EQ(Call("POST", "/subjects/j-value/versions", Body(v2, "JSON")).status, 409);
  EXPECT_EQ(Code(Call("POST", "/subjects/j-value/versions", Body("[1]", "JSON"))), 42201);
  // Protobuf is served too (compat_protobuf_test.cpp): a .proto that does not parse is 42201.
  EXPECT_EQ(
      Call("POST", "/subjects/p-value/versions", Body("syntax = \"proto3\";", "PROTOBUF")).status,
      200);
  EXPECT_EQ(Code(Call("POST", "/subjects/p-value/versions", Body("message {", "PROTOBUF"))), 42201);
}

TEST(RegistryAuthTest, BasicAuthIsRequiredWhenConfigured) {
  RegistryServer server({.user = "u", .password = "p"});
  ASSERT_TRUE(server.Start().ok());
  auto status_of = [&](const char* userpwd) {
    CURL* e = curl_easy_init();
    const std::string url = server.base_url() + "/subjects";
    curl_easy_setopt(e, CURLOPT_URL, url.c_str());
    if (userpwd != nullptr) curl_easy_setopt(e, CURLOPT_USERPWD, userpwd);
    curl_easy_setopt(
        e, CURLOPT_WRITEFUNCTION, +[](char*, size_t s, size_t n, void*) { return s * n; });
    long status = 0;  // NOLINT(google-runtime-int)
    EXPECT_EQ(curl_easy_perform(e), CURLE_OK);
    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_cleanup(e);
    return status;
  };
  EXPECT_EQ(status_of(nullptr), 401);
  EXPECT_EQ(status_of("u:wrong"), 401);
  EXPECT_EQ(status_of("u:p"), 200);
}

}  // namespace
}  // namespace snowcar::registry
