// SPDX-License-Identifier: Apache-2.0
// Where `snowcar state` looks for the socket: --socket, socket.path in --config (read with the
// config module's .properties parser), $SNOWCAR_SOCKET_PATH, the default.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <utility>

#include "cli/state_cli.h"

namespace snowcar::cli {
namespace {

class SocketPathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/snowcar-cli-props-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& text) {
    std::string path = dir_ + "/c.properties";
    std::ofstream(path) << text;
    return path;
  }
  std::string dir_;
};

std::function<std::optional<std::string>(const char*)> Env(std::optional<std::string> socket) {
  return [socket = std::move(socket)](const char* name) -> std::optional<std::string> {
    if (std::string_view(name) == "SNOWCAR_SOCKET_PATH") return socket;
    return std::nullopt;
  };
}

// The socket path a config file names, with $SNOWCAR_SOCKET_PATH unset.
Result<std::string> FromConfig(const std::string& file) {
  return ResolveSocketPath("", file, Env(std::nullopt));
}

TEST_F(SocketPathTest, FindsKeyInEachSeparatorStyle) {
  for (const char* line : {"socket.path=/run/a.sock", "socket.path = /run/a.sock",
                           "  socket.path: /run/a.sock", "socket.path /run/a.sock"}) {
    auto v = FromConfig(Write(std::string("# comment\nother=1\n") + line + "\n"));
    ASSERT_TRUE(v.ok()) << v.status().ToString();
    EXPECT_EQ(*v, "/run/a.sock") << line;
  }
}

TEST_F(SocketPathTest, IgnoresCommentsAndSimilarKeysAndHonoursContinuations) {
  auto v =
      FromConfig(Write("#socket.path=/wrong\n! socket.path=/wrong\nsocket.path.x=/wrong\n"
                       "socket.path=/run/\\\n   long.sock\r\n"));
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(*v, "/run/long.sock");
}

TEST_F(SocketPathTest, LastOccurrenceWinsAndEscapesAreDecoded) {
  auto v = FromConfig(Write("socket.path=/a\nsocket.path=/b\n"));
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, "/b");
  // The one parser decodes \uXXXX like java.util.Properties does.
  v = FromConfig(Write("socket.path=/run/\\u0073nowcar.sock\n"));
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(*v, "/run/snowcar.sock");
}

TEST_F(SocketPathTest, MalformedLinesMatterOnlyWithoutSocketPath) {
  // The CLI does not validate the rest of the file: a bad line elsewhere is not its business.
  auto v = FromConfig(Write("bad=\\u00zz\nsocket.path=/run/a.sock\n"));
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(*v, "/run/a.sock");
  // Without socket.path, the malformed line may be where it was meant to be: an error naming
  // the file and the line, never a silent fall-back to the default socket.
  v = FromConfig(Write("socket.path=/run/\\u00zz\n"));
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.status().message().find("c.properties:1"), std::string::npos) << v.status().message();
}

TEST_F(SocketPathTest, MissingFileNamesIt) {
  auto v = FromConfig(dir_ + "/absent.properties");
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.status().message().find("absent.properties"), std::string::npos);
}

TEST_F(SocketPathTest, SocketPathPrecedence) {
  const std::string config = Write("socket.path=/from/config.sock\n");
  EXPECT_EQ(*ResolveSocketPath("/flag.sock", "", Env("/env.sock")), "/flag.sock");
  EXPECT_EQ(*ResolveSocketPath("", config, Env("/env.sock")), "/from/config.sock");
  EXPECT_EQ(*ResolveSocketPath("", Write("a=b\n"), Env("/env.sock")), "/env.sock");
  EXPECT_EQ(*ResolveSocketPath("", "", Env("/env.sock")), "/env.sock");
  EXPECT_EQ(*ResolveSocketPath("", "", Env(std::nullopt)), "/var/run/snowcar/snowcar.sock");
  EXPECT_FALSE(ResolveSocketPath("", dir_ + "/nope", Env(std::nullopt)).ok());
}

}  // namespace
}  // namespace snowcar::cli
