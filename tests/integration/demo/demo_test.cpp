// SPDX-License-Identifier: Apache-2.0
// `snowcar demo` end to end: it starts the emulator, the broker and a sidecar in one process
// group, shows rows flowing for every table and commands applied, runs `snowcar state`,
// restarts the sidecar without re-emitting anything, and leaves no process or file behind,
// whether it stops on --seconds or on Ctrl-C.
#include <gtest/gtest.h>
#include <signal.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "support/child_process.h"
#include "support/temp_dir.h"

namespace snowcar {
namespace {

using namespace std::chrono_literals;

const std::vector<std::string> kTables = {"incident", "change_request", "sys_user"};

// The first capture group of the first line matching `pattern`, if any.
std::optional<std::string> Find(const std::string& output, const std::string& pattern) {
  const std::regex re(pattern);
  std::istringstream in(output);
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, re)) return m.size() > 1 ? m[1].str() : m[0].str();
  }
  return std::nullopt;
}

int64_t FindInt(const std::string& output, const std::string& pattern) {
  auto text = Find(output, pattern);
  return text ? std::stoll(*text) : -1;
}

// True when no process of the group is left (the group no longer exists).
bool GroupGone(pid_t pgid) { return ::kill(-pgid, 0) == -1 && errno == ESRCH; }

testsupport::ChildOptions DemoOptions(const testsupport::TempDir& tmp,
                                      std::vector<std::string> args) {
  testsupport::ChildOptions options;
  options.args = {"demo"};
  options.args.insert(options.args.end(), args.begin(), args.end());
  // The demo's work directory goes under this test's own temp dir.
  options.env = {{"TMPDIR", tmp.path().string()}};
  options.capture_stderr = true;
  return options;
}

// The demo's process group is gone: none of its children is left running.
void ExpectChildrenGone(const std::string& out) {
  const int64_t pgid = FindInt(out, "process group ([0-9]+)");
  ASSERT_GT(pgid, 0) << out;
  EXPECT_TRUE(GroupGone(static_cast<pid_t>(pgid)));
}

// The demo removed the work dir it named.
void ExpectWorkDirRemoved(const std::string& out) {
  const auto work = Find(out, "work dir (\\S+);");
  ASSERT_TRUE(work) << out;
  EXPECT_FALSE(std::filesystem::exists(*work)) << *work;
}

// Starts the demo on 100 rows and reads its stdout into `seen` until the sidecar is up: every
// child of the demo is running then.
void StartUntilSidecarUp(const testsupport::TempDir& tmp,
                         std::unique_ptr<testsupport::ChildProcess>& child, std::string& seen) {
  auto spawned =
      testsupport::ChildProcess::Spawn(SNOWCAR_BINARY, DemoOptions(tmp, {"--rows", "100"}));
  ASSERT_TRUE(spawned.ok()) << spawned.status().message();
  child = std::move(spawned).value();
  while (seen.find("sidecar pid") == std::string::npos) {
    auto line = child->ReadLine(60s);
    ASSERT_TRUE(line.ok()) << line.status().message() << "\n" << seen;
    seen += *line + "\n";
  }
}

// After a stop signal: the rest of stdout goes to `seen`, and the demo exits 0.
void ExpectStopped(testsupport::ChildProcess& child, std::string& seen) {
  auto rest = child.ReadAllStdout(60s);
  ASSERT_TRUE(rest.ok()) << rest.status().message();
  seen += *rest;
  auto exit = child.Wait(30s);
  ASSERT_TRUE(exit.ok());
  EXPECT_TRUE(exit->ok()) << exit->ToString() << "\n" << seen << child.Stderr();
}

TEST(DemoTest, RunsBothDirectionsRestartsWithoutDuplicatesAndCleansUp) {
  testsupport::TempDir tmp("snowcar-demo-test");
  auto run = testsupport::RunToCompletion(
      SNOWCAR_BINARY, DemoOptions(tmp, {"--seconds", "20", "--rows", "300"}), 110s);
  ASSERT_TRUE(run.ok()) << run.status().message();
  const std::string& out = run->out;
  ASSERT_TRUE(run->status.ok()) << run->status.ToString() << "\n" << out << "\n" << run->err;

  for (const auto& table : kTables) {
    std::string pattern = "^  " + table;
    pattern.append(": ([0-9]+) rows in snow\\.").append(table);
    EXPECT_GT(FindInt(out, pattern), 0) << table << "\n" << out;
  }
  // Live progress from the socket, before and after the restart.
  EXPECT_TRUE(Find(out, "^  TABLE +STATE +PHASE +READ +EMITTED +DUP-SUPPR +LAG$")) << out;
  EXPECT_TRUE(Find(out, "^\\[ +[0-9]+s\\] sidecar run 2 ")) << out;
  EXPECT_GT(
      FindInt(out, "^  sink: commands sent [0-9]+, applied ([0-9]+), failed [0-9]+ in total$"), 0)
      << out;
  // The socket answered the real CLI.
  EXPECT_TRUE(Find(out, "^\\$ snowcar state --socket \\S+ health$")) << out;
  EXPECT_TRUE(Find(out, "^  status: (ok|degraded)$")) << out;
  EXPECT_TRUE(
      Find(out, "^\\$ snowcar state --socket \\S+ correlation incident correlation_id demo-1$"))
      << out;
  // The broker's cap, said up front; 300 rows a table are far from it.
  EXPECT_TRUE(
      Find(out, "the broker keeps 5 MiB per partition .* reaches it after about [0-9]+ min"))
      << out;
  EXPECT_FALSE(Find(out, "the broker had dropped")) << out;
  // The restart: rows before it, and nothing emitted twice.
  EXPECT_GT(FindInt(out, "restart: emitted before restart ([0-9]+), after restart [0-9]+, "), 0)
      << out;
  EXPECT_EQ(FindInt(out, "duplicates re-emitted: ([0-9]+)$"), 0) << out;

  ASSERT_NO_FATAL_FAILURE(ExpectChildrenGone(out));
  ExpectWorkDirRemoved(out);
}

// More rows than the embedded broker holds (5 MiB per partition, about 3 700 of these records
// on each of snow.incident's 3): the demo says so up front and in its counts, and still
// finds nothing re-emitted among what the broker kept.
TEST(DemoTest, SaysWhenTheBrokerDroppedRecords) {
  testsupport::TempDir tmp("snowcar-demo-test");
  auto run = testsupport::RunToCompletion(
      SNOWCAR_BINARY,
      DemoOptions(tmp,
                  {"--seconds", "20", "--tables", "incident", "--rows", "16000", "--rate", "1"}),
      110s);
  ASSERT_TRUE(run.ok()) << run.status().message();
  const std::string& out = run->out;
  ASSERT_TRUE(run->status.ok()) << run->status.ToString() << "\n" << out << "\n" << run->err;
  EXPECT_TRUE(Find(out, "the broker keeps 5 MiB per partition .* already with the first load"))
      << out;
  EXPECT_GT(FindInt(out,
                    "^  incident: [0-9]+ rows in snow\\.incident .*; the broker had dropped "
                    "the oldest ([0-9]+) "),
            0)
      << out;
  EXPECT_EQ(FindInt(out, "duplicates re-emitted: ([0-9]+)$"), 0) << out;
}

TEST(DemoTest, CtrlCStopsEveryChildAndRemovesTheWorkDir) {
  testsupport::TempDir tmp("snowcar-demo-test");
  std::unique_ptr<testsupport::ChildProcess> child;
  std::string seen;
  ASSERT_NO_FATAL_FAILURE(StartUntilSidecarUp(tmp, child, seen));
  ASSERT_TRUE(child->Signal(SIGINT).ok());
  ASSERT_NO_FATAL_FAILURE(ExpectStopped(*child, seen));
  EXPECT_TRUE(Find(seen, "== SIGINT received")) << seen;

  ASSERT_NO_FATAL_FAILURE(ExpectChildrenGone(seen));
  ExpectWorkDirRemoved(seen);
}

// A closed terminal (SIGHUP) stops the demo as Ctrl-C does; the user signals do nothing.
// Had SIGUSR1 killed the demo (its default action), its children would be left running.
TEST(DemoTest, HangupStopsEveryChildAndUserSignalsAreIgnored) {
  testsupport::TempDir tmp("snowcar-demo-test");
  std::unique_ptr<testsupport::ChildProcess> child;
  std::string seen;
  ASSERT_NO_FATAL_FAILURE(StartUntilSidecarUp(tmp, child, seen));
  ASSERT_TRUE(child->Signal(SIGUSR1).ok());
  ASSERT_TRUE(child->Signal(SIGUSR2).ok());
  ASSERT_TRUE(child->Signal(SIGHUP).ok());
  ASSERT_NO_FATAL_FAILURE(ExpectStopped(*child, seen));
  EXPECT_TRUE(Find(seen, "== SIGHUP received")) << seen;
  ExpectChildrenGone(seen);
}

TEST(DemoTest, RefusesBadOptionsNamingThem) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--seconds", "soon"}, "--seconds: 'soon' is not a whole number"},
      {{"--tables", "change_request"}, "--tables must include incident"},
      {{"--tables", "incident,Bad"}, "'Bad' is not a table name"},
      {{"--frobnicate"}, "unknown argument '--frobnicate'"},
  };
  for (const auto& [args, message] : cases) {
    testsupport::ChildOptions options;
    options.args = {"demo"};
    options.args.insert(options.args.end(), args.begin(), args.end());
    auto run = testsupport::RunToCompletion(SNOWCAR_BINARY, options, 10s);
    ASSERT_TRUE(run.ok()) << run.status().message();
    EXPECT_EQ(run->status.code, 2) << args[0];
    EXPECT_NE(run->err.find(message), std::string::npos) << run->err;
  }
}

}  // namespace
}  // namespace snowcar
