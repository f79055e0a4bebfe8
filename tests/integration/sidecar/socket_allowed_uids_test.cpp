// SPDX-License-Identifier: Apache-2.0
// socket.allowed.uids through `snowcar run`: the listed uid is served, any other gets 403
// (so `snowcar state` exits 1) and the refusal is logged with the uid; a malformed list is a
// configuration error naming the key.
#include <gtest/gtest.h>
#include <unistd.h>

#include "sidecar_test_util.h"
#include "support/temp_dir.h"

namespace snowcar {
namespace {

using namespace std::chrono_literals;
using sidecartest::SocketGet;

class SocketAllowedUidsTest : public ::testing::Test {
 protected:
  std::unique_ptr<testsupport::ChildProcess> Start(const std::string& uids) {
    auto child = sidecartest::SpawnRun(sidecartest::ShellOnlyConfig(),
                                       {"state.dir=" + dir_.File("state"), "socket.path=" + socket_,
                                        "log.format=json", "socket.allowed.uids=" + uids});
    // Wait for the socket to answer at all (a 403 is an answer).
    EXPECT_TRUE(
        testsupport::WaitFor([&] { return SocketGet(socket_, "/v1/ready").first != 0; }, 20s))
        << (child ? child->Stderr() : "");
    return child;
  }

  testsupport::RunResult StateReady() {
    testsupport::ChildOptions opts;
    opts.args = {"state", "--socket", socket_, "ready"};
    auto r = testsupport::RunToCompletion(SNOWCAR_BINARY, opts, 10s);
    EXPECT_TRUE(r.ok());
    return r.ok() ? *r : testsupport::RunResult{};
  }

  testsupport::TempDir dir_{"snowcar-uids"};
  std::string socket_ = dir_.File("s.sock");
  const uint32_t me_ = getuid();
};

TEST_F(SocketAllowedUidsTest, ListedUidIsServed) {
  auto child = Start(std::to_string(me_ + 7) + "," + std::to_string(me_));
  ASSERT_NE(child, nullptr);
  EXPECT_EQ(SocketGet(socket_, "/v1/ready").first, 200);
  EXPECT_TRUE(StateReady().status.ok());
  sidecartest::StopCleanly(*child);
  EXPECT_EQ(child->Stderr().find("api.peer_refused"), std::string::npos);
}

TEST_F(SocketAllowedUidsTest, OtherUidsGet403AndALogLineNamingTheUid) {
  auto child = Start(std::to_string(me_ + 7));
  ASSERT_NE(child, nullptr);
  auto [status, body] = SocketGet(socket_, "/v1/state/cursors");
  EXPECT_EQ(status, 403) << body;
  EXPECT_NE(body.find("uid " + std::to_string(me_)), std::string::npos) << body;
  auto ready = StateReady();
  EXPECT_EQ(ready.status.code, 1) << ready.out << ready.err;
  sidecartest::StopCleanly(*child);
  EXPECT_NE(child->Stderr().find("\"event\":\"api.peer_refused\",\"uid\":\"" + std::to_string(me_) +
                                 "\""),
            std::string::npos)
      << child->Stderr();
}

TEST_F(SocketAllowedUidsTest, ANonNumericUidIsAConfigError) {
  testsupport::ChildOptions opts;
  opts.args = {"config", "check", sidecartest::ShellOnlyConfig(), "--set",
               "socket.allowed.uids=1000,root"};
  auto r = testsupport::RunToCompletion(SNOWCAR_BINARY, opts, 20s);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status.code, 2);
  const std::string all = r->out + r->err;
  EXPECT_NE(all.find("socket.allowed.uids"), std::string::npos) << all;
  EXPECT_NE(all.find("'root'"), std::string::npos) << all;
}

}  // namespace
}  // namespace snowcar
