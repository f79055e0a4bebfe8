// SPDX-License-Identifier: Apache-2.0
#include "snowcar/api/client.h"

#include <gtest/gtest.h>

#include <fstream>

#include "json_test_util.h"
#include "snowcar/api/routes.h"
#include "snowcar/api/tcp_server.h"
#include "socket_test_util.h"

namespace snowcar::api {
namespace {

using testing::IoThreads;
using testing::ParseJson;
using testing::TempDir;

TEST(Client, MissingSocketSaysTheFileDoesNotExist) {
  TempDir dir;
  const std::string path = dir.path() + "/absent.sock";
  auto r = Client().Get(path, "/v1/health");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_NE(r.status().message().find(path), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("does not exist"), std::string::npos);
}

TEST(Client, StaleSocketSaysNothingListens) {
  TempDir dir;
  const std::string path = dir.path() + "/stale.sock";
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.data(), path.size());
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  close(fd);
  auto r = Client().Get(path, "/v1/health");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(r.status().message().find("nothing listens"), std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find(path), std::string::npos);
}

TEST(Client, RegularFileSaysNotASocket) {
  TempDir dir;
  const std::string path = dir.path() + "/file";
  std::ofstream(path) << "x";
  auto r = Client().Get(path, "/v1/health");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("not a socket"), std::string::npos) << r.status().message();
}

// The core routes (/v1/ready, /v1/health) on a Unix socket server of its own, not started.
struct CoreRoutesServer {
  static std::shared_ptr<ApiRouter> Router(Readiness& readiness, HealthRegistry& health) {
    auto router = std::make_shared<ApiRouter>();
    EXPECT_TRUE(RegisterCoreRoutes(*router, readiness, health).ok());
    return router;
  }

  TempDir dir;
  IoThreads io;
  Readiness readiness;
  HealthRegistry health;
  std::shared_ptr<ApiRouter> router = Router(readiness, health);
  UnixSocketServer server{io.io(), ServerOptions{.path = dir.path() + "/s.sock"}, router};
};

TEST(Client, GetAndPostAgainstARealServer) {
  CoreRoutesServer core;
  UnixSocketServer& server = core.server;
  Readiness& readiness = core.readiness;
  ASSERT_TRUE(server.Start().ok());

  auto r = Client().Get(server.path(), "/v1/ready");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, 503);
  EXPECT_EQ(r->content_type, "application/json");
  readiness.MarkReady();
  r = Client().Get(server.path(), "/v1/ready");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(ParseJson(r->body).at("ready"), true);

  r = Client().Post(server.path(), "/v1/health");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status, 405);
  EXPECT_EQ(r->Header("allow"), "GET");
  server.Stop();
}

TEST(Client, SpeaksTheSameOverTcp) {
  IoThreads io;
  auto router = std::make_shared<ApiRouter>();
  Readiness readiness;
  HealthRegistry health;
  ASSERT_TRUE(RegisterCoreRoutes(*router, readiness, health).ok());
  TcpServer server(io.io(), TcpServerOptions{.address = {"127.0.0.1", 0}}, router);
  ASSERT_TRUE(server.Start().ok());

  readiness.MarkReady();
  auto r = Client().SendTcp("127.0.0.1", server.port(), "GET", "/v1/ready", {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(ParseJson(r->body).at("ready"), true);
  r = Client().SendTcp("localhost", server.port(), "POST", "/v1/health", "{}");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, 405);
  EXPECT_EQ(r->Header("allow"), "GET");

  // Nothing listens once stopped: an error naming the address, not a hang.
  const uint16_t port = server.port();
  server.Stop();
  ASSERT_TRUE(testing::WaitFor([&] { return server.open_connections() == 0; }));
  r = Client().SendTcp("127.0.0.1", port, "GET", "/v1/ready", {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(r.status().message().find("http://127.0.0.1:" + std::to_string(port)),
            std::string::npos)
      << r.status().message();
}

TEST(Client, ManyConcurrentClientsAllGetAnswers) {
  CoreRoutesServer core;
  UnixSocketServer& server = core.server;
  HealthRegistry& health = core.health;
  ASSERT_TRUE(server.Start().ok());
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i) {
        health.Report("worker", true, std::to_string(i));
        auto r = Client().Get(server.path(), "/v1/health");
        if (r.ok() && r->status == 200) ++ok;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 200);
}

}  // namespace
}  // namespace snowcar::api
