// SPDX-License-Identifier: Apache-2.0
// The shared test helpers in tests/support behave as their headers say; other engineers'
// tests build on them.
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "support/child_process.h"
#include "support/temp_dir.h"
#include "support/wait.h"

namespace snowcar::testsupport {
namespace {

using namespace std::chrono_literals;

TEST(TempDir, CreatesAndRemovesItsDirectory) {
  std::filesystem::path kept;
  {
    TempDir dir("support-test");
    kept = dir.path();
    ASSERT_TRUE(std::filesystem::is_directory(kept));
    EXPECT_NE(kept.filename().string().find("support-test-"), std::string::npos);
    std::filesystem::create_directories(dir.path() / "a" / "b");
    std::ofstream(dir.File("a/b/file.txt")) << "x";
    EXPECT_TRUE(std::filesystem::exists(dir.File("a/b/file.txt")));
  }
  EXPECT_FALSE(std::filesystem::exists(kept));
}

TEST(TempDir, TwoDirsDiffer) {
  TempDir a, b;
  EXPECT_NE(a.path(), b.path());
}

TEST(WaitFor, ReturnsAsSoonAsTheConditionHolds) {
  std::atomic<bool> flag{false};
  std::thread setter([&] { flag = true; });
  EXPECT_TRUE(WaitFor([&] { return flag.load(); }, 10s));
  setter.join();
}

TEST(WaitFor, GivesUpAtTheDeadline) {
  int calls = 0;
  EXPECT_FALSE(WaitFor([&] { return ++calls < 0; }, 50ms, 5ms));
  EXPECT_GE(calls, 2);
}

TEST(UniqueName, NeverRepeats) {
  EXPECT_NE(UniqueName("t"), UniqueName("t"));
  EXPECT_EQ(UniqueName("topic").rfind("topic-", 0), 0u);
}

TEST(ChildProcess, ReadsLinesAndExitCode) {
  ChildOptions opts;
  opts.args = {"-c", "echo first; echo second; echo oops >&2; exit 3"};
  opts.capture_stderr = true;
  auto child = ChildProcess::Spawn("/bin/sh", opts);
  ASSERT_TRUE(child.ok()) << child.status().ToString();
  auto l1 = (*child)->ReadLine(10s);
  ASSERT_TRUE(l1.ok()) << l1.status().ToString();
  EXPECT_EQ(*l1, "first");
  auto l2 = (*child)->ReadLine(10s);
  ASSERT_TRUE(l2.ok());
  EXPECT_EQ(*l2, "second");
  auto status = (*child)->Wait(10s);
  ASSERT_TRUE(status.ok()) << status.status().ToString();
  EXPECT_TRUE(status->exited);
  EXPECT_EQ(status->code, 3);
  EXPECT_FALSE(status->ok());
  EXPECT_EQ(status->ToString(), "exit 3");
  EXPECT_TRUE(WaitFor([&] { return (*child)->Stderr() == "oops\n"; }, 10s)) << (*child)->Stderr();
  // stdout is closed now: no more lines, and the error says so.
  auto l3 = (*child)->ReadLine(10s);
  EXPECT_EQ(l3.status().code(), StatusCode::kFailedPrecondition);
}

TEST(ChildProcess, ReadLineTimesOutWhenNothingComes) {
  auto child = ChildProcess::Spawn("sleep", {.args = {"30"}});
  ASSERT_TRUE(child.ok()) << child.status().ToString();
  auto line = (*child)->ReadLine(100ms);
  EXPECT_EQ(line.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ((*child)->Wait(50ms).status().code(), StatusCode::kDeadlineExceeded);
  ASSERT_TRUE((*child)->Signal(SIGTERM).ok());
  auto status = (*child)->Wait(10s);
  ASSERT_TRUE(status.ok());
  EXPECT_FALSE(status->exited);
  EXPECT_EQ(status->signal, SIGTERM);
  EXPECT_EQ((*child)->Signal(SIGTERM).code(), StatusCode::kFailedPrecondition);
}

TEST(ChildProcess, PassesEnvironmentAndStdin) {
  ChildOptions opts;
  opts.args = {"-c", "echo \"$SNOWCAR_TEST_VAR\"; cat"};
  opts.env = {{"SNOWCAR_TEST_VAR", "hello env"}};
  opts.pipe_stdin = true;
  auto child = ChildProcess::Spawn("/bin/sh", opts);
  ASSERT_TRUE(child.ok());
  auto l1 = (*child)->ReadLine(10s);
  ASSERT_TRUE(l1.ok());
  EXPECT_EQ(*l1, "hello env");
  ASSERT_TRUE((*child)->WriteStdin("echoed line\n").ok());
  auto l2 = (*child)->ReadLine(10s);
  ASSERT_TRUE(l2.ok());
  EXPECT_EQ(*l2, "echoed line");
  (*child)->CloseStdin();
  auto status = (*child)->Wait(10s);
  ASSERT_TRUE(status.ok());
  EXPECT_TRUE(status->ok());
}

TEST(ChildProcess, ChildStartsWithDefaultSignalHandling) {
  // The test process ignores SIGPIPE (see child_process.cpp); the child must not inherit that.
  auto run = RunToCompletion("/bin/sh", {.args = {"-c", "grep SigIgn /proc/self/status"}}, 10s);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  const auto pos = run->out.find_first_of("0123456789abcdef", run->out.find(':'));
  ASSERT_NE(pos, std::string::npos) << run->out;
  const unsigned long long ignored = std::stoull(run->out.substr(pos), nullptr, 16);
  EXPECT_EQ(ignored & (1ULL << (SIGPIPE - 1)), 0u) << run->out;
}

TEST(ChildProcess, MissingBinaryIsAnError) {
  auto child = ChildProcess::Spawn("/nonexistent/snowcar-nope", {});
  ASSERT_FALSE(child.ok());
  EXPECT_NE(child.status().message().find("/nonexistent/snowcar-nope"), std::string::npos);
}

TEST(RunToCompletion, CollectsOutputAndFeedsInput) {
  auto run =
      RunToCompletion("/bin/sh", {.args = {"-c", "tr a-z A-Z; echo done >&2"}}, 10s, "abc\n");
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_TRUE(run->status.ok());
  EXPECT_EQ(run->out, "ABC\n");
  EXPECT_EQ(run->err, "done\n");
}

TEST(RunToCompletion, KillsAndReportsAChildThatOverruns) {
  auto run = RunToCompletion("sleep", {.args = {"30"}}, 200ms);
  EXPECT_EQ(run.status().code(), StatusCode::kDeadlineExceeded);
}

}  // namespace
}  // namespace snowcar::testsupport
