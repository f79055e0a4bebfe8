// SPDX-License-Identifier: Apache-2.0
// The TCP admin listener: address parsing and the loopback rule, the reduced router, and a
// real listener on 127.0.0.1 port 0.
#include "snowcar/api/tcp_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "socket_test_util.h"

namespace snowcar::api {
namespace {

using testing::BodyOf;
using testing::IoThreads;
using testing::StatusOf;

TEST(ListenAddressTest, ParsesHostAndPort) {
  auto a = ParseListenAddress("127.0.0.1:9464");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 9464);
  auto v6 = ParseListenAddress("[::1]:0");
  ASSERT_TRUE(v6.ok()) << v6.status().ToString();
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 0);
  EXPECT_EQ(v6->ToString(), "[::1]:0");
}

TEST(ListenAddressTest, RefusesMalformedAddressesNamingThem) {
  for (const char* bad :
       {"9464", "127.0.0.1:", ":9464", "127.0.0.1:65536", "::1:9464", "[::1:9464", "host:12ab"}) {
    auto a = ParseListenAddress(bad);
    ASSERT_FALSE(a.ok()) << bad;
    EXPECT_EQ(a.status().code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(a.status().message().find(bad), std::string::npos) << a.status().message();
  }
}

TEST(ListenAddressTest, OnlyLoopbackAddressesCountAsLoopback) {
  for (const char* local : {"127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1", "localhost"}) {
    EXPECT_TRUE((ListenAddress{local, 1}.IsLoopback())) << local;
  }
  for (const char* remote : {"0.0.0.0", "::", "10.0.0.5", "192.168.1.1", "example.com"}) {
    EXPECT_FALSE((ListenAddress{remote, 1}.IsLoopback())) << remote;
  }
}

Handler Answer(std::string text) {
  return [text = std::move(text)](const ApiRequest&) { return ApiResponse::Text(200, text); };
}

std::shared_ptr<ApiRouter> FullRouter() {
  auto router = std::make_shared<ApiRouter>();
  EXPECT_TRUE(router->Add({"GET", "/metrics", "metrics", false, Answer("m 1\n")}).ok());
  EXPECT_TRUE(router->Add({"GET", "/v1/health", "health", false, Answer("healthy")}).ok());
  EXPECT_TRUE(router->Add({"GET", "/v1/ready", "ready", false, Answer("ready")}).ok());
  EXPECT_TRUE(router->Add({"GET", "/v1/state/cursors", "cursors", false, Answer("[]")}).ok());
  EXPECT_TRUE(
      router->Add({"POST", "/v1/state/cursors/{table}/reset", "reset", true, Answer("done")}).ok());
  return router;
}

TEST(SubsetRouterTest, KeepsOnlyTheNamedRoutesAndNoHelp) {
  auto full = FullRouter();
  auto subset = SubsetRouter(*full, {"/metrics", "/v1/health", "/v1/ready"});
  ASSERT_TRUE(subset.ok()) << subset.status().ToString();
  const ApiRouter& r = **subset;
  EXPECT_EQ(r.Handle("GET", "/metrics").body, "m 1\n");
  EXPECT_EQ(r.Handle("GET", "/v1/ready").status, 200);
  EXPECT_EQ(r.Handle("GET", "/v1/health").status, 200);
  EXPECT_EQ(r.Handle("GET", "/v1/state/cursors").status, 404);
  EXPECT_EQ(r.Handle("POST", "/v1/state/cursors/incident/reset").status, 404);
  EXPECT_EQ(r.Handle("GET", "/help").status, 404);
  EXPECT_EQ(r.Handle("POST", "/metrics").status, 405);
}

TEST(SubsetRouterTest, NamesAPatternTheFullRouterLacks) {
  auto full = FullRouter();
  auto subset = SubsetRouter(*full, {"/metrics", "/v1/nope"});
  ASSERT_FALSE(subset.ok());
  EXPECT_EQ(subset.status().code(), StatusCode::kNotFound);
  EXPECT_NE(subset.status().message().find("/v1/nope"), std::string::npos);
}

// One request on a fresh TCP connection to 127.0.0.1:port; the whole answer, or nullopt.
std::optional<std::string> TcpRequest(uint16_t port, const std::string& request) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return std::nullopt;
  timeval tv{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::optional<std::string> out;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      send(fd, request.data(), request.size(), MSG_NOSIGNAL) ==
          static_cast<ssize_t>(request.size())) {
    std::string answer;
    char buf[4096];
    ssize_t n = 0;
    while ((n = recv(fd, buf, sizeof buf, 0)) > 0) answer.append(buf, static_cast<size_t>(n));
    if (n == 0) out = answer;  // the server closed after answering (Connection: close)
  }
  close(fd);
  return out;
}

std::string Get(const std::string& target) {
  return "GET " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
}

TEST(TcpServerTest, ServesTheSubsetOnLoopbackAndNothingElse) {
  IoThreads io;
  auto subset = SubsetRouter(*FullRouter(), {"/metrics", "/v1/health", "/v1/ready"});
  ASSERT_TRUE(subset.ok());
  TcpServer server(io.io(), TcpServerOptions{.address = {"127.0.0.1", 0}}, *subset);
  ASSERT_TRUE(server.Start().ok());
  ASSERT_NE(server.port(), 0);
  EXPECT_EQ(server.bound_address(), "127.0.0.1:" + std::to_string(server.port()));

  auto metrics = TcpRequest(server.port(), Get("/metrics"));
  ASSERT_TRUE(metrics.has_value());
  EXPECT_EQ(StatusOf(*metrics), 200) << *metrics;
  EXPECT_EQ(BodyOf(*metrics), "m 1\n");
  auto cursors = TcpRequest(server.port(), Get("/v1/state/cursors"));
  ASSERT_TRUE(cursors.has_value());
  EXPECT_EQ(StatusOf(*cursors), 404) << *cursors;
  auto reset = TcpRequest(server.port(),
                          "POST /v1/state/cursors/incident/reset HTTP/1.1\r\nHost: x\r\n"
                          "Content-Length: 0\r\nConnection: close\r\n\r\n");
  ASSERT_TRUE(reset.has_value());
  EXPECT_EQ(StatusOf(*reset), 404) << *reset;
  auto big = TcpRequest(server.port(),
                        "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n");
  ASSERT_TRUE(big.has_value());
  EXPECT_EQ(StatusOf(*big), 413) << *big;

  server.Stop();
  ASSERT_TRUE(testing::WaitFor([&] { return server.open_connections() == 0; }));
  // Refused, reset, or closed without a byte: never an answer.
  auto after = TcpRequest(server.port(), Get("/metrics"));
  EXPECT_TRUE(!after.has_value() || after->empty()) << "a stopped listener answered: " << *after;
}

// A TCP connection to 127.0.0.1:port that sent one byte and then stalls; closed on scope exit.
class StalledTcpClient {
 public:
  explicit StalledTcpClient(uint16_t port) {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ok_ = fd_ >= 0 && connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
          send(fd_, "G", 1, MSG_NOSIGNAL) == 1;
  }
  ~StalledTcpClient() {
    if (fd_ >= 0) close(fd_);
  }
  StalledTcpClient(const StalledTcpClient&) = delete;
  StalledTcpClient& operator=(const StalledTcpClient&) = delete;
  bool ok() const { return ok_; }

 private:
  int fd_ = -1;
  bool ok_ = false;
};

// Slow clients holding every connection of the admin listener: probes are still answered, and
// a scrape over the limit gets the documented 503 (TcpRequest reports a reset as nullopt).
TEST(TcpServerTest, ProbesAreAnsweredWhileStalledClientsHoldEverySlot) {
  IoThreads io;
  auto subset = SubsetRouter(*FullRouter(), {"/metrics", "/v1/health", "/v1/ready"});
  ASSERT_TRUE(subset.ok());
  TcpServer server(io.io(), TcpServerOptions{.address = {"127.0.0.1", 0}}, *subset);
  ASSERT_TRUE(server.Start().ok());
  std::vector<std::unique_ptr<StalledTcpClient>> stalled;
  for (int i = 0; i < 40; ++i) {
    stalled.push_back(std::make_unique<StalledTcpClient>(server.port()));
    ASSERT_TRUE(stalled.back()->ok()) << i;
  }
  ASSERT_TRUE(testing::WaitFor([&] { return server.open_connections() >= 16; }));
  for (const char* probe : {"/v1/health", "/v1/ready"}) {
    auto r = TcpRequest(server.port(), Get(probe));
    ASSERT_TRUE(r.has_value()) << probe << ": no answer, or a reset";
    EXPECT_EQ(StatusOf(*r), 200) << probe << ": " << *r;
  }
  auto scrape = TcpRequest(server.port(), Get("/metrics"));
  ASSERT_TRUE(scrape.has_value()) << "a reset instead of the 503";
  EXPECT_EQ(StatusOf(*scrape), 503) << *scrape;
}

TEST(TcpServerTest, APortInUseFailsNamingTheAddress) {
  IoThreads io;
  auto router = std::make_shared<ApiRouter>(ApiRouter::WithoutHelp{});
  TcpServer first(io.io(), TcpServerOptions{.address = {"127.0.0.1", 0}}, router);
  ASSERT_TRUE(first.Start().ok());
  TcpServer second(io.io(), TcpServerOptions{.address = {"127.0.0.1", first.port()}}, router);
  const Status s = second.Start();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("127.0.0.1:" + std::to_string(first.port())), std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("bind"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace snowcar::api
