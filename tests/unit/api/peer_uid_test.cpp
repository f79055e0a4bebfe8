// SPDX-License-Identifier: Apache-2.0
// socket.allowed.uids: the Unix socket serves only peers whose uid (from SO_PEERCRED, not
// from anything the client says) is on the list, and logs the uid of each one it refuses.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <utility>

#include "snowcar/api/client.h"
#include "snowcar/api/unix_socket_server.h"
#include "snowcar/common/log.h"
#include "snowcar/common/text.h"
#include "socket_test_util.h"

namespace snowcar::api {
namespace {

using testing::IoThreads;
using testing::TempDir;

std::shared_ptr<ApiRouter> PingRouter() {
  auto router = std::make_shared<ApiRouter>();
  EXPECT_TRUE(
      router
          ->Add({"GET", "/v1/ping", "pong", false,
                 [](const ApiRequest& r) { return ApiResponse::Text(200, "pong " + r.peer); }})
          .ok());
  return router;
}

// Log lines go to a file for the duration of a test, then back to stderr.
class CapturedLog {
 public:
  explicit CapturedLog(const std::string& path) : path_(path) {
    fd_ = open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0600);
    log::SetFd(fd_);
  }
  ~CapturedLog() {
    log::SetFd(2);
    close(fd_);
  }
  std::string Text() const {
    std::ifstream in(path_);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

 private:
  std::string path_;
  int fd_ = -1;
};

class PeerUidTest : public ::testing::Test {
 protected:
  Result<HttpResult> PingWith(std::vector<uint32_t> allowed) {
    UnixSocketServer server(
        io_.io(), ServerOptions{.path = path_, .allowed_uids = std::move(allowed)}, PingRouter());
    Status s = server.Start();
    EXPECT_TRUE(s.ok()) << s.ToString();
    return Client().Get(path_, "/v1/ping");
  }

  TempDir dir_;
  std::string path_ = dir_.path() + "/s.sock";
  IoThreads io_;
};

TEST_F(PeerUidTest, EmptyListServesEveryone) {
  auto r = PingWith({});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, 200);
  EXPECT_NE(r->body.find("uid=" + std::to_string(getuid())), std::string::npos) << r->body;
}

TEST_F(PeerUidTest, OwnUidOnTheListIsServed) {
  const uint32_t me = getuid();
  auto r = PingWith({me + 1, me});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, 200) << r->body;
}

TEST_F(PeerUidTest, AListWithoutOwnUidRefusesWith403AndLogsTheUid) {
  CapturedLog log(dir_.path() + "/log");
  const uint32_t me = getuid();
  auto r = PingWith({me + 1});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, 403) << r->body;
  EXPECT_EQ(HttpReasonPhrase(403), "Forbidden");
  EXPECT_NE(r->body.find("uid " + std::to_string(me)), std::string::npos) << r->body;
  EXPECT_EQ(r->body.find("pong"), std::string::npos) << "the handler must not run: " << r->body;
  const std::string lines = log.Text();
  EXPECT_NE(lines.find("api.peer_refused"), std::string::npos) << lines;
  EXPECT_NE(lines.find("\"uid\":\"" + std::to_string(me) + "\""), std::string::npos) << lines;
}

}  // namespace
}  // namespace snowcar::api
