// `snowcar config ...` driven in-process through ConfigMain, output captured from fds 1 and 2.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "cli/commands.h"
#include "snowcar/common/redact.h"
#include "snowcar/config/options.h"
#include "temp_dir.h"

namespace snowcar::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

struct Outcome {
  int code;
  std::string out;
  std::string err;
};

Outcome RunConfig(std::vector<std::string> args) {
  args.insert(args.begin(), "config");
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const int code = ConfigMain(static_cast<int>(args.size()), argv.data());
  std::fflush(stdout);
  std::fflush(stderr);
  Outcome o{code, ::testing::internal::GetCapturedStdout(),
            ::testing::internal::GetCapturedStderr()};
  return o;
}

class CmdConfigTest : public ::testing::Test {
 protected:
  void TearDown() override { redact::ClearForTest(); }
  config::testing::TempDir dir_;
};

TEST_F(CmdConfigTest, CheckValidFilePrintsKeyCountAndNotes) {
  const std::string path = dir_.Write(
      "ok.properties", "source.enabled=false\nsink.enabled=false\nthreads=2\ntasks.max=1\n");
  const Outcome o = RunConfig({"check", path, "--set", "log.level=debug"});
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("config OK: 4 keys"));
  EXPECT_THAT(o.out, HasSubstr("note: tasks.max"));
}

TEST_F(CmdConfigTest, CheckInvalidExitsTwoListingEveryProblem) {
  const std::string path = dir_.Write("bad.properties", "threads=many\nlog.format=xml\nnope=1\n");
  const Outcome o =
      RunConfig({"check", path, "--set=source.enabled=false", "--set", "sink.enabled=0"});
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.err, HasSubstr("invalid configuration (4 problems)"));
  EXPECT_THAT(o.err, HasSubstr("threads: 'many'"));
  EXPECT_THAT(o.err, HasSubstr("log.format: 'xml'"));
  EXPECT_THAT(o.err, HasSubstr("unknown key 'nope'"));
  EXPECT_THAT(o.err, HasSubstr("sink.enabled: '0' is not a boolean"));
}

TEST_F(CmdConfigTest, CheckAppliesProcessEnvironment) {
  const std::string path =
      dir_.Write("ok.properties", "source.enabled=false\nsink.enabled=false\n");
  ASSERT_EQ(setenv("SNOWCAR_THREADS", "lots", 1), 0);
  const Outcome o = RunConfig({"check", path});
  unsetenv("SNOWCAR_THREADS");
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.err, HasSubstr("threads: 'lots' is not a whole number"));
  EXPECT_THAT(o.err, HasSubstr("[environment SNOWCAR_THREADS]"));
}

TEST_F(CmdConfigTest, PrintRedactsSecretsAndReparses) {
  const std::string path = dir_.Write("p.properties",
                                      "snow.url=https://acme.service-now.com/\n"
                                      "snow.auth.username=svc\nsnow.auth.password=pw-777777\n");
  const Outcome o = RunConfig({"print", path});
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("snow.url=https://acme.service-now.com\n"));
  EXPECT_THAT(o.out, HasSubstr("snow.auth.password=[redacted]\n"));
  EXPECT_THAT(o.out, HasSubstr("threads=0\n"));
  EXPECT_THAT(o.out, Not(HasSubstr("pw-777777")));
}

TEST_F(CmdConfigTest, PrintJson) {
  const Outcome o = RunConfig({"print", "--json", "--set", "source.enabled=false", "--set",
                               "sink.enabled=false", "--set", "kafka.sasl.password=kpw-1234"});
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr(R"("state.dir":"/var/lib/snowcar")"));
  EXPECT_THAT(o.out, HasSubstr(R"("kafka.sasl.password":"[redacted]")"));
}

TEST_F(CmdConfigTest, DocsPrintsTheReference) {
  const Outcome o = RunConfig({"docs"});
  EXPECT_EQ(o.code, 0);
  EXPECT_EQ(o.out, config::RenderMarkdownReference());
}

TEST_F(CmdConfigTest, UsageErrors) {
  EXPECT_EQ(RunConfig({}).code, 2);
  EXPECT_THAT(RunConfig({"frobnicate"}).err, HasSubstr("unknown subcommand 'frobnicate'"));
  EXPECT_THAT(RunConfig({"check", "--set"}).err, HasSubstr("--set needs key=value"));
  EXPECT_THAT(RunConfig({"check", "a", "b"}).err, HasSubstr("more than one FILE"));
  EXPECT_THAT(RunConfig({"check", "--json"}).err, HasSubstr("unknown option '--json'"));
  EXPECT_EQ(RunConfig({"--help"}).code, 0);
}

TEST_F(CmdConfigTest, MissingFileExitsTwo) {
  const Outcome o = RunConfig({"check", dir_.Path("missing.properties")});
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.err, HasSubstr("missing.properties"));
}

}  // namespace
}  // namespace snowcar::cli
