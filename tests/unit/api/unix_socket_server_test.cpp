// SPDX-License-Identifier: Apache-2.0
#include "snowcar/api/unix_socket_server.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>
#include <random>

#include "json_test_util.h"
#include "socket_test_util.h"

namespace snowcar::api {
namespace {

using testing::BodyOf;
using testing::ErrorMessage;
using testing::IoThreads;
using testing::ParseJson;
using testing::RawConnection;
using testing::StatusOf;
using testing::TempDir;
using testing::WaitFor;

constexpr const char* kGetHealth = "GET /v1/ping HTTP/1.1\r\nHost: localhost\r\n\r\n";

std::shared_ptr<ApiRouter> TestRouter() {
  auto router = std::make_shared<ApiRouter>();
  Status s = router->Add({"GET", "/v1/ping", "answers pong", false, [](const ApiRequest&) {
                            return ApiResponse::Json(200, boost::json::object{{"pong", true}});
                          }});
  EXPECT_TRUE(s.ok());
  s = router->Add({"POST", "/v1/echo", "echoes the body", true,
                   [](const ApiRequest& r) { return ApiResponse::Text(200, r.body); }});
  EXPECT_TRUE(s.ok());
  return router;
}

class ServerTest : public ::testing::Test {
 protected:
  std::unique_ptr<UnixSocketServer> StartServer(ServerOptions options = {}) {
    if (options.path == kDefaultSocketPath) options.path = path_;
    auto server = std::make_unique<UnixSocketServer>(io_.io(), options, TestRouter());
    Status s = server->Start();
    EXPECT_TRUE(s.ok()) << s.ToString();
    return server;
  }
  // A fresh connection answers a good request: the server survived whatever came before.
  void ExpectServesGoodClient() {
    RawConnection c(path_);
    ASSERT_TRUE(c.connected());
    ASSERT_TRUE(c.Send(kGetHealth));
    auto r = c.ReadResponse();
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(StatusOf(*r), 200) << *r;
  }

  TempDir dir_;
  std::string path_ = dir_.path() + "/snowcar.sock";
  IoThreads io_;
};

TEST_F(ServerTest, AnswersSeveralRequestsOnOneKeepAliveConnection) {
  auto server = StartServer();
  RawConnection c(path_);
  ASSERT_TRUE(c.connected());
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(c.Send(kGetHealth));
    auto r = c.ReadResponse();
    ASSERT_TRUE(r.has_value()) << "request " << i;
    EXPECT_EQ(StatusOf(*r), 200);
    EXPECT_EQ(ParseJson(BodyOf(*r)).at("pong"), true);
    EXPECT_NE(r->find("Content-Type: application/json"), std::string::npos) << *r;
  }
  EXPECT_EQ(server->open_connections(), 1u);
}

TEST_F(ServerTest, PostBodyReachesTheHandler) {
  auto server = StartServer();
  RawConnection c(path_);
  ASSERT_TRUE(c.Send("POST /v1/echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"));
  auto r = c.ReadResponse();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(StatusOf(*r), 200);
  EXPECT_EQ(BodyOf(*r), "hello");
}

TEST_F(ServerTest, UnknownPathAndWrongMethodGiveJsonErrors) {
  auto server = StartServer();
  RawConnection c(path_);
  ASSERT_TRUE(c.Send("GET /v1/nope HTTP/1.1\r\nHost: x\r\n\r\n"));
  auto r = c.ReadResponse();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(StatusOf(*r), 404);
  EXPECT_EQ(ParseJson(BodyOf(*r)).at("error").at("path"), "/v1/nope");
  ASSERT_TRUE(c.Send("GET /v1/echo HTTP/1.1\r\nHost: x\r\n\r\n"));
  r = c.ReadResponse();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(StatusOf(*r), 405);
  EXPECT_NE(r->find("Allow: POST"), std::string::npos) << *r;
}

TEST_F(ServerTest, SocketFileIs0660AndCreatedDirIs0750) {
  path_ = dir_.path() + "/run/snowcar/s.sock";
  auto server = StartServer();
  struct stat st {};
  ASSERT_EQ(stat(path_.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0660u);
  ASSERT_EQ(stat((dir_.path() + "/run/snowcar").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0750u);
  ASSERT_EQ(stat((dir_.path() + "/run").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0750u);
  ExpectServesGoodClient();
}

TEST_F(ServerTest, StaleSocketFileIsReplaced) {
  // A socket file nobody listens on, as a crashed run leaves it.
  {
    const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, path_.data(), path_.size());
    ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    close(fd);
  }
  struct stat st {};
  ASSERT_EQ(lstat(path_.c_str(), &st), 0);
  ASSERT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_FALSE(RawConnection(path_).connected());
  auto server = StartServer();
  ExpectServesGoodClient();
}

TEST_F(ServerTest, SocketInUseIsRefusedNamingThePath) {
  auto first = StartServer();
  UnixSocketServer second(io_.io(), ServerOptions{.path = path_}, TestRouter());
  Status s = second.Start();
  EXPECT_EQ(s.code(), StatusCode::kAlreadyExists) << s.ToString();
  EXPECT_NE(s.message().find(path_), std::string::npos) << s.message();
  second.Stop();  // must not unlink the first server's file
  struct stat st {};
  EXPECT_EQ(lstat(path_.c_str(), &st), 0);
  ExpectServesGoodClient();
}

TEST_F(ServerTest, RegularFileAtThePathIsRefusedAndKept) {
  { std::ofstream(path_) << "precious"; }
  UnixSocketServer server(io_.io(), ServerOptions{.path = path_}, TestRouter());
  Status s = server.Start();
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << s.ToString();
  EXPECT_NE(s.message().find("not a socket"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(path_), std::string::npos);
  server.Stop();
  std::ifstream in(path_);
  std::string content;
  in >> content;
  EXPECT_EQ(content, "precious");
}

TEST_F(ServerTest, TooLongPathIsRefused) {
  UnixSocketServer server(
      io_.io(), ServerOptions{.path = dir_.path() + "/" + std::string(120, 'a')}, TestRouter());
  Status s = server.Start();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("at most"), std::string::npos) << s.message();
}

TEST_F(ServerTest, StopClosesConnectionsAndUnlinksTheFile) {
  auto server = StartServer();
  RawConnection idle(path_);
  ASSERT_TRUE(idle.connected());
  ASSERT_TRUE(WaitFor([&] { return server->open_connections() == 1; }));
  server->Stop();
  struct stat st {};
  EXPECT_NE(lstat(path_.c_str(), &st), 0);
  auto rest = idle.ReadToClose();
  ASSERT_TRUE(rest.has_value()) << "connection not closed by Stop()";
  EXPECT_TRUE(WaitFor([&] { return server->open_connections() == 0; }));
  EXPECT_FALSE(RawConnection(path_).connected());
  server->Stop();  // idempotent
}

TEST_F(ServerTest, RandomBinaryGarbageGets400OrCloseAndServerLivesOn) {
  auto server = StartServer();
  std::mt19937 rng(42);
  for (int round = 0; round < 20; ++round) {
    std::string junk(1 + rng() % 3000, '\0');
    for (auto& ch : junk) ch = static_cast<char>(rng());
    RawConnection c(path_);
    ASSERT_TRUE(c.connected());
    c.Send(junk);  // the server may close before reading it all
    c.ShutdownWrite();
    auto r = c.ReadToClose();
    ASSERT_TRUE(r.has_value()) << "round " << round << ": connection left open";
    if (!r->empty()) {
      EXPECT_EQ(StatusOf(*r), 400) << r->substr(0, 200);
    }
  }
  ExpectServesGoodClient();
}

TEST_F(ServerTest, MalformedRequestLineGets400Json) {
  auto server = StartServer();
  RawConnection c(path_);
  ASSERT_TRUE(c.Send("THIS IS NOT HTTP\r\n\r\n"));
  auto r = c.ReadToClose();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(StatusOf(*r), 400) << *r;
  EXPECT_NE(ErrorMessage(BodyOf(*r)).find("malformed"), std::string::npos) << *r;
  ExpectServesGoodClient();
}

TEST_F(ServerTest, HugeRequestLineIsRefused) {
  auto server = StartServer();
  RawConnection c(path_);
  const std::string line = "GET /" + std::string(size_t{100} * 1024, 'a') + " HTTP/1.1\r\n\r\n";
  c.Send(line);
  auto r = c.ReadToClose();
  ASSERT_TRUE(r.has_value());
  if (!r->empty()) {
    EXPECT_EQ(StatusOf(*r), 431) << r->substr(0, 200);
  }
  ExpectServesGoodClient();
}

TEST_F(ServerTest, BodyOverTheLimitGets413) {
  auto server = StartServer();
  RawConnection c(path_);
  const std::string body(size_t{70} * 1024, 'x');
  c.Send("POST /v1/echo HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\n\r\n" + body);
  auto r = c.ReadToClose();
  ASSERT_TRUE(r.has_value());
  ASSERT_FALSE(r->empty());
  EXPECT_EQ(StatusOf(*r), 413) << r->substr(0, 300);
  EXPECT_NE(ErrorMessage(BodyOf(*r)).find("65536"), std::string::npos) << *r;
  ExpectServesGoodClient();
}

TEST_F(ServerTest, TruncatedRequestThenCloseLeavesNoConnection) {
  auto server = StartServer();
  {
    RawConnection c(path_);
    ASSERT_TRUE(c.Send("POST /v1/echo HTTP/1.1\r\nContent-Length: 100\r\n\r\nonly-part"));
    ASSERT_TRUE(WaitFor([&] { return server->open_connections() == 1; }));
  }
  EXPECT_TRUE(WaitFor([&] { return server->open_connections() == 0; }));
  ExpectServesGoodClient();
}

TEST_F(ServerTest, Http10RequestIsAnsweredThenClosed) {
  auto server = StartServer();
  RawConnection c(path_);
  ASSERT_TRUE(c.Send("GET /v1/ping HTTP/1.0\r\n\r\n"));
  auto r = c.ReadToClose();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->rfind("HTTP/1.0 200", 0), 0u) << *r;
  EXPECT_EQ(ParseJson(BodyOf(*r)).at("pong"), true);
}

TEST_F(ServerTest, PipelinedRequestsAreAnsweredInOrder) {
  auto server = StartServer();
  RawConnection c(path_);
  ASSERT_TRUE(c.Send(std::string(kGetHealth) + "GET /v1/nope HTTP/1.1\r\nHost: x\r\n\r\n" +
                     "POST /v1/echo HTTP/1.1\r\nContent-Length: 3\r\nConnection: close\r\n\r\n"
                     "abc"));
  auto r1 = c.ReadResponse();
  auto r2 = c.ReadResponse();
  auto r3 = c.ReadResponse();
  ASSERT_TRUE(r1 && r2 && r3);
  EXPECT_EQ(StatusOf(*r1), 200);
  EXPECT_EQ(StatusOf(*r2), 404);
  EXPECT_EQ(StatusOf(*r3), 200);
  EXPECT_EQ(BodyOf(*r3), "abc");
  auto rest = c.ReadToClose();  // Connection: close honoured
  ASSERT_TRUE(rest.has_value());
  EXPECT_TRUE(rest->empty());
}

TEST_F(ServerTest, SilentClientIsDroppedAfterTheHeaderTimeout) {
  ServerOptions options;
  options.limits.header_timeout = std::chrono::milliseconds(200);
  auto server = StartServer(options);
  RawConnection silent(path_);
  ASSERT_TRUE(silent.Send("GET /v1/pi"));  // never finishes its request
  auto r = silent.ReadToClose();           // the 5 s client-side timeout would give nullopt
  ASSERT_TRUE(r.has_value());
  EXPECT_TRUE(r->empty());
  EXPECT_TRUE(WaitFor([&] { return server->open_connections() == 0; }));
  ExpectServesGoodClient();
}

// With the default limits: a client that sent part of a request and went quiet loses its
// slot within a few seconds (the header deadline), not after the 10 s a body may take.
TEST_F(ServerTest, DefaultHeaderDeadlineDropsATricklingClientWithinSeconds) {
  auto server = StartServer();
  RawConnection slow(path_);
  ASSERT_TRUE(slow.Send("G"));
  const auto start = std::chrono::steady_clock::now();
  auto r = slow.ReadToClose();  // gives up (nullopt) after 5 s
  ASSERT_TRUE(r.has_value()) << "still connected after 5 s";
  EXPECT_TRUE(r->empty()) << *r;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(4500));
}

TEST_F(ServerTest, ConnectionsBeyondTheCapGet503) {
  ServerOptions options;
  options.limits.max_connections = 2;
  auto server = StartServer(options);
  RawConnection a(path_), b(path_);
  ASSERT_TRUE(WaitFor([&] { return server->open_connections() == 2; }));
  RawConnection c(path_);
  auto r = c.ReadToClose();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(StatusOf(*r), 503) << *r;
  EXPECT_NE(ErrorMessage(BodyOf(*r)).find("too many open connections"), std::string::npos);
  // The connections under the cap still work.
  ASSERT_TRUE(a.Send(kGetHealth));
  auto ok = a.ReadResponse();
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(StatusOf(*ok), 200);
}

// The flood of issue 15: many connections that send a byte and stall hold every regular
// slot. The probe paths are still answered at once, on a spare slot.
TEST_F(ServerTest, HealthIsAnsweredWhileSlowClientsHoldEverySlot) {
  auto router = TestRouter();
  ASSERT_TRUE(router
                  ->Add({"GET", "/v1/health", "health", false,
                         [](const ApiRequest&) { return ApiResponse::Text(200, "healthy"); }})
                  .ok());
  ServerOptions options;
  options.path = path_;
  UnixSocketServer server(io_.io(), options, router);
  ASSERT_TRUE(server.Start().ok());
  constexpr size_t kSlow = 200;
  std::vector<std::unique_ptr<RawConnection>> slow;
  for (size_t i = 0; i < kSlow; ++i) {
    slow.push_back(std::make_unique<RawConnection>(path_));
    ASSERT_TRUE(slow.back()->connected()) << i;
    ASSERT_TRUE(slow.back()->Send("G")) << i;
  }
  // Every regular slot is taken (the spare ones hold the rest, or answered them 503).
  ASSERT_TRUE(WaitFor([&] { return server.open_connections() >= options.limits.max_connections; }));

  const auto start = std::chrono::steady_clock::now();
  RawConnection probe(path_);
  ASSERT_TRUE(probe.Send("GET /v1/health HTTP/1.1\r\nHost: x\r\n\r\n"));
  auto r = probe.ReadResponse();
  ASSERT_TRUE(r.has_value()) << "no answer within 5 s";
  EXPECT_EQ(StatusOf(*r), 200) << *r;
  EXPECT_EQ(BodyOf(*r), "healthy");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(2000));

  // Any other path gets the documented 503 on a spare slot.
  RawConnection other(path_);
  ASSERT_TRUE(other.Send(kGetHealth));
  auto refused = other.ReadToClose();
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(StatusOf(*refused), 503) << *refused;
  EXPECT_NE(ErrorMessage(BodyOf(*refused)).find("too many open connections"), std::string::npos);
  EXPECT_FALSE(other.was_reset());
}

// A refused client that keeps sending after the 503 was written reads the 503 and an orderly
// close, never a reset (closing with its bytes unread would make the kernel reset it).
TEST_F(ServerTest, ARefusedClientGets503AndAnOrderlyCloseNotAReset) {
  ServerOptions options;
  options.limits.max_connections = 1;
  options.limits.spare_connections = 1;
  options.limits.header_timeout = std::chrono::seconds(30);  // the regular slot stays taken
  auto server = StartServer(options);
  RawConnection holder(path_);
  ASSERT_TRUE(WaitFor([&] { return server->open_connections() == 1; }));

  RawConnection refused(path_);
  ASSERT_TRUE(refused.connected());
  ASSERT_TRUE(refused.Send(kGetHealth));
  ASSERT_TRUE(refused.WaitReadable(std::chrono::seconds(5)));  // the answer is there
  // More bytes after the answer: a pipelined request the server will not serve.
  EXPECT_TRUE(refused.Send(kGetHealth)) << "the server closed before reading them";
  auto r = refused.ReadToClose();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(StatusOf(*r), 503) << *r;
  EXPECT_FALSE(refused.was_reset()) << "connection reset instead of an orderly close";
  EXPECT_EQ(r->find("HTTP/1.1", 1), std::string::npos) << "answered twice: " << *r;

  // A spare connection that never sends a request still learns why, after its short grace.
  RawConnection silent(path_);
  auto late = silent.ReadToClose();
  ASSERT_TRUE(late.has_value());
  EXPECT_EQ(StatusOf(*late), 503) << *late;
}

}  // namespace
}  // namespace snowcar::api

namespace snowcar::api {
namespace {

// State changes are logged with the caller as the kernel identifies it.
TEST(ServerPeer, RequestCarriesThePeerCredentials) {
  TempDir dir;
  IoThreads io;
  auto router = std::make_shared<ApiRouter>();
  ASSERT_TRUE(router
                  ->Add({"GET", "/who", "peer", false,
                         [](const ApiRequest& r) { return ApiResponse::Text(200, r.peer); }})
                  .ok());
  UnixSocketServer server(io.io(), ServerOptions{.path = dir.path() + "/s.sock"}, router);
  ASSERT_TRUE(server.Start().ok());
  RawConnection c(server.path());
  ASSERT_TRUE(c.Send("GET /who HTTP/1.1\r\nHost: x\r\n\r\n"));
  auto r = c.ReadResponse();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(BodyOf(*r), "pid=" + std::to_string(getpid()) + " uid=" + std::to_string(getuid()) +
                            " gid=" + std::to_string(getgid()));
  EXPECT_EQ(router->Handle("GET", "/who").body, "");  // in-process: no peer
}

}  // namespace
}  // namespace snowcar::api
