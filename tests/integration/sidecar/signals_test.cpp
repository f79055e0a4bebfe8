// SPDX-License-Identifier: Apache-2.0
// What each signal does to the real binary (docs/operations.md, "Signals"): SIGHUP stops
// `snowcar run` as cleanly as SIGTERM, SIGUSR1/SIGUSR2 are logged and ignored, SIGPIPE is
// ignored, and a log pipe whose reader went away (`snowcar run ... 2>&1 | head -1`) does not
// kill it. `emulate` and `broker` stop on SIGHUP and ignore the others.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <string>
#include <vector>

#include "sidecar_test_util.h"
#include "support/child_process.h"
#include "support/temp_dir.h"
#include "support/wait.h"

extern char** environ;

namespace snowcar {
namespace {

using namespace std::chrono_literals;
using sidecartest::SocketGet;

class SignalsTest : public ::testing::Test {
 protected:
  std::vector<std::string> Sets() {
    return {"state.dir=" + dir_.File("state"), "socket.path=" + socket_, "log.format=json"};
  }

  std::unique_ptr<testsupport::ChildProcess> StartReady() {
    auto child = sidecartest::SpawnRun(sidecartest::ShellOnlyConfig(), Sets());
    if (child == nullptr) return nullptr;
    const bool ready = testsupport::WaitFor(
        [&] { return SocketGet(socket_, "/v1/ready").first == 200; }, 20s, 25ms);
    EXPECT_TRUE(ready) << child->Stderr();
    return ready ? std::move(child) : nullptr;
  }

  testsupport::TempDir dir_{"snowcar-signals"};
  std::string socket_ = dir_.File("run/snowcar.sock");
};

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST_F(SignalsTest, SighupStopsCleanlyLikeSigterm) {
  auto child = StartReady();
  ASSERT_NE(child, nullptr);
  ASSERT_TRUE(child->Signal(SIGHUP).ok());
  auto exit = child->Wait(20s);
  ASSERT_TRUE(exit.ok()) << exit.status().ToString();
  EXPECT_TRUE(exit->ok()) << exit->ToString() << "\n" << child->Stderr();
  EXPECT_FALSE(std::filesystem::exists(socket_)) << "socket file left behind";
  ASSERT_TRUE(child->WaitStreamsDrained(10s));
  const std::string err = child->Stderr();
  EXPECT_NE(err.find(R"("event":"sidecar.stopping","reason":"SIGHUP")"), std::string::npos) << err;
  EXPECT_NE(err.find(R"("event":"sidecar.stopped")"), std::string::npos) << err;
}

TEST_F(SignalsTest, Sigusr1Sigusr2AndSigpipeAreIgnored) {
  auto child = StartReady();
  ASSERT_NE(child, nullptr);
  ASSERT_TRUE(child->Signal(SIGUSR1).ok());
  ASSERT_TRUE(child->Signal(SIGUSR2).ok());
  ASSERT_TRUE(child->Signal(SIGPIPE).ok());
  // Each user signal leaves a log line, and the sidecar goes on serving.
  ASSERT_TRUE(testsupport::WaitFor(
      [&] { return Count(child->Stderr(), R"("event":"sidecar.signal_ignored")") == 2; }, 10s))
      << child->Stderr();
  EXPECT_NE(child->Stderr().find(R"("signal":"SIGUSR1")"), std::string::npos);
  EXPECT_NE(child->Stderr().find(R"("signal":"SIGUSR2")"), std::string::npos);
  EXPECT_EQ(SocketGet(socket_, "/v1/health").first, 200);

  ASSERT_TRUE(child->Signal(SIGTERM).ok());
  auto exit = child->Wait(20s);
  ASSERT_TRUE(exit.ok()) << exit.status().ToString();
  EXPECT_TRUE(exit->ok()) << exit->ToString() << "\n" << child->Stderr();
  EXPECT_FALSE(std::filesystem::exists(socket_));
}

// `snowcar run ... 2>&1 | head -1`: stdout and stderr are one pipe, and its reader leaves
// after the first line. Every later log line then meets a pipe without a reader.
TEST_F(SignalsTest, LogPipeWithoutReaderDoesNotKillRun) {
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  std::vector<std::string> args = {SNOWCAR_BINARY, "run", "--config",
                                   sidecartest::ShellOnlyConfig()};
  for (const std::string& set : Sets()) {
    args.push_back("--set");
    args.push_back(set);
  }
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
  // Default dispositions, as a shell gives them: this test process ignores SIGPIPE.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  for (int s : {SIGPIPE, SIGHUP, SIGUSR1, SIGUSR2, SIGTERM, SIGINT}) sigaddset(&defaults, s);
  sigset_t empty;
  sigemptyset(&empty);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setsigmask(&attr, &empty);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, SNOWCAR_BINARY, &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  ASSERT_EQ(rc, 0) << std::strerror(rc);
  ::close(fds[1]);

  // head -1: read up to the first line break, then go away.
  std::string first;
  char c = 0;
  while (::read(fds[0], &c, 1) == 1 && c != '\n') first += c;
  ::close(fds[0]);
  EXPECT_FALSE(first.empty());

  // Reaps the child whatever happens below.
  struct Reaper {
    pid_t pid;
    int status = 0;
    bool reaped = false;
    bool Poll() {
      if (!reaped && ::waitpid(pid, &status, WNOHANG) == pid) reaped = true;
      return reaped;
    }
    ~Reaper() {
      if (!reaped) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
      }
    }
  } child{pid};

  // Start-up goes on logging into the dead pipe; readiness says it got through.
  const bool ready = testsupport::WaitFor(
      [&] { return child.Poll() || SocketGet(socket_, "/v1/ready").first == 200; }, 20s, 25ms);
  ASSERT_TRUE(ready);
  ASSERT_FALSE(child.reaped) << "died with status " << child.status;
  // One more log line for certain, written after the reader left.
  ASSERT_EQ(::kill(pid, SIGUSR1), 0);
  EXPECT_EQ(SocketGet(socket_, "/v1/health").first, 200);

  ASSERT_EQ(::kill(pid, SIGTERM), 0);
  ASSERT_TRUE(testsupport::WaitFor([&] { return child.Poll(); }, 20s));
  ASSERT_TRUE(WIFEXITED(child.status))
      << "killed by signal " << (WIFSIGNALED(child.status) ? WTERMSIG(child.status) : 0);
  EXPECT_EQ(WEXITSTATUS(child.status), 0);
  EXPECT_FALSE(std::filesystem::exists(socket_)) << "socket file left behind";
}

// The helper commands: the user signals and SIGPIPE do nothing, SIGHUP stops them cleanly.
// A signal whose default action kills is fatal the moment it is sent, so had any of the
// first three killed the process, its status would name that signal.
TEST(HelperCommandSignalsTest, EmulateAndBrokerStopOnSighupAndIgnoreTheRest) {
  const std::vector<std::vector<std::string>> commands = {
      {"emulate", "--port", "0", "--tables", "incident:1"},
      {"broker", "--topics", "t:1"},
  };
  for (const auto& args : commands) {
    SCOPED_TRACE(args[0]);
    auto child =
        testsupport::ChildProcess::Spawn(SNOWCAR_BINARY, {.args = args, .capture_stderr = true});
    ASSERT_TRUE(child.ok()) << child.status().ToString();
    auto address = (*child)->ReadLine(30s);  // serving from here on
    ASSERT_TRUE(address.ok()) << address.status().ToString() << (*child)->Stderr();
    for (int signo : {SIGUSR1, SIGUSR2, SIGPIPE, SIGHUP}) {
      ASSERT_TRUE((*child)->Signal(signo).ok());
    }
    auto exit = (*child)->Wait(30s);
    ASSERT_TRUE(exit.ok()) << exit.status().ToString();
    EXPECT_TRUE(exit->ok()) << exit->ToString() << "\n" << (*child)->Stderr();
  }
}

}  // namespace
}  // namespace snowcar
