// SPDX-License-Identifier: Apache-2.0
// Restart-to-first-write after kill -9 of a sink (issue #15, point 2). A sink-only sidecar
// joins its consumer group and applies one command; it is then killed with SIGKILL, four
// commands (one per partition) are produced while it is down, and the same sidecar (same
// config, same state dir) is started again. Measured from the restart: when its consumer got
// partitions (/v1/sink/partitions lists one) and when it applied its first command
// (snowcar_sink_records_total of the new process above 0).
//
// Two membership modes, each with a fresh consumer group:
//   dynamic  no POD_NAME, no kafka.group.instance.id (the default outside a StatefulSet)
//   static   POD_NAME=snowcar-bench-0, so group.instance.id is set (the StatefulSet default)
//
// On the embedded broker (librdkafka 2.0.2's mock cluster) both wait for the killed member's
// session timeout: the mock ignores group.instance.id (docs/testbed.md). Against Apache Kafka
// 2.3 or newer the static restart is answered from the group's stored assignment at once.
//
// Each mode runs --runs times (a fresh consumer group each time); the table shows the median
// and the range, since on the mock the wait depends on where the restart falls between its
// once-a-second session checks.
//
// With --bootstrap the same runs go to that Kafka cluster instead (e.g. Apache Kafka from
// scripts/kafka-server, its PLAINTEXT address): the two command topics are created there
// through the Admin API, with this process's id in their names so runs never share one.
//
//   sink_restart_bench [--session-timeout-ms N] [--runs N] [--bootstrap HOST:PORT]
//                      (defaults: librdkafka's own session timeout, 45000; 1 run; the
//                      embedded broker)
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "e2e_processes.h"
#include "support/kafka_admin.h"
#include "support/kafka_client.h"
#include "support/temp_dir.h"

namespace {

using snowcar::bench::MetricSum;
using snowcar::bench::SecondsSince;
using snowcar::bench::StartSnowcar;
using Clock = std::chrono::steady_clock;

constexpr int kPartitions = 4;

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "sink_restart_bench: %s\n", what.c_str());
  std::exit(1);
}

bool HasPartitions(const std::string& socket) {
  return snowcar::bench::SocketGet(socket, "/v1/sink/partitions").find("\"partition\"") !=
         std::string::npos;
}

void ProduceCreates(const std::string& bootstrap, const std::string& topic, int first, int n) {
  auto producer = snowcar::testsupport::TestProducer::Create(bootstrap);
  if (!producer.ok()) Fail("producer: " + producer.status().message());
  std::vector<snowcar::testsupport::OutMessage> messages;
  for (int i = first; i < first + n; ++i) {
    snowcar::testsupport::OutMessage m;
    m.value = R"({"short_description":"restart bench )" + std::to_string(i) + R"("})";
    m.partition = i % kPartitions;
    messages.push_back(std::move(m));
  }
  if (auto r = (*producer)->ProduceAll(topic, messages, std::chrono::seconds(60)); !r.ok()) {
    Fail("producing commands: " + r.status().message());
  }
}

// "median (min-max)", or the one value.
std::string Summary(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  char text[64];
  if (values.size() == 1) {
    std::snprintf(text, sizeof text, "%.2f", values[0]);
  } else {
    std::snprintf(text, sizeof text, "%.2f (%.2f-%.2f)", values[values.size() / 2], values.front(),
                  values.back());
  }
  return text;
}

struct Measured {
  std::string mode;
  double to_assigned = 0;     // restart to partitions listed on the socket
  double to_first_write = 0;  // restart to the first command applied
};

Measured Run(const std::string& mode, int run, const std::string& base,
             const std::string& bootstrap, const std::string& topic, int session_timeout_ms) {
  snowcar::testsupport::TempDir dir("sink-restart-bench");
  const std::string socket = dir.File("snowcar.sock");
  const std::string config_path = dir.File("bench.properties");
  {
    std::ofstream cfg(config_path);
    cfg << snowcar::bench::SinkSidecarProperties(
        base, bootstrap, topic, "restart-bench-" + mode + "-" + std::to_string(run),
        dir.path().string());
    if (session_timeout_ms > 0) cfg << "kafka.session.timeout.ms=" << session_timeout_ms << "\n";
  }
  snowcar::testsupport::ChildOptions options;
  options.args = {"run", "--config", config_path};
  if (mode == "static") options.env = {{"POD_NAME", "snowcar-bench-0"}};
  const auto spawn = [&] {
    auto child = snowcar::testsupport::ChildProcess::Spawn(SNOWCAR_BINARY, options);
    if (!child.ok()) Fail("snowcar run: " + child.status().message());
    return std::move(child).value();
  };
  const auto wait_until = [&](const char* what, Clock::time_point since, auto&& condition) {
    while (!condition()) {
      if (SecondsSince(since) > 300) Fail(mode + ": no " + what + " within 300 s");
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return SecondsSince(since);
  };

  // First life: join the group and apply one command, so the group has a member with
  // partitions and committed offsets when it dies.
  auto first = spawn();
  ProduceCreates(bootstrap, topic, 0, 1);
  wait_until("first write before the kill", Clock::now(),
             [&] { return MetricSum(socket, "snowcar_sink_records_total") >= 1; });
  (void)first->Signal(SIGKILL);
  if (!first->Wait(std::chrono::seconds(30)).ok()) Fail("the killed sidecar did not exit");
  ProduceCreates(bootstrap, topic, 1, kPartitions);

  // Second life: same config and state dir.
  const auto restart = Clock::now();
  auto second = spawn();
  Measured m;
  m.mode = mode;
  m.to_assigned =
      wait_until("assignment after the restart", restart, [&] { return HasPartitions(socket); });
  m.to_first_write = wait_until("write after the restart", restart, [&] {
    return MetricSum(socket, "snowcar_sink_records_total") >= 1;
  });
  (void)second->Signal(SIGTERM);
  (void)second->Wait(std::chrono::seconds(60));
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  int session_timeout_ms = 0;  // librdkafka's default
  int runs = 1;
  std::string external;  // --bootstrap: a cluster of the caller's instead of the embedded one
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--session-timeout-ms" && i + 1 < argc) session_timeout_ms = std::atoi(argv[++i]);
    if (arg == "--runs" && i + 1 < argc) runs = std::max(1, std::atoi(argv[++i]));
    if (arg == "--bootstrap" && i + 1 < argc) external = argv[++i];
  }
  std::string bootstrap = external;
  std::string prefix = "restart.";
  snowcar::bench::Started broker;
  if (external.empty()) {
    const std::string topics = "restart.dynamic:" + std::to_string(kPartitions) +
                               ",restart.static:" + std::to_string(kPartitions);
    broker = StartSnowcar({"broker", "--brokers", "1", "--topics", topics});
    bootstrap = broker.first_line;
  } else {
    prefix = "restart-" + std::to_string(::getpid()) + ".";
    for (const char* mode : {"dynamic", "static"}) {
      const auto s = snowcar::testsupport::CreateTopic({{"bootstrap.servers", external}},
                                                       prefix + mode, kPartitions);
      if (!s.ok()) Fail("creating the command topic on " + external + ": " + s.message());
    }
  }
  auto emulator =
      StartSnowcar({"emulate", "--port", "0", "--threads", "2", "--tables", "incident:10"});

  std::printf("sink restart after kill -9, %s, session.timeout.ms=%s, %d run(s)\n\n",
              external.empty() ? "embedded broker" : ("Kafka at " + external).c_str(),
              session_timeout_ms > 0 ? std::to_string(session_timeout_ms).c_str()
                                     : "45000 (librdkafka default)",
              runs);
  std::printf("| %-10s | %-30s | %-30s |\n", "membership", "restart to assigned (s)",
              "restart to first write (s)");
  std::printf("|------------|--------------------------------|--------------------------------|\n");
  for (const std::string mode : {"dynamic", "static"}) {
    std::vector<double> assigned;
    std::vector<double> written;
    for (int run = 0; run < runs; ++run) {
      const Measured m =
          Run(mode, run, emulator.first_line, bootstrap, prefix + mode, session_timeout_ms);
      assigned.push_back(m.to_assigned);
      written.push_back(m.to_first_write);
    }
    std::printf("| %-10s | %30s | %30s |\n", mode.c_str(), Summary(assigned).c_str(),
                Summary(written).c_str());
    std::fflush(stdout);
  }
  snowcar::bench::Stop(emulator);
  snowcar::bench::Stop(broker);
  return 0;
}
