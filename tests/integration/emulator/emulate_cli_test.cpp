// SPDX-License-Identifier: Apache-2.0
// Black-box: the built `snowcar emulate` binary, driven with the curl CLI.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <string>

namespace {

// `snowcar emulate ...` as a child process whose stdout we read.
class EmulatorProcess {
 public:
  explicit EmulatorProcess(std::vector<std::string> args) {
    int fds[2];
    if (pipe(fds) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      dup2(fds[1], 1);
      close(fds[0]);
      close(fds[1]);
      std::vector<char*> argv;
      argv.push_back(const_cast<char*>(SNOWCAR_BINARY));
      argv.push_back(const_cast<char*>("emulate"));
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      execv(SNOWCAR_BINARY, argv.data());
      _exit(127);
    }
    close(fds[1]);
    out_fd_ = fds[0];
  }
  ~EmulatorProcess() {
    if (pid_ > 0 && !reaped_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (out_fd_ >= 0) close(out_fd_);
  }

  // The first stdout line, waiting at most `limit`.
  std::string FirstLine(std::chrono::milliseconds limit) {
    std::string line;
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (line.find('\n') == std::string::npos) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return "";
      pollfd p{out_fd_, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(left.count())) <= 0) return "";
      char buf[256];
      const ssize_t n = read(out_fd_, buf, sizeof buf);
      if (n <= 0) return "";
      line.append(buf, static_cast<size_t>(n));
    }
    return line.substr(0, line.find('\n'));
  }

  // Sends `sig` and returns the exit status (-1 when it did not exit normally in time).
  int StopWith(int sig, std::chrono::milliseconds limit) {
    kill(pid_, sig);
    const auto deadline = std::chrono::steady_clock::now() + limit;
    for (;;) {
      int status = 0;
      const pid_t r = waitpid(pid_, &status, WNOHANG);
      if (r == pid_) {
        reaped_ = true;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      if (std::chrono::steady_clock::now() > deadline) return -1;
      pollfd none{-1, 0, 0};
      poll(&none, 0, 5);  // poll interval while waiting for the child to exit
    }
  }

 private:
  pid_t pid_ = -1;
  int out_fd_ = -1;
  bool reaped_ = false;
};

// Runs a shell command and returns its stdout.
std::string Shell(const std::string& command) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

std::string Body(const std::string& response) {
  const size_t at = response.find("\r\n\r\n");
  return at == std::string::npos ? "" : response.substr(at + 4);
}

TEST(EmulateCli, ServesListPostAndFaultsThenStopsCleanlyOnSigterm) {
  EmulatorProcess emu({"--port", "0", "--tables", "incident:120,change_request:5", "--threads", "2",
                       "--clock", "frozen:2026-01-01T00:00:00"});
  const std::string url = emu.FirstLine(std::chrono::seconds(30));
  ASSERT_EQ(url.rfind("http://127.0.0.1:", 0), 0u) << "first line: '" << url << "'";

  const std::string auth = " -u admin:admin-emulator ";
  std::string page =
      Shell("curl -s -i" + auth + "'" + url + "/api/now/table/incident?sysparm_limit=50'");
  EXPECT_NE(page.find("HTTP/1.1 200"), std::string::npos) << page.substr(0, 400);
  EXPECT_NE(page.find("X-Total-Count: 120"), std::string::npos);
  EXPECT_NE(page.find("sysparm_offset=100>;rel=\"last\""), std::string::npos);
  EXPECT_EQ(boost::json::parse(Body(page)).at("result").as_array().size(), 50u);

  std::string created =
      Shell("curl -s -i" + auth +
            "-H 'Content-Type: application/json' -d '{\"short_description\":\"cli\"}' '" + url +
            "/api/now/table/incident'");
  EXPECT_NE(created.find("HTTP/1.1 201"), std::string::npos) << created.substr(0, 400);
  EXPECT_NE(created.find("Location: " + url + "/api/now/table/incident/"), std::string::npos);
  auto rec = boost::json::parse(Body(created)).at("result");
  EXPECT_EQ(rec.at("sys_created_on").as_string(), "2026-01-01 00:00:00");

  std::string knob =
      Shell("curl -s -X POST -d '{\"kind\":\"rate_limit\",\"next\":1,\"retry_after\":4}' '" + url +
            "/_emulator/faults'");
  EXPECT_EQ(knob, "{\"ok\":true}");
  std::string limited =
      Shell("curl -s -i" + auth + "'" + url + "/api/now/table/incident?sysparm_limit=1'");
  EXPECT_NE(limited.find("HTTP/1.1 429"), std::string::npos) << limited.substr(0, 400);
  EXPECT_NE(limited.find("Retry-After: 4"), std::string::npos);

  std::string journal = Shell("curl -s '" + url + "/_emulator/journal'");
  EXPECT_EQ(boost::json::parse(journal).at("entries").as_array().size(), 3u);

  EXPECT_EQ(emu.StopWith(SIGTERM, std::chrono::seconds(20)), 0);
}

TEST(EmulateCli, BadFlagsFailWithUsage) {
  const std::string out =
      Shell(std::string(SNOWCAR_BINARY) + " emulate --tables 'incident:lots' 2>&1; echo rc=$?");
  EXPECT_NE(out.find("lots"), std::string::npos) << out;
  EXPECT_NE(out.find("rc=2"), std::string::npos) << out;
}

}  // namespace
