// SPDX-License-Identifier: Apache-2.0
// Every Table API verb over HTTP: status, body shape, Location, and the documented errors.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "emulator_fixture.h"

namespace snowcar::emulator::testing {
namespace {

class TableApi : public EmulatorTest {
 protected:
  std::string CreateIncident(const std::string& body = R"({"short_description":"disk full"})") {
    auto r = Send("POST", Url("/api/now/table/incident"), body);
    EXPECT_EQ(r.status, 201) << r.body;
    return std::string(Json(r.body).at("result").at("sys_id").as_string());
  }
};

void ExpectErrorShape(const std::string& body, const std::string& message) {
  auto doc = boost::json::parse(body);
  EXPECT_EQ(doc.at("status").as_string(), "failure") << body;
  EXPECT_EQ(doc.at("error").at("message").as_string(), message) << body;
  EXPECT_TRUE(doc.at("error").as_object().contains("detail")) << body;
}

TEST_F(TableApi, EmptyListIs200OnUnversionedAndV2And404OnV1) {
  const std::string q = "?sysparm_query=number%3DNOPE";
  for (const char* path : {"/api/now/table/incident", "/api/now/v2/table/incident"}) {
    auto r = Get(Url(std::string(path) + q));
    EXPECT_EQ(r.status, 200) << path;
    EXPECT_EQ(r.body, R"({"result":[]})") << path;
    EXPECT_EQ(r.Header("x-total-count"), "0");
  }
  auto v1 = Get(Url("/api/now/v1/table/incident" + q));
  EXPECT_EQ(v1.status, 404);
  ExpectErrorShape(v1.body, "No Record found");
}

TEST_F(TableApi, ListHasInstanceHeaders) {
  auto r = Get(Url("/api/now/table/incident?sysparm_limit=1"));
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.Header("content-type"), "application/json;charset=UTF-8");
  EXPECT_TRUE(r.Has("date"));
  EXPECT_EQ(r.Header("x-is-logged-in"), "true");
  EXPECT_EQ(r.Header("x-transaction-id").size(), 12u);
}

TEST_F(TableApi, PostCreatesWithLocationAndModCountZero) {
  auto r = Send("POST", Url("/api/now/v2/table/incident"), R"({"short_description":"new one"})");
  ASSERT_EQ(r.status, 201) << r.body;
  auto rec = Json(r.body).at("result");
  const std::string id(rec.at("sys_id").as_string());
  EXPECT_EQ(id.size(), 32u);
  EXPECT_EQ(rec.at("sys_mod_count").as_string(), "0");
  EXPECT_EQ(rec.at("short_description").as_string(), "new one");
  EXPECT_EQ(rec.at("sys_created_by").as_string(), "admin");
  EXPECT_EQ(r.Header("location"), base_ + "/api/now/v2/table/incident/" + id);
  EXPECT_FALSE(r.Has("x-total-count"));
  EXPECT_TRUE(server_->store().Get("incident", id).ok());
}

TEST_F(TableApi, GetOneAndFields) {
  const std::string id = CreateIncident();
  auto r =
      Get(Url("/api/now/table/incident/" + id + "?sysparm_fields=sys_id,short_description,nope"));
  ASSERT_EQ(r.status, 200);
  auto rec = Json(r.body).at("result").as_object();
  EXPECT_EQ(rec.size(), 2u);
  EXPECT_EQ(rec.at("short_description").as_string(), "disk full");
}

TEST_F(TableApi, PatchAndPutUpdateAndBumpModCount) {
  const std::string id = CreateIncident();
  auto r = Send("PATCH", Url("/api/now/table/incident/" + id), R"({"short_description":"b"})");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(Json(r.body).at("result").at("sys_mod_count").as_string(), "1");
  r = Send("PUT", Url("/api/now/table/incident/" + id), R"({"short_description":"c"})");
  ASSERT_EQ(r.status, 200) << r.body;
  auto rec = Json(r.body).at("result");
  EXPECT_EQ(rec.at("sys_mod_count").as_string(), "2");
  EXPECT_EQ(rec.at("short_description").as_string(), "c");
}

TEST_F(TableApi, PatchOfMissingRecordIs404NeverUpsert) {
  const std::string missing(32, 'a');
  for (const char* method : {"PATCH", "PUT"}) {
    auto r =
        Send(method, Url("/api/now/table/incident/" + missing), R"({"short_description":"x"})");
    EXPECT_EQ(r.status, 404) << method;
    ExpectErrorShape(r.body, "No Record found");
  }
  EXPECT_FALSE(server_->store().Get("incident", missing).ok());
}

TEST_F(TableApi, DeleteIs204ThenMissingIs404WithDocumentedBody) {
  const std::string id = CreateIncident();
  auto r = Send("DELETE", Url("/api/now/table/incident/" + id), "");
  EXPECT_EQ(r.status, 204);
  EXPECT_TRUE(r.body.empty());
  r = Send("DELETE", Url("/api/now/table/incident/" + id), "");
  EXPECT_EQ(r.status, 404);
  EXPECT_EQ(
      r.body,
      R"({"error":{"message":"No Record found","detail":"Record doesn't exist or ACL restricts the record retrieval"},"status":"failure"})");
  r = Get(Url("/api/now/table/incident/" + id));
  EXPECT_EQ(r.status, 404);
}

TEST_F(TableApi, UnknownTableIs400WithNullDetail) {
  auto r = Get(Url("/api/now/table/ss"));
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(r.body, R"({"error":{"message":"Invalid table ss","detail":null},"status":"failure"})");
  r = Send("POST", Url("/api/now/table/ss"), "{}");
  EXPECT_EQ(r.status, 400);
}

TEST_F(TableApi, BadJsonBodyIs400) {
  auto r = Send("POST", Url("/api/now/table/incident"), "{not json");
  EXPECT_EQ(r.status, 400);
  ExpectErrorShape(r.body, "Exception while reading request");
}

TEST_F(TableApi, BadLimitIs400NamingTheParameter) {
  auto r = Get(Url("/api/now/table/incident?sysparm_limit=ten"));
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("sysparm_limit"), std::string::npos);
}

TEST_F(TableApi, UnsupportedMethodIs405) {
  auto r = Send("PATCH", Url("/api/now/table/incident"), "{}");
  EXPECT_EQ(r.status, 405);
}

TEST_F(TableApi, ReferenceLinksUseTheRequestVersionAndCanBeExcluded) {
  auto r = Get(Url("/api/now/v2/table/incident?sysparm_limit=1&sysparm_fields=caller_id"));
  ASSERT_EQ(r.status, 200);
  auto caller = Json(r.body).at("result").at(0).at("caller_id");
  if (caller.is_object()) {
    EXPECT_EQ(
        std::string(caller.at("link").as_string()).rfind(base_ + "/api/now/v2/table/sys_user/", 0),
        0u);
  }
  r = Get(
      Url("/api/now/table/"
          "incident?sysparm_limit=1&sysparm_fields=caller_id&sysparm_exclude_reference_link=true"));
  EXPECT_TRUE(Json(r.body).at("result").at(0).at("caller_id").is_string());
}

TEST_F(TableApi, KeepAliveServesManyRequestsOnOneConnection) {
  CURL* curl = curl_easy_init();
  std::string sink;
  curl_easy_setopt(curl, CURLOPT_USERPWD, "admin:admin-emulator");
  curl_easy_setopt(
      curl, CURLOPT_WRITEFUNCTION,
      +[](char*, size_t s, size_t n, void*) -> size_t { return s * n; });
  for (int i = 0; i < 5; ++i) {
    const std::string url =
        Url("/api/now/table/incident?sysparm_limit=5&sysparm_offset=" + std::to_string(i * 5));
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    ASSERT_EQ(curl_easy_perform(curl), CURLE_OK);
  }
  long connects = -1;
  curl_easy_getinfo(curl, CURLINFO_NUM_CONNECTS, &connects);
  EXPECT_EQ(connects, 0);  // the last request reused the connection
  curl_easy_cleanup(curl);
}

TEST_F(TableApi, ConcurrentClientsAreAllServedWhileRowsChange) {
  RowGeneratorOptions w;
  w.tables = {"incident"};
  w.rows_per_second = 200;
  ASSERT_TRUE(server_->row_generator().Start(w).ok());
  std::atomic<int> ok{0};
  std::vector<std::thread> clients;
  clients.reserve(8);
  for (int t = 0; t < 8; ++t) {
    clients.emplace_back([&, t] {
      for (int i = 0; i < 25; ++i) {
        auto r = (i % 5 == 0)
                     ? Send("POST", Url("/api/now/table/incident"),
                            R"({"short_description":"c)" + std::to_string(t) + "\"}")
                     : Get(Url("/api/now/v1/table/incident?sysparm_limit=7&sysparm_offset=" +
                               std::to_string(i)));
        if (r.code == CURLE_OK && (r.status == 200 || r.status == 201)) ++ok;
      }
    });
  }
  for (auto& c : clients) c.join();
  server_->row_generator().Stop();
  EXPECT_EQ(ok.load(), 200);
  EXPECT_EQ(server_->journal().size(), 200u);
}

class TableApiIdle : public EmulatorTest {
 protected:
  EmulatorOptions Options() const override {
    EmulatorOptions o;
    o.idle_timeout_ms = 100;
    return o;
  }
};

TEST_F(TableApiIdle, ServerClosesAnIdleKeptAliveConnection) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(server_->port());
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  const std::string request =
      "GET /_emulator/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n";
  ASSERT_EQ(write(fd, request.data(), request.size()), static_cast<ssize_t>(request.size()));
  // Read the answer, then wait (bounded) for the server to close the idle connection.
  std::string received;
  bool closed = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!closed && std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 1000) <= 0) continue;
    char buf[1024];
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) {
      closed = true;
    } else {
      received.append(buf, static_cast<size_t>(n));
    }
  }
  close(fd);
  EXPECT_NE(received.find("HTTP/1.1 200 OK"), std::string::npos);
  EXPECT_NE(received.find("Connection: keep-alive"), std::string::npos);
  EXPECT_TRUE(closed);
}

class TableApiGzip : public EmulatorTest {
 protected:
  EmulatorOptions Options() const override {
    EmulatorOptions o;
    o.gzip = true;
    return o;
  }
};

TEST_F(TableApiGzip, CompressesWhenAskedOnly) {
  InstanceRequest req;
  req.url = Url("/api/now/table/incident?sysparm_limit=20");
  req.userpwd = "admin:admin-emulator";
  req.accept_encoding = "gzip";
  auto r = Fetch(req);
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.Header("content-encoding"), "gzip");
  EXPECT_EQ(Json(r.body).at("result").as_array().size(), 20u);  // libcurl decoded it
  auto plain = Get(Url("/api/now/table/incident?sysparm_limit=20"));
  EXPECT_FALSE(plain.Has("content-encoding"));
  EXPECT_EQ(Json(plain.body).at("result").as_array().size(), 20u);
}

}  // namespace
}  // namespace snowcar::emulator::testing
