// SPDX-License-Identifier: Apache-2.0
// Sink end to end (issue #5, design section 9): PATCH commands consumed by `snowcar run` and
// applied to the emulator, which answers every write after a fixed 20 ms. With threads=2 and
// snow.sink.max.in.flight=64 over 64 partitions the ceiling is max.in.flight / latency =
// 3 200 writes/s; the target is 90 % of it. The same run over one partition shows the lane
// (one request at a time, in order) as the limit: about 1 / latency = 50 writes/s.
//
// The rate is taken between the first and the last applied command, so the consumer group's
// join (seconds on the embedded broker) is not counted.
//
//   sink_e2e_bench [--commands 16000] [--latency-ms 20] [--in-flight 64]
#include <curl/curl.h>

#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "e2e_processes.h"
#include "support/kafka_client.h"
#include "support/temp_dir.h"

namespace {

using snowcar::bench::SecondsSince;
using snowcar::bench::StartSnowcar;
using Clock = std::chrono::steady_clock;

std::vector<std::string> SysIds(const std::string& base, int rows) {
  const std::string body = snowcar::bench::EmulatorHttp(
      "GET",
      base + "/api/now/table/incident?sysparm_fields=sys_id&sysparm_limit=" + std::to_string(rows),
      "");
  std::vector<std::string> ids;
  boost::system::error_code ec;
  const boost::json::value page = boost::json::parse(body, ec);
  if (ec || !page.is_object() || !page.as_object().contains("result")) {
    std::fprintf(stderr, "listing sys_ids: unexpected answer: %.300s\n", body.c_str());
    std::exit(1);
  }
  for (const auto& row : page.as_object().at("result").as_array()) {
    ids.emplace_back(row.as_object().at("sys_id").as_string());
  }
  return ids;
}

// Sum of every sample of `name` in the sidecar's /metrics.
double MetricSum(const std::string& socket, const std::string& name) {
  const std::string text = snowcar::bench::SocketGet(socket, "/metrics");
  std::istringstream lines(text);
  std::string line;
  double sum = 0;
  while (std::getline(lines, line)) {
    if (line.rfind(name, 0) != 0) continue;
    const char next = line.size() > name.size() ? line[name.size()] : '\0';
    if (next != '{' && next != ' ') continue;
    sum += std::atof(line.substr(line.rfind(' ') + 1).c_str());
  }
  return sum;
}

struct Measured {
  int partitions = 0;
  int commands = 0;
  double seconds = 0;  // first to last applied
  double rate = 0;
  double max_in_flight = 0;
};

Measured Run(const std::string& base, const std::string& bootstrap, const std::string& topic,
             int partitions, const std::vector<std::string>& ids, int commands, int in_flight) {
  // The commands: PATCHes of existing rows, keyed by sys_id (key_value mode infers PATCH).
  auto producer = snowcar::testsupport::TestProducer::Create(bootstrap);
  if (!producer.ok()) {
    std::fprintf(stderr, "producer: %s\n", producer.status().message().c_str());
    std::exit(1);
  }
  std::vector<snowcar::testsupport::OutMessage> messages;
  for (int i = 0; i < commands; ++i) {
    snowcar::testsupport::OutMessage m;
    m.key = ids[static_cast<size_t>(i) % ids.size()];
    m.value = R"({"short_description":"bench update )" + std::to_string(i) + R"("})";
    m.partition = i % partitions;
    messages.push_back(std::move(m));
  }
  if (auto r = (*producer)->ProduceAll(topic, messages, std::chrono::seconds(120)); !r.ok()) {
    std::fprintf(stderr, "producing commands: %s\n", r.status().message().c_str());
    std::exit(1);
  }

  snowcar::testsupport::TempDir dir("sink-bench");
  const std::string socket = dir.File("snowcar.sock");
  const std::string config_path = dir.File("bench.properties");
  {
    std::ofstream cfg(config_path);
    cfg << "snow.url=" << base << "\nsnow.auth.username=admin\nsnow.auth.password=admin-emulator\n"
        << "source.enabled=false\nsink.enabled=true\nthreads=2\n"
        << "snow.sink.topics=" << topic << "\nsnow.sink.table=incident\n"
        << "snow.sink.max.in.flight=" << in_flight << "\n"
        << "snow.http.max.concurrent.requests=" << in_flight << "\n"
        << "snow.sink.unknown.field.behavior=passthrough\n"
        << "state.dir=" << dir.File("state") << "\nsocket.path=" << socket << "\n"
        << "log.level=warn\nkafka.bootstrap.servers=" << bootstrap << "\n"
        << "kafka.group.id=bench-" << topic << "\n";
  }
  snowcar::testsupport::ChildOptions options;
  options.args = {"run", "--config", config_path};
  auto child = snowcar::testsupport::ChildProcess::Spawn(SNOWCAR_BINARY, options);
  if (!child.ok()) {
    std::fprintf(stderr, "snowcar run: %s\n", child.status().message().c_str());
    std::exit(1);
  }
  const auto start = Clock::now();
  Clock::time_point first{};
  double first_count = 0;
  double count = 0;
  while ((count = MetricSum(socket, "snowcar_sink_records_total")) < commands) {
    if (count > 0 && first == Clock::time_point{}) {
      first = Clock::now();
      first_count = count;
    }
    if (SecondsSince(start) > 900) {
      std::fprintf(stderr, "sink applied %.0f of %d commands in 900 s\n", count, commands);
      std::exit(1);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  Measured m;
  m.partitions = partitions;
  m.commands = commands;
  m.seconds = SecondsSince(first);
  m.rate = (count - first_count) / m.seconds;
  m.max_in_flight = MetricSum(socket, "snowcar_sink_in_flight_max");
  (void)(*child)->Signal(SIGTERM);
  (void)(*child)->Wait(std::chrono::seconds(60));
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  int commands = 16000;
  int latency_ms = 20;
  int in_flight = 64;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--commands" && i + 1 < argc)
      commands = std::atoi(argv[++i]);
    else if (arg == "--latency-ms" && i + 1 < argc)
      latency_ms = std::atoi(argv[++i]);
    else if (arg == "--in-flight" && i + 1 < argc)
      in_flight = std::atoi(argv[++i]);
  }
  curl_global_init(CURL_GLOBAL_DEFAULT);
  auto broker = StartSnowcar(
      {"broker", "--brokers", "1", "--direct", "--topics", "bench.cmds64:64,bench.cmds1:1"});
  auto emulator =
      StartSnowcar({"emulate", "--port", "0", "--threads", "2", "--tables", "incident:2000"});
  snowcar::bench::EmulatorHttp("POST", emulator.first_line + "/_emulator/latency",
                               R"({"fixed_ms":)" + std::to_string(latency_ms) + "}");
  const auto ids = SysIds(emulator.first_line, 2000);

  const double ceiling = in_flight * 1000.0 / latency_ms;
  std::printf(
      "sink end to end: emulator latency %d ms, threads=2, max.in.flight=%d, "
      "ceiling %.0f writes/s\n\n",
      latency_ms, in_flight, ceiling);
  const Measured wide =
      Run(emulator.first_line, broker.first_line, "bench.cmds64", 64, ids, commands, in_flight);
  const int lane_commands = std::max(100, commands / 50);
  const Measured lane =
      Run(emulator.first_line, broker.first_line, "bench.cmds1", 1, ids, lane_commands, in_flight);

  std::printf("| %-12s | %8s | %8s | %10s | %12s | %13s |\n", "partitions", "commands", "seconds",
              "writes/s", "% of ceiling", "max in flight");
  std::printf(
      "|--------------|----------|----------|------------|--------------|---------------|\n");
  for (const Measured* m : {&wide, &lane}) {
    std::printf("| %-12d | %8d | %8.2f | %10.0f | %11.1f%% | %13.0f |\n", m->partitions,
                m->commands, m->seconds, m->rate, m->rate / ceiling * 100, m->max_in_flight);
  }
  std::printf("\n64 partitions: %.1f%% of max.in.flight/latency (target >= 90%%): %s\n",
              wide.rate / ceiling * 100, wide.rate >= 0.9 * ceiling ? "met" : "NOT met");
  std::printf("1 partition: %.0f writes/s against 1/latency = %.0f: the lane is the limit\n",
              lane.rate, 1000.0 / latency_ms);
  (void)emulator.process->Signal(SIGTERM);
  (void)emulator.process->Wait(std::chrono::seconds(30));
  (void)broker.process->Signal(SIGTERM);
  (void)broker.process->Wait(std::chrono::seconds(30));
  return 0;
}
