// SPDX-License-Identifier: Apache-2.0
#include "snowcar/common/log.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/json/parse.hpp>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "snowcar/common/redact.h"

namespace snowcar::log {
namespace {

// Captures log lines in a temp file for the duration of a test.
class LogCapture {
 public:
  LogCapture() : file_(std::tmpfile()) { SetFd(fileno(file_)); }
  ~LogCapture() {
    SetFd(2);
    SetLevel(Level::kInfo);
    SetFormat(Format::kJson);
    std::fclose(file_);
  }
  std::vector<std::string> Lines() {
    std::fflush(file_);
    std::string all;
    char buf[4096];
    std::rewind(file_);
    size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof buf, file_)) > 0) all.append(buf, n);
    std::vector<std::string> lines;
    size_t start = 0;
    for (size_t i = 0; i < all.size(); ++i) {
      if (all[i] == '\n') {
        lines.push_back(all.substr(start, i - start));
        start = i + 1;
      }
    }
    return lines;
  }

 private:
  std::FILE* file_;
};

TEST(LogTest, JsonLineHasTimestampLevelEventAndTypedFields) {
  LogCapture cap;
  SetFormat(Format::kJson);
  Write(Level::kInfo, "state.opened", {{"dir", "/tmp/x"}, {"cursors", 3}, {"fresh", true}});
  auto lines = cap.Lines();
  ASSERT_EQ(lines.size(), 1u);
  auto v = boost::json::parse(lines[0]).as_object();
  EXPECT_EQ(v.at("level").as_string(), "info");
  EXPECT_EQ(v.at("event").as_string(), "state.opened");
  EXPECT_EQ(v.at("dir").as_string(), "/tmp/x");
  EXPECT_EQ(v.at("cursors").as_int64(), 3);
  EXPECT_EQ(v.at("fresh").as_bool(), true);
  EXPECT_EQ(v.at("ts").as_string().size(), 24u);
}

TEST(LogTest, LevelFiltersBelowThreshold) {
  LogCapture cap;
  SetLevel(Level::kWarn);
  SNOWCAR_LOG(kInfo, "hidden", {});
  SNOWCAR_LOG(kWarn, "shown", {});
  SNOWCAR_LOG(kError, "also.shown", {});
  auto lines = cap.Lines();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[0].find("\"shown\""), std::string::npos);
  EXPECT_FALSE(Enabled(Level::kDebug));
}

TEST(LogTest, ParseLevelAndFormatNameAllowedValues) {
  EXPECT_EQ(*ParseLevel("DEBUG"), Level::kDebug);
  auto bad = ParseLevel("verbose");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'verbose'"), std::string::npos);
  EXPECT_NE(bad.status().message().find("trace, debug, info, warn, error"), std::string::npos);
  EXPECT_EQ(*ParseFormat("Text"), Format::kText);
  EXPECT_FALSE(ParseFormat("xml").ok());
}

TEST(LogTest, SecretsNeverReachTheLine) {
  LogCapture cap;
  redact::RegisterSecret("hunter2-very-secret");
  SetLevel(Level::kTrace);
  Write(Level::kDebug, "http.request",
        {{"authorization", "Basic YWRtaW46aHVudGVyMg=="},
         {"message", "login failed for admin:hunter2-very-secret"},
         {"header", "Authorization: Bearer eyJhbGciOi.abc.def"}});
  SetFormat(Format::kText);
  Write(Level::kError, "oauth.failed",
        {{"client_secret", "hunter2-very-secret"},
         {"body", "grant_type=password&password=pw123456"}});
  auto lines = cap.Lines();
  ASSERT_EQ(lines.size(), 2u);
  for (const auto& l : lines) {
    EXPECT_EQ(l.find("hunter2"), std::string::npos) << l;
    EXPECT_EQ(l.find("eyJhbGciOi"), std::string::npos) << l;
    EXPECT_EQ(l.find("YWRtaW46aHVudGVyMg"), std::string::npos) << l;
    EXPECT_EQ(l.find("pw123456"), std::string::npos) << l;
  }
  EXPECT_NE(lines[0].find("Bearer ***"), std::string::npos) << lines[0];
  redact::ClearForTest();
}

TEST(LogTest, ConcurrentWritersNeverInterleaveLines) {
  LogCapture cap;
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t] {
      for (int i = 0; i < 200; ++i) Write(Level::kInfo, "tick", {{"thread", t}, {"i", i}});
    });
  }
  for (auto& th : threads) th.join();
  auto lines = cap.Lines();
  ASSERT_EQ(lines.size(), 800u);
  for (const auto& l : lines) EXPECT_NO_THROW(boost::json::parse(l)) << l;
}

}  // namespace
}  // namespace snowcar::log
