// SPDX-License-Identifier: Apache-2.0
// Black-box tests of `snowcar run`: the real binary, a real Unix socket, real signals.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <boost/json/parse.hpp>
#include <chrono>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "support/child_process.h"
#include "support/temp_dir.h"
#include "support/wait.h"

namespace snowcar {
namespace {

using namespace std::chrono_literals;
using testsupport::ChildOptions;
using testsupport::ChildProcess;
using testsupport::RunToCompletion;

class SidecarProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    state_dir_ = dir_.File("state");
    socket_path_ = dir_.File("run/snowcar.sock");
  }

  std::vector<std::string> RunArgs(const std::string& state_dir, const std::string& socket) {
    return {"run",
            "--config",
            std::string(SNOWCAR_SOURCE_DIR) + "/docs/examples/shell-only.properties",
            "--set",
            "state.dir=" + state_dir,
            "--set",
            "socket.path=" + socket,
            "--set",
            "log.format=json"};
  }

  std::unique_ptr<ChildProcess> StartSidecar() {
    ChildOptions opts;
    opts.args = RunArgs(state_dir_, socket_path_);
    opts.capture_stderr = true;
    auto child = ChildProcess::Spawn(SNOWCAR_BINARY, opts);
    EXPECT_TRUE(child.ok()) << child.status().ToString();
    if (!child.ok()) return nullptr;
    auto c = std::move(child).value();
    const bool ready =
        testsupport::WaitFor([&] { return State({"ready"}).status.ok(); }, 20s, 25ms);
    EXPECT_TRUE(ready) << "sidecar never became ready; stderr:\n" << c->Stderr();
    return c;
  }

  testsupport::RunResult State(std::vector<std::string> args) {
    ChildOptions opts;
    opts.args = {"state", "--socket", socket_path_};
    opts.args.insert(opts.args.end(), args.begin(), args.end());
    opts.capture_stderr = true;
    auto r = RunToCompletion(SNOWCAR_BINARY, opts, 10s);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : testsupport::RunResult{};
  }

  // curl --unix-socket PATH -s -w '\n%{http_code}' URL -> {status, body}
  std::pair<int, std::string> Curl(const std::string& target, const std::string& method = "GET") {
    ChildOptions opts;
    opts.args = {"--unix-socket",
                 socket_path_,
                 "-s",
                 "-X",
                 method,
                 "-w",
                 "\n%{http_code}",
                 "http://localhost" + target};
    auto r = RunToCompletion("curl", opts, 10s);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return {0, ""};
    const std::string& out = r->out;
    const auto nl = out.rfind('\n');
    return {std::stoi(out.substr(nl + 1)), out.substr(0, nl)};
  }

  // Runs `opts` (stderr captured) until the socket says ready, then stops it with SIGTERM and
  // expects exit 0; `child` keeps the process for its stderr.
  void RunUntilReady(ChildOptions opts, std::unique_ptr<ChildProcess>& child) {
    opts.capture_stderr = true;
    auto spawned = ChildProcess::Spawn(SNOWCAR_BINARY, opts);
    ASSERT_TRUE(spawned.ok()) << spawned.status().ToString();
    child = std::move(spawned).value();
    ASSERT_TRUE(testsupport::WaitFor([&] { return State({"ready"}).status.ok(); }, 20s, 25ms))
        << child->Stderr();
    ASSERT_TRUE(child->Signal(SIGTERM).ok());
    auto exit = child->Wait(20s);
    ASSERT_TRUE(exit.ok());
    EXPECT_TRUE(exit->ok()) << exit->ToString() << child->Stderr();
  }

  testsupport::TempDir dir_{"snowcar-sidecar"};
  std::string state_dir_;
  std::string socket_path_;
};

// Sends `signal` and expects the sidecar to exit 0 within 20 s.
void ExpectCleanExit(ChildProcess& sidecar, int signal) {
  ASSERT_TRUE(sidecar.Signal(signal).ok());
  auto exit = sidecar.Wait(20s);
  ASSERT_TRUE(exit.ok());
  EXPECT_TRUE(exit->ok()) << exit->ToString();
}

TEST_F(SidecarProcessTest, AnswersOnTheSocketAndStopsCleanlyOnSigterm) {
  auto sidecar = StartSidecar();
  ASSERT_NE(sidecar, nullptr);

  // The socket file is there with mode 0660.
  struct stat st {};
  ASSERT_EQ(::stat(socket_path_.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0660u);

  // curl over the Unix socket.
  auto [health_status, health] = Curl("/v1/health");
  EXPECT_EQ(health_status, 200) << health;
  auto health_json = boost::json::parse(health).as_object();
  EXPECT_EQ(health_json.at("status").as_string(), "ok");
  EXPECT_TRUE(health_json.at("components").as_object().contains("state")) << health;

  auto [ready_status, ready] = Curl("/v1/ready");
  EXPECT_EQ(ready_status, 200) << ready;

  auto [cursors_status, cursors] = Curl("/v1/state/cursors");
  EXPECT_EQ(cursors_status, 200) << cursors;
  EXPECT_NO_THROW(boost::json::parse(cursors)) << cursors;

  auto [missing_status, missing] = Curl("/v1/no/such/path");
  EXPECT_EQ(missing_status, 404);
  EXPECT_NE(missing.find("\"error\""), std::string::npos) << missing;

  auto [nosys_status, nosys] = Curl("/v1/state/dedup/incident");
  EXPECT_EQ(nosys_status, 400) << nosys;
  EXPECT_NE(nosys.find("sys_id"), std::string::npos) << nosys;

  auto [corr_status, corr] = Curl("/v1/state/correlation/incident/u_ext/abc");
  EXPECT_EQ(corr_status, 404) << corr;

  auto [reset_get_status, reset_get] = Curl("/v1/state/cursors/incident/reset");
  EXPECT_EQ(reset_get_status, 405) << "a state change must need POST: " << reset_get;

  // The CLI, human-readable and JSON.
  auto h = State({"health"});
  EXPECT_TRUE(h.status.ok()) << h.err;
  EXPECT_NE(h.out.find("state"), std::string::npos) << h.out;
  auto j = State({"--json", "cursors"});
  EXPECT_TRUE(j.status.ok()) << j.err;
  EXPECT_NO_THROW(boost::json::parse(j.out)) << j.out;

  // Garbage on the socket: binary noise, a huge request line, a truncated request.
  std::mt19937 rng(42);
  for (int round = 0; round < 3; ++round) {
    int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, socket_path_.c_str(), sizeof(addr.sun_path) - 1);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    std::string junk;
    if (round == 0) {
      for (int i = 0; i < 4096; ++i) junk += static_cast<char>(rng());
    } else if (round == 1) {
      junk = "GET /" + std::string(size_t{100} * 1024, 'a') + " HTTP/1.1\r\n\r\n";
    } else {
      junk = "POST /v1/state/cursors HTTP/1.1\r\nContent-Length: 50\r\n\r\nabc";
    }
    (void)::send(fd, junk.data(), junk.size(), MSG_NOSIGNAL);
    ::shutdown(fd, SHUT_WR);
    char buf[512];
    while (::recv(fd, buf, sizeof buf, 0) > 0) {
    }
    ::close(fd);
  }
  // Still serving.
  EXPECT_EQ(Curl("/v1/health").first, 200);

  ASSERT_TRUE(sidecar->Signal(SIGTERM).ok());
  auto exit = sidecar->Wait(20s);
  ASSERT_TRUE(exit.ok()) << exit.status().ToString();
  EXPECT_TRUE(exit->ok()) << exit->ToString() << "\n" << sidecar->Stderr();
  EXPECT_FALSE(std::filesystem::exists(socket_path_)) << "socket file left behind";
  EXPECT_NE(sidecar->Stderr().find("sidecar.stopped"), std::string::npos) << sidecar->Stderr();

  // The state dir is released: a new process starts on it.
  auto again = StartSidecar();
  ASSERT_NE(again, nullptr);
  ExpectCleanExit(*again, SIGINT);
}

TEST_F(SidecarProcessTest, SecondProcessOnTheSameStateDirFailsFastNamingTheHolder) {
  auto first = StartSidecar();
  ASSERT_NE(first, nullptr);

  ChildOptions opts;
  opts.args = RunArgs(state_dir_, dir_.File("other.sock"));
  auto second = RunToCompletion(SNOWCAR_BINARY, opts, 20s);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(second->status.code, 1) << second->status.ToString();
  EXPECT_NE(second->err.find(state_dir_), std::string::npos) << second->err;
  EXPECT_NE(second->err.find(std::to_string(first->pid())), std::string::npos) << second->err;

  // Same socket path, another state dir: the live socket is refused, not stolen.
  opts.args = RunArgs(dir_.File("state2"), socket_path_);
  auto third = RunToCompletion(SNOWCAR_BINARY, opts, 20s);
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(third->status.code, 1) << third->status.ToString();
  EXPECT_NE(third->err.find(socket_path_), std::string::npos) << third->err;
  EXPECT_EQ(Curl("/v1/health").first, 200) << "the first sidecar must keep its socket";

  ExpectCleanExit(*first, SIGTERM);
}

TEST_F(SidecarProcessTest, StaleSocketFromAKilledRunIsReplaced) {
  auto first = StartSidecar();
  ASSERT_NE(first, nullptr);
  ASSERT_TRUE(first->Signal(SIGKILL).ok());
  ASSERT_TRUE(first->Wait(10s).ok());
  ASSERT_TRUE(std::filesystem::exists(socket_path_)) << "kill -9 leaves the socket file";

  auto second = StartSidecar();
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(Curl("/v1/ready").first, 200);
  ExpectCleanExit(*second, SIGTERM);
}

TEST_F(SidecarProcessTest, BadConfigFailsStartupNamingTheKey) {
  ChildOptions opts;
  opts.args = RunArgs(state_dir_, socket_path_);
  opts.args.insert(opts.args.end(), {"--set", "threads=many", "--set", "no.such.key=1"});
  auto r = RunToCompletion(SNOWCAR_BINARY, opts, 20s);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status.code, 2) << r->status.ToString();
  EXPECT_NE(r->err.find("threads"), std::string::npos) << r->err;
  EXPECT_NE(r->err.find("no.such.key"), std::string::npos) << r->err;
  EXPECT_FALSE(std::filesystem::exists(socket_path_));
}

// An enabled direction whose own keys are incomplete is a configuration error found before
// anything starts: exit 2, the key named, no socket. `config check` says the same.
TEST_F(SidecarProcessTest, EnabledDirectionWithIncompleteKeysIsAConfigError) {
  ChildOptions opts;
  opts.args = RunArgs(state_dir_, socket_path_);
  const std::vector<std::string> sets = {
      "--set", "source.enabled=true",         "--set", "sink.enabled=true",
      "--set", "snow.url=https://x.example",  "--set", "snow.auth.username=svc",
      "--set", "snow.auth.password=pw-123456"};
  opts.args.insert(opts.args.end(), sets.begin(), sets.end());
  auto r = RunToCompletion(SNOWCAR_BINARY, opts, 20s);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status.code, 2) << r->status.ToString();
  EXPECT_NE(r->err.find("snow.tables"), std::string::npos) << r->err;
  EXPECT_NE(r->err.find("snow.sink.topics"), std::string::npos) << r->err;
  EXPECT_EQ(r->err.find("pw-123456"), std::string::npos) << r->err;
  EXPECT_FALSE(std::filesystem::exists(socket_path_));

  ChildOptions check;
  check.args = {"config", "check"};
  check.args.insert(check.args.end(), sets.begin(), sets.end());
  auto c = RunToCompletion(SNOWCAR_BINARY, check, 20s);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->status.code, 2) << c->status.ToString();
  EXPECT_NE(c->err.find("snow.tables"), std::string::npos) << c->err;
}

// Values `run` could not use passed `config check` (exit 0) and failed `run` only at start
// (exit 1). One validation now refuses them in both, as configuration errors (exit 2).
TEST_F(SidecarProcessTest, ConfigCheckRefusesWhatRunRefuses) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"socket.path=", "socket.path: '' must not be empty"},
      {"socket.path=" + dir_.File(std::string(139 - dir_.File("").size(), 'a')),
       "is 139 bytes; a Unix socket path may have at most 107"},
      {"state.dir=", "state.dir: '' must not be empty"},
  };
  for (const auto& [set, message] : cases) {
    SCOPED_TRACE(set);
    ChildOptions check;
    check.args = {"config", "check",
                  std::string(SNOWCAR_SOURCE_DIR) + "/docs/examples/shell-only.properties", "--set",
                  set};
    auto c = RunToCompletion(SNOWCAR_BINARY, check, 20s);
    ASSERT_TRUE(c.ok());
    EXPECT_EQ(c->status.code, 2) << c->status.ToString() << c->out;
    EXPECT_NE(c->err.find(message), std::string::npos) << c->err;

    ChildOptions run;
    run.args = RunArgs(state_dir_, socket_path_);
    run.args.insert(run.args.end(), {"--set", set});
    auto r = RunToCompletion(SNOWCAR_BINARY, run, 20s);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->status.code, 2) << r->status.ToString();
    EXPECT_NE(r->err.find(message), std::string::npos) << r->err;
    EXPECT_FALSE(std::filesystem::exists(state_dir_)) << "nothing may start";
  }
}

// Kafka properties librdkafka takes one by one but refuses when `run` creates the client (a
// private key that is not PEM) are a configuration error as well: exit 2, like every other,
// naming the property. The run also reports every problem of the file at once.
TEST_F(SidecarProcessTest, KafkaPropertiesRefusedAtStartExitTwo) {
  ChildOptions run;
  run.args = RunArgs(state_dir_, socket_path_);
  run.args.insert(run.args.end(), {"--set", "sink.enabled=true",
                                   "--set", "snow.url=http://127.0.0.1:1",
                                   "--set", "snow.auth.username=svc",
                                   "--set", "snow.auth.password=pw-123456",
                                   "--set", "snow.sink.topics=commands",
                                   "--set", "snow.sink.table=incident",
                                   "--set", "kafka.bootstrap.servers=127.0.0.1:1",
                                   "--set", "kafka.group.id=g",
                                   "--set", "kafka.security.protocol=SSL",
                                   "--set", "kafka.ssl.certificate.pem=not-a-certificate"});
  auto r = RunToCompletion(SNOWCAR_BINARY, run, 30s);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status.code, 2) << r->status.ToString() << r->err;
  EXPECT_NE(r->err.find("ssl.certificate.pem"), std::string::npos) << r->err;

  // A typo does not hide what the sink and the Kafka properties would have said.
  ChildOptions all;
  all.args = RunArgs(state_dir_, socket_path_);
  all.args.insert(all.args.end(),
                  {"--set", "sink.enabled=true", "--set", "snow.url=http://127.0.0.1:1", "--set",
                   "snow.auth.username=svc", "--set", "snow.auth.password=pw-123456", "--set",
                   "kafka.bootstrap.servers=127.0.0.1:1", "--set", "snow.sink.tabel=incident",
                   "--set", "kafka.bogus.key=1"});
  auto a = RunToCompletion(SNOWCAR_BINARY, all, 30s);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->status.code, 2) << a->status.ToString();
  for (const std::string message :
       {"unknown key 'snow.sink.tabel'", "snow.sink.topics (or topics) is required",
        "kafka property 'bogus.key'", "kafka property 'group.id' is required"}) {
    EXPECT_NE(a->err.find(message), std::string::npos) << message << "\n" << a->err;
  }
}

// A config or secret file that never ends (/dev/zero) used to be read until memory ran out
// and std::bad_alloc aborted the process.
TEST_F(SidecarProcessTest, EndlessConfigOrSecretFileIsRefusedNamingTheLimit) {
  ChildOptions check;
  check.args = {"config", "check", "/dev/zero"};
  auto c = RunToCompletion(SNOWCAR_BINARY, check, 20s);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->status.code, 2) << c->status.ToString();
  EXPECT_NE(c->err.find("cannot read config file '/dev/zero': more than 1 MiB"), std::string::npos)
      << c->err;

  ChildOptions run;
  run.args = RunArgs(state_dir_, socket_path_);
  run.args.insert(run.args.end(), {"--set", "snow.auth.password.file=/dev/zero"});
  auto r = RunToCompletion(SNOWCAR_BINARY, run, 20s);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->status.code, 2) << r->status.ToString();
  EXPECT_NE(r->err.find("snow.auth.password.file: cannot read secret file '/dev/zero': more "
                        "than 1 MiB, the limit for a secret file"),
            std::string::npos)
      << r->err;

  ChildOptions state;
  state.args = {"state", "--config", "/dev/zero", "health"};
  auto st = RunToCompletion(SNOWCAR_BINARY, state, 20s);
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->status.code, 1) << st->status.ToString();
  EXPECT_NE(st->err.find("cannot read config file '/dev/zero'"), std::string::npos) << st->err;
}

// A wrapper script's SNOWCAR_BIN used to stop `run` ("unknown key 'bin'"). It is a warning.
TEST_F(SidecarProcessTest, StrayEnvironmentVariableIsAWarningNotAnError) {
  ChildOptions opts;
  opts.args = RunArgs(state_dir_, socket_path_);
  opts.env = {{"SNOWCAR_BIN", "/opt/wrapper/bin"}};
  std::unique_ptr<ChildProcess> child;
  ASSERT_NO_FATAL_FAILURE(RunUntilReady(opts, child));
  ASSERT_TRUE(child->WaitStreamsDrained(10s));
  const std::string err = child->Stderr();
  EXPECT_NE(err.find(R"("level":"warn","event":"config.warning")"), std::string::npos) << err;
  EXPECT_NE(err.find("environment variable SNOWCAR_BIN names no configuration key"),
            std::string::npos)
      << err;
}

// The state store holds the user's data: owner-only unless state.dir.access=umask.
TEST_F(SidecarProcessTest, StateDirIsOwnerOnlyUnlessToldOtherwise) {
  // This process's umask, which the children inherit.
  const mode_t umask_now = ::umask(077);
  ::umask(umask_now);
  const auto run_once = [&](const std::string& state_dir, std::vector<std::string> extra) {
    ChildOptions opts;
    opts.args = RunArgs(state_dir, socket_path_);
    opts.args.insert(opts.args.end(), extra.begin(), extra.end());
    std::unique_ptr<ChildProcess> child;
    RunUntilReady(opts, child);
  };
  const auto modes = [](const std::string& dir) {
    std::map<std::string, mode_t> out;
    struct stat st {};
    if (::stat(dir.c_str(), &st) == 0) out["."] = st.st_mode & 07777;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (::stat(entry.path().c_str(), &st) == 0) {
        out[entry.path().filename().string()] = st.st_mode & 07777;
      }
    }
    return out;
  };

  const std::string owner_dir = dir_.File("volume/state");  // the parent is created too
  run_once(owner_dir, {});
  const auto owner = modes(owner_dir);
  ASSERT_GT(owner.size(), 5u) << "expected RocksDB's files";
  for (const auto& [name, mode] : owner) {
    EXPECT_EQ(mode, name == "." ? 0700u : 0600u) << name << " has mode " << std::oct << mode;
  }

  const std::string umask_dir = dir_.File("shared/state");
  run_once(umask_dir, {"--set", "state.dir.access=umask"});
  const auto shared = modes(umask_dir);
  ASSERT_GT(shared.size(), 5u);
  for (const auto& [name, mode] : shared) {
    const mode_t expected = (name == "." ? 0777u : 0644u) & ~umask_now;
    EXPECT_EQ(mode, expected) << name << " has mode " << std::oct << mode;
  }
}

}  // namespace
}  // namespace snowcar
