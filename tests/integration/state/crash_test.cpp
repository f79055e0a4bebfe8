// SPDX-License-Identifier: Apache-2.0
// Kill -9 in the middle of commits, many times over, and check after each kill that the store
// holds a cursor with every dedup entry it covers and nothing it does not.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>

#include "crash_model.h"
#include "snowcar/common/log.h"
#include "snowcar/state/state_store.h"
#include "support/temp_dir.h"

namespace snowcar::state {
namespace {

using Clock = std::chrono::steady_clock;

using testsupport::TempDir;

// A running crash child and the progress lines it printed.
class Child {
 public:
  Child(const std::string& dir, const DedupPolicy& policy) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
      ADD_FAILURE() << "pipe failed";
      return;
    }
    const std::string overlap = std::to_string(policy.overlap_seconds);
    const std::string window = std::to_string(policy.window_records);
    const char* argv[] = {STATE_CRASH_CHILD, dir.c_str(), overlap.c_str(), window.c_str(), nullptr};
    pid_ = fork();
    if (pid_ == 0) {
      dup2(fds[1], 1);
      execv(argv[0], const_cast<char* const*>(argv));
      _exit(127);
    }
    close(fds[1]);
    fd_ = fds[0];
  }
  ~Child() {
    if (pid_ > 0 && !reaped_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (fd_ >= 0) close(fd_);
  }
  pid_t pid() const { return pid_; }

  // Reads progress until `deadline`; false when the pipe closed (the child is gone).
  bool ReadUntil(Clock::time_point deadline) {
    for (;;) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) return true;
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(left)) <= 0) continue;
      if (!ReadSome()) return false;
    }
  }
  // Waits (with a deadline) until the child said it is ready and committed at least once.
  bool WaitForFirstCommit(Clock::time_point deadline) {
    while (last_committed_ < 0 || !ready_) {
      if (Clock::now() >= deadline) return false;
      pollfd p{fd_, POLLIN, 0};
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (poll(&p, 1, static_cast<int>(std::max<int64_t>(left, 1))) <= 0) continue;
      if (!ReadSome()) return false;
    }
    return true;
  }
  // SIGKILL, reap, then collect whatever it printed before dying. Returns the wait status.
  int Kill() {
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
    reaped_ = true;
    while (ReadSome()) {
    }
    return status;
  }
  int64_t ready_at() const { return ready_at_; }
  int64_t last_committed() const { return last_committed_; }

 private:
  bool ReadSome() {
    char buf[4096];
    const ssize_t n = read(fd_, buf, sizeof(buf));
    if (n <= 0) return false;
    partial_.append(buf, static_cast<size_t>(n));
    size_t pos;
    while ((pos = partial_.find('\n')) != std::string::npos) {
      const std::string line = partial_.substr(0, pos);
      partial_.erase(0, pos + 1);
      if (line.starts_with("ready ")) {
        ready_ = true;
        ready_at_ = std::stoll(line.substr(6));
      } else if (line.starts_with("committed ")) {
        last_committed_ = std::stoll(line.substr(10));
      }
    }
    return true;
  }

  pid_t pid_ = -1;
  int fd_ = -1;
  bool reaped_ = false;
  bool ready_ = false;
  int64_t ready_at_ = -1;
  int64_t last_committed_ = -1;
  std::string partial_;
};

TEST(StateCrashTest, KillDuringCommitsNeverSplitsACursorFromItsDedupEntries) {
  log::SetLevel(log::Level::kWarn);
  // Two stores: one pruned by the overlap, one by the record cap.
  const DedupPolicy policies[2] = {{2, 1000}, {100, 12}};
  TempDir dirs[2];
  std::mt19937 rng(std::random_device{}());
  std::uniform_int_distribution<int> delay_ms(20, 200);
  int64_t previous[2] = {0, 0};
  constexpr int kRounds = 40;
  for (int round = 0; round < kRounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const int m = round % 2;
    const std::string dir = dirs[m].path().string();
    Child child(dir, policies[m]);
    ASSERT_GT(child.pid(), 0);
    ASSERT_TRUE(child.WaitForFirstCommit(Clock::now() + std::chrono::seconds(20)))
        << "the child never committed";
    // It resumed exactly where the last killed run left off (and its warm-up held every
    // entry, or it would have exited with 3 and WaitForFirstCommit would have failed).
    EXPECT_EQ(child.ready_at(), previous[m]);
    // While it runs, the dir is refused to anyone else, naming the child.
    auto intruder = StateStore::Open(StateStoreOptions{dir});
    ASSERT_FALSE(intruder.ok());
    EXPECT_EQ(intruder.status().code(), StatusCode::kAlreadyExists);
    EXPECT_NE(intruder.status().message().find("pid " + std::to_string(child.pid())),
              std::string::npos)
        << intruder.status().ToString();

    ASSERT_TRUE(child.ReadUntil(Clock::now() + std::chrono::milliseconds(delay_ms(rng))));
    const int status = child.Kill();
    ASSERT_TRUE(WIFSIGNALED(status)) << "the child exited on its own with code "
                                     << (WIFEXITED(status) ? WEXITSTATUS(status) : -1);

    auto store = StateStore::Open(StateStoreOptions{dir});
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    auto cursor = (*store)->LoadCursor(crash::Identity());
    ASSERT_TRUE(cursor.ok() && cursor->has_value()) << cursor.status().ToString();
    const int64_t n = (*cursor)->ts - crash::kBaseTs;
    // Every commit that returned is there (a process crash loses nothing from the page cache);
    // at most the one in flight when the kill came is there without having been reported.
    EXPECT_GE(n, child.last_committed());
    EXPECT_LE(n, child.last_committed() + 1);
    EXPECT_EQ((*cursor)->sys_id, crash::RowId(n, crash::kRowsPerSecond - 1));

    // Exactly the entries of the rows the cursor covers, within the window; nothing beyond.
    const auto expected = crash::Expected(n, policies[m]);
    auto everything = (*store)->LoadDedupWindow(crash::Identity(), DedupPolicy{1 << 30, 1u << 30});
    ASSERT_TRUE(everything.ok());
    EXPECT_EQ((*everything)->size(), expected.size());
    for (const DedupKey& k : expected) {
      EXPECT_TRUE((*everything)->Contains(k)) << k.sys_id;
    }
    EXPECT_FALSE(
        (*everything)
            ->Contains({crash::kBaseTs + n + 1, crash::RowId(n + 1, 0), crash::ModCount(n + 1)}));
    previous[m] = n;
  }
}

}  // namespace
}  // namespace snowcar::state
