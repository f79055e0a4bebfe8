// SPDX-License-Identifier: Apache-2.0
// What `snowcar run` writes on stderr: one JSON object per line by default, plain text with
// log.format=text, nothing below log.level, and the TLS warning whenever verification is off.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <csignal>
#include <fstream>
#include <regex>
#include <sstream>

#include "sidecar_test_util.h"
#include "snowcar/state/state_store.h"
#include "support/temp_dir.h"

namespace snowcar {
namespace {

using namespace std::chrono_literals;

using testsupport::Lines;

// Runs the shell-only sidecar until ready, stops it, and returns its whole stderr.
std::string RunOnce(const std::vector<std::string>& extra) {
  testsupport::TempDir dir("snowcar-logs");
  const std::string socket = dir.File("s.sock");
  std::vector<std::string> sets = {"state.dir=" + dir.File("state"), "socket.path=" + socket};
  sets.insert(sets.end(), extra.begin(), extra.end());
  // The shipped shell-only example sets log.format=text; start from a file without log keys
  // so the default (json) is what runs unless a test sets it.
  const std::string config = dir.File("sidecar.properties");
  {
    std::ofstream out(config);
    out << "source.enabled=false\nsink.enabled=false\nthreads=2\n";
  }
  auto child = sidecartest::SpawnRun(config, sets);
  if (child == nullptr) return "";
  EXPECT_TRUE(testsupport::WaitFor(
      [&] { return sidecartest::SocketGet(socket, "/v1/ready").first == 200; }, 20s))
      << child->Stderr();
  sidecartest::StopCleanly(*child);
  return child->Stderr();
}

TEST(LogOutputTest, DefaultIsOneJsonObjectPerLine) {
  const std::string err = RunOnce({});
  const auto lines = Lines(err);
  ASSERT_GE(lines.size(), 3u) << err;
  bool saw_ready = false;
  for (const auto& line : lines) {
    boost::system::error_code ec;
    auto v = boost::json::parse(line, ec);
    ASSERT_FALSE(ec) << "not JSON: " << line;
    ASSERT_TRUE(v.is_object()) << line;
    const auto& o = v.as_object();
    for (const char* key : {"ts", "level", "event"}) {
      ASSERT_TRUE(o.contains(key) && o.at(key).is_string()) << key << " missing in " << line;
    }
    EXPECT_TRUE(std::regex_match(std::string(o.at("ts").as_string()),
                                 std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)")))
        << line;
    saw_ready = saw_ready || o.at("event").as_string() == "sidecar.ready";
  }
  EXPECT_TRUE(saw_ready) << err;
}

TEST(LogOutputTest, TextFormatIsTimestampLevelEventAndFields) {
  const std::string err = RunOnce({"log.format=text"});
  const auto lines = Lines(err);
  ASSERT_GE(lines.size(), 3u) << err;
  const std::regex shape(
      R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (TRACE|DEBUG|INFO|WARN|ERROR) [a-z0-9_.]+( .*)?)");
  for (const auto& line : lines) {
    EXPECT_TRUE(std::regex_match(line, shape)) << line;
    EXPECT_NE(line.front(), '{') << line;
  }
  EXPECT_NE(err.find(" INFO sidecar.ready "), std::string::npos) << err;
}

TEST(LogOutputTest, WarnLevelDropsInfoAndTlsOffWarnsAtEveryStart) {
  for (int start = 0; start < 2; ++start) {
    const std::string err = RunOnce({"log.level=warn", "snow.tls.verify=false"});
    const auto lines = Lines(err);
    ASSERT_FALSE(lines.empty()) << "the TLS warning must be there";
    for (const auto& line : lines) {
      EXPECT_EQ(line.find("\"level\":\"info\""), std::string::npos) << line;
      EXPECT_EQ(line.find("\"level\":\"debug\""), std::string::npos) << line;
    }
    EXPECT_NE(err.find("\"level\":\"warn\",\"event\":\"config.tls_verify_disabled\""),
              std::string::npos)
        << "start " << start << ":\n"
        << err;
  }
  // With verification on (the default), no such warning.
  const std::string verified = RunOnce({"log.level=warn"});
  EXPECT_EQ(verified.find("tls_verify_disabled"), std::string::npos) << verified;
}

// `snowcar --version`: the build's version (CMake's project VERSION) and the state schema it
// writes, the same two facts snowcar_build_info carries.
TEST(VersionTest, VersionNamesTheReleaseAndTheStateSchema) {
  testsupport::ChildOptions opts;
  opts.args = {"--version"};
  auto r = testsupport::RunToCompletion(SNOWCAR_BINARY, opts, 30s);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->status.ok()) << r->status.ToString();
  EXPECT_EQ(r->out, "snowcar " + std::string(SNOWCAR_PROJECT_VERSION) + " (state schema " +
                        std::to_string(state::kSchemaVersion) + ")\n");
}

}  // namespace
}  // namespace snowcar
