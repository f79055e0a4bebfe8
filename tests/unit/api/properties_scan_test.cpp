#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <utility>

#include "snowcar/api/state_cli.h"

namespace snowcar::api {
namespace {

class PropertiesScanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/snowcar-api-props-XXXXXX";
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

TEST_F(PropertiesScanTest, FindsKeyInEachSeparatorStyle) {
  for (const char* line : {"socket.path=/run/a.sock", "socket.path = /run/a.sock",
                           "  socket.path: /run/a.sock", "socket.path /run/a.sock"}) {
    auto v =
        FindPropertyInFile(Write(std::string("# comment\nother=1\n") + line + "\n"), "socket.path");
    ASSERT_TRUE(v.ok()) << v.status().ToString();
    ASSERT_TRUE(v->has_value()) << line;
    EXPECT_EQ(**v, "/run/a.sock") << line;
  }
}

TEST_F(PropertiesScanTest, IgnoresCommentsAndSimilarKeysAndHonoursContinuations) {
  auto v =
      FindPropertyInFile(Write("#socket.path=/wrong\n! socket.path=/wrong\nsocket.path.x=/wrong\n"
                               "socket.path=/run/\\\n   long.sock\r\n"),
                         "socket.path");
  ASSERT_TRUE(v.ok());
  ASSERT_TRUE(v->has_value());
  EXPECT_EQ(**v, "/run/long.sock");
}

TEST_F(PropertiesScanTest, LastOccurrenceWinsAndAbsentIsNullopt) {
  auto v = FindPropertyInFile(Write("socket.path=/a\nsocket.path=/b\n"), "socket.path");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->value(), "/b");
  v = FindPropertyInFile(Write("state.dir=/x\n"), "socket.path");
  ASSERT_TRUE(v.ok());
  EXPECT_FALSE(v->has_value());
}

TEST_F(PropertiesScanTest, MissingFileNamesIt) {
  auto v = FindPropertyInFile(dir_ + "/absent.properties", "socket.path");
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.status().message().find("absent.properties"), std::string::npos);
}

TEST_F(PropertiesScanTest, SocketPathPrecedence) {
  const std::string config = Write("socket.path=/from/config.sock\n");
  EXPECT_EQ(*ResolveSocketPath("/flag.sock", "", Env("/env.sock")), "/flag.sock");
  EXPECT_EQ(*ResolveSocketPath("", config, Env("/env.sock")), "/from/config.sock");
  EXPECT_EQ(*ResolveSocketPath("", Write("a=b\n"), Env("/env.sock")), "/env.sock");
  EXPECT_EQ(*ResolveSocketPath("", "", Env("/env.sock")), "/env.sock");
  EXPECT_EQ(*ResolveSocketPath("", "", Env(std::nullopt)), "/var/run/snowcar/snowcar.sock");
  EXPECT_FALSE(ResolveSocketPath("", dir_ + "/nope", Env(std::nullopt)).ok());
}

}  // namespace
}  // namespace snowcar::api
