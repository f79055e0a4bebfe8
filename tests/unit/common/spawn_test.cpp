// SPDX-License-Identifier: Apache-2.0
// The one fork/exec: arguments, environment and streams reach the child, a binary that cannot
// run is an error naming it (no child left behind), a new process group, and default signal
// actions in the child whatever the parent set.
#include "snowcar/common/spawn.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

namespace snowcar {
namespace {

// Runs `script` under /bin/sh with stdout on a pipe; the output and the wait status.
struct Ran {
  std::string out;
  int status = -1;
};
Ran RunShell(const std::string& script, SpawnOptions options = {}) {
  int fds[2];
  EXPECT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  options.binary = "sh";  // looked up on PATH
  options.args = {"-c", script};
  options.stdout_fd = fds[1];
  auto pid = Spawn(options);
  ::close(fds[1]);
  Ran ran;
  if (!pid.ok()) {
    ADD_FAILURE() << pid.status().ToString();
    ::close(fds[0]);
    return ran;
  }
  char buf[256];
  ssize_t n = 0;
  while ((n = ::read(fds[0], buf, sizeof buf)) > 0) ran.out.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  EXPECT_EQ(::waitpid(*pid, &ran.status, 0), *pid);
  return ran;
}

TEST(SpawnTest, PassesArgumentsEnvironmentAndStreams) {
  SpawnOptions options;
  options.env = std::vector<std::string>{"GREETING=hello there"};
  const Ran ran = RunShell("read line; echo \"$GREETING|$line|$0\"; exit 3", options);
  EXPECT_EQ(ran.out, "hello there||sh\n") << "stdin is /dev/null, argv[0] the binary";
  EXPECT_EQ(DescribeWaitStatus(ran.status), "exit 3");
}

TEST(SpawnTest, ABinaryThatCannotRunIsAnErrorNamingIt) {
  auto missing = Spawn({.binary = "/nonexistent/snowcar"});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(missing.status().message().find("'/nonexistent/snowcar': No such file"),
            std::string::npos)
      << missing.status().message();
  auto unknown = Spawn({.binary = "no-such-program-snowcar"});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("not found on PATH"), std::string::npos);
  int status = 0;
  EXPECT_EQ(::waitpid(-1, &status, WNOHANG), -1) << "no child left to reap";
}

TEST(SpawnTest, LeadsANewProcessGroup) {
  SpawnOptions options;
  options.process_group = 0;
  const Ran ran = RunShell("cut -d' ' -f5 /proc/$$/stat; echo $$", options);
  const size_t nl = ran.out.find('\n');
  ASSERT_NE(nl, std::string::npos) << ran.out;
  EXPECT_EQ(ran.out.substr(0, nl) + "\n", ran.out.substr(nl + 1)) << "pgid == pid";
  EXPECT_EQ(DescribeWaitStatus(ran.status), "exit 0");
}

TEST(SpawnTest, ChildStartsWithDefaultSignalActions) {
  // Ignored here; the child must still die of it.
  struct sigaction ignore {};
  struct sigaction before {};
  ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(::sigaction(SIGUSR1, &ignore, &before), 0);
  const Ran ran = RunShell("kill -USR1 $$; echo survived");
  ::sigaction(SIGUSR1, &before, nullptr);
  EXPECT_EQ(ran.out, "");
  EXPECT_EQ(DescribeWaitStatus(ran.status), "signal " + std::to_string(SIGUSR1));
}

}  // namespace
}  // namespace snowcar
