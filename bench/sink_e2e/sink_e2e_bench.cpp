// SPDX-License-Identifier: Apache-2.0
// Sink end to end (issue #5, design section 9): PATCH commands consumed by `snowcar run` and
// applied to the emulator, which answers every write after a fixed 20 ms. With threads=2 and
// snow.sink.max.in.flight=64 over 64 partitions the ceiling is max.in.flight / latency =
// 3 200 writes/s; the target is 90 % of it. The same run over one partition shows the lane
// (one request at a time, in order) as the limit: about 1 / latency = 50 writes/s.
//
// Then one partition under snow.sink.ordering=key, 1 000 distinct keys: commands for
// different rows run concurrently, so the ceiling is max.in.flight / latency again (target
// 90 %); once with the keys drawn uniformly, once skewed (10 % of the keys carry 90 % of the
// commands). Per-key order is checked from the emulator's journal: every write of a row
// arrives at least one latency after the previous write of that row (they never overlap,
// so they ran one at a time, in offset order), and each row got exactly its commands.
//
// The rate is taken between the first and the last applied command, so the consumer group's
// join (seconds on the embedded broker) is not counted.
//
// With --bootstrap the runs go to that Kafka cluster instead of the embedded broker (e.g.
// Apache Kafka from scripts/kafka-server, its PLAINTEXT address); the four command topics are
// created there through the Admin API, named after this process's id.
//
//   sink_e2e_bench [--commands 16000] [--latency-ms 20] [--in-flight 64] [--keys 1000]
//                  [--max-held 1000] [--key-only] [--bootstrap HOST:PORT]
#include <curl/curl.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <random>
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

struct Measured {
  std::string name;
  int partitions = 0;
  std::string ordering;
  int keys = 0;
  int commands = 0;
  double seconds = 0;  // first to last applied
  double rate = 0;
  double max_in_flight = 0;
  std::string order_check = "-";
};

struct Workload {
  std::string name;
  std::string topic;
  int partitions = 1;
  int commands = 0;
  std::string ordering = "partition";
  // The row (index into the sys_ids) of command i.
  std::function<size_t(int)> row_of;
};

// The emulator's journal since `*seq` (advanced to the newest entry): for every PATCH of the
// table, the row and its arrival time.
std::map<std::string, std::vector<int64_t>> PatchArrivals(const std::string& base, uint64_t* seq) {
  const std::string body = snowcar::bench::EmulatorHttp(
      "GET", base + "/_emulator/journal?since=" + std::to_string(*seq), "");
  std::map<std::string, std::vector<int64_t>> out;
  boost::system::error_code ec;
  const boost::json::value journal = boost::json::parse(body, ec);
  if (ec || !journal.is_object()) {
    std::fprintf(stderr, "reading the journal: unexpected answer: %.300s\n", body.c_str());
    std::exit(1);
  }
  const std::string prefix = "/api/now/table/incident/";
  for (const auto& e : journal.as_object().at("entries").as_array()) {
    const auto& o = e.as_object();
    *seq = std::max<uint64_t>(*seq, static_cast<uint64_t>(o.at("seq").to_number<int64_t>()));
    if (o.at("method").as_string() != "PATCH") continue;
    const std::string target(o.at("target").as_string());
    if (target.rfind(prefix, 0) != 0) continue;
    out[target.substr(prefix.size(), 32)].push_back(o.at("time_ms").to_number<int64_t>());
  }
  return out;
}

// Per-key order from the journal: each row got exactly its commands, and no two writes of
// one row overlapped (each arrived at least `latency_ms` after the one before, less 1 ms of
// clock rounding). Returns "ok" or what failed.
std::string CheckOrder(const std::map<std::string, std::vector<int64_t>>& arrivals,
                       const std::map<std::string, int>& expected, int latency_ms) {
  int wrong_count = 0;
  int overlaps = 0;
  for (const auto& [row, count] : expected) {
    auto it = arrivals.find(row);
    const size_t got = it == arrivals.end() ? 0 : it->second.size();
    if (got != static_cast<size_t>(count)) ++wrong_count;
    if (it == arrivals.end()) continue;
    for (size_t i = 1; i < it->second.size(); ++i) {
      if (it->second[i] - it->second[i - 1] < latency_ms - 1) ++overlaps;
    }
  }
  if (wrong_count == 0 && overlaps == 0) return "ok";
  return std::to_string(wrong_count) + " rows miscounted, " + std::to_string(overlaps) +
         " overlaps";
}

// snow.sink.ordering.max.held.records for the key-ordered runs (0: the default).
int g_max_held = 0;

Measured Run(const std::string& base, const std::string& bootstrap, const Workload& w,
             const std::vector<std::string>& ids, int in_flight, int latency_ms,
             uint64_t* journal_seq) {
  // The commands: PATCHes of existing rows, keyed by sys_id (key_value mode infers PATCH).
  auto producer = snowcar::testsupport::TestProducer::Create(bootstrap);
  if (!producer.ok()) {
    std::fprintf(stderr, "producer: %s\n", producer.status().message().c_str());
    std::exit(1);
  }
  std::vector<snowcar::testsupport::OutMessage> messages;
  std::map<std::string, int> per_row;
  for (int i = 0; i < w.commands; ++i) {
    snowcar::testsupport::OutMessage m;
    m.key = ids[w.row_of(i) % ids.size()];
    ++per_row[*m.key];
    m.value = R"({"short_description":"bench update )" + std::to_string(i) + R"("})";
    m.partition = i % w.partitions;
    messages.push_back(std::move(m));
  }
  if (auto r = (*producer)->ProduceAll(w.topic, messages, std::chrono::seconds(120)); !r.ok()) {
    std::fprintf(stderr, "producing commands: %s\n", r.status().message().c_str());
    std::exit(1);
  }
  (void)PatchArrivals(base, journal_seq);  // skip what earlier runs left in the journal

  snowcar::testsupport::TempDir dir("sink-bench");
  const std::string socket = dir.File("snowcar.sock");
  const std::string config_path = dir.File("bench.properties");
  {
    std::ofstream cfg(config_path);
    cfg << snowcar::bench::SinkSidecarProperties(base, bootstrap, w.topic, "bench-" + w.topic,
                                                 dir.path().string())
        << "snow.sink.max.in.flight=" << in_flight << "\n"
        << "snow.sink.ordering=" << w.ordering << "\n"
        << (g_max_held > 0
                ? "snow.sink.ordering.max.held.records=" + std::to_string(g_max_held) + "\n"
                : std::string())
        << "snow.http.max.concurrent.requests=" << in_flight << "\n";
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
  while ((count = MetricSum(socket, "snowcar_sink_records_total")) < w.commands) {
    if (count > 0 && first == Clock::time_point{}) {
      first = Clock::now();
      first_count = count;
    }
    if (SecondsSince(start) > 900) {
      std::fprintf(stderr, "sink applied %.0f of %d commands in 900 s\n", count, w.commands);
      std::exit(1);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  Measured m;
  m.name = w.name;
  m.partitions = w.partitions;
  m.ordering = w.ordering;
  m.keys = static_cast<int>(per_row.size());
  m.commands = w.commands;
  m.seconds = SecondsSince(first);
  m.rate = (count - first_count) / m.seconds;
  m.max_in_flight = MetricSum(socket, "snowcar_sink_in_flight_max");
  (void)(*child)->Signal(SIGTERM);
  (void)(*child)->Wait(std::chrono::seconds(60));
  if (w.partitions == 1)
    m.order_check = CheckOrder(PatchArrivals(base, journal_seq), per_row, latency_ms);
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  int commands = 16000;
  int latency_ms = 20;
  int in_flight = 64;
  int keys = 1000;
  bool key_only = false;
  std::string external;  // --bootstrap: a cluster of the caller's instead of the embedded one
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--commands" && i + 1 < argc)
      commands = std::atoi(argv[++i]);
    else if (arg == "--latency-ms" && i + 1 < argc)
      latency_ms = std::atoi(argv[++i]);
    else if (arg == "--in-flight" && i + 1 < argc)
      in_flight = std::atoi(argv[++i]);
    else if (arg == "--max-held" && i + 1 < argc)
      g_max_held = std::atoi(argv[++i]);
    else if (arg == "--key-only")
      key_only = true;
    else if (arg == "--keys" && i + 1 < argc)
      keys = std::clamp(std::atoi(argv[++i]), 10, 2000);  // the table has 2 000 rows
    else if (arg == "--bootstrap" && i + 1 < argc)
      external = argv[++i];
  }
  curl_global_init(CURL_GLOBAL_DEFAULT);
  snowcar::bench::Started broker;
  std::string bootstrap = external;
  const std::string prefix =
      external.empty() ? "bench." : "bench-" + std::to_string(::getpid()) + ".";
  const std::vector<std::pair<std::string, int>> topics = {{prefix + "cmds64", 64},
                                                           {prefix + "cmds1", 1},
                                                           {prefix + "cmdsk1", 1},
                                                           {prefix + "cmdsk1s", 1}};
  if (external.empty()) {
    broker = StartSnowcar({"broker", "--brokers", "1", "--direct", "--topics",
                           "bench.cmds64:64,bench.cmds1:1,bench.cmdsk1:1,bench.cmdsk1s:1"});
    bootstrap = broker.first_line;
  } else {
    for (const auto& [topic, partitions] : topics) {
      const auto s =
          snowcar::testsupport::CreateTopic({{"bootstrap.servers", external}}, topic, partitions);
      if (!s.ok()) {
        std::fprintf(stderr, "creating %s on %s: %s\n", topic.c_str(), external.c_str(),
                     s.message().c_str());
        return 1;
      }
    }
  }
  auto emulator =
      StartSnowcar({"emulate", "--port", "0", "--threads", "2", "--tables", "incident:2000"});
  snowcar::bench::EmulatorHttp("POST", emulator.first_line + "/_emulator/latency",
                               R"({"fixed_ms":)" + std::to_string(latency_ms) + "}");
  const auto ids = SysIds(emulator.first_line, 2000);

  const double ceiling = in_flight * 1000.0 / latency_ms;
  std::printf(
      "sink end to end (%s): emulator latency %d ms, threads=2, max.in.flight=%d, "
      "ceiling %.0f writes/s\n\n",
      external.empty() ? "embedded broker" : ("Kafka at " + external).c_str(), latency_ms,
      in_flight, ceiling);
  uint64_t seq = 0;
  const Workload wide_load{.name = "64 partitions",
                           .topic = prefix + "cmds64",
                           .partitions = 64,
                           .commands = commands,
                           .row_of = [](int i) { return static_cast<size_t>(i); }};
  std::vector<Measured> results;
  if (!key_only) {
    results.push_back(
        Run(emulator.first_line, bootstrap, wide_load, ids, in_flight, latency_ms, &seq));
  }
  const int lane_commands = std::max(100, commands / 50);
  const Workload lane_load{.name = "1 partition",
                           .topic = prefix + "cmds1",
                           .partitions = 1,
                           .commands = lane_commands,
                           .row_of = [](int i) { return static_cast<size_t>(i); }};
  if (!key_only) {
    results.push_back(
        Run(emulator.first_line, bootstrap, lane_load, ids, in_flight, latency_ms, &seq));
  }
  // Key ordering over one partition: uniform keys, then 10 % of them carrying 90 %.
  std::mt19937 rng(20261203);
  std::vector<size_t> uniform_rows(static_cast<size_t>(commands));
  std::vector<size_t> skewed_rows(static_cast<size_t>(commands));
  const size_t hot = std::max<size_t>(1, static_cast<size_t>(keys) / 10);
  for (size_t i = 0; i < uniform_rows.size(); ++i) {
    uniform_rows[i] = std::uniform_int_distribution<size_t>(0, keys - 1)(rng);
    const bool to_hot = std::uniform_int_distribution<int>(0, 9)(rng) < 9;
    skewed_rows[i] = to_hot ? std::uniform_int_distribution<size_t>(0, hot - 1)(rng)
                            : std::uniform_int_distribution<size_t>(hot, keys - 1)(rng);
  }
  const Workload keyed_load{.name = "key, uniform",
                            .topic = prefix + "cmdsk1",
                            .partitions = 1,
                            .commands = commands,
                            .ordering = "key",
                            .row_of = [&](int i) { return uniform_rows[i]; }};
  results.push_back(
      Run(emulator.first_line, bootstrap, keyed_load, ids, in_flight, latency_ms, &seq));
  const Measured keyed = results.back();
  const Workload skewed_load{.name = "key, skewed",
                             .topic = prefix + "cmdsk1s",
                             .partitions = 1,
                             .commands = commands,
                             .ordering = "key",
                             .row_of = [&](int i) { return skewed_rows[i]; }};
  results.push_back(
      Run(emulator.first_line, bootstrap, skewed_load, ids, in_flight, latency_ms, &seq));
  std::printf("| %-15s | %10s | %9s | %5s | %8s | %8s | %10s | %12s | %13s | %-11s |\n", "case",
              "partitions", "ordering", "keys", "commands", "seconds", "writes/s", "% of ceiling",
              "max in flight", "key order");
  std::printf(
      "|-----------------|------------|-----------|-------|----------|----------|------------|"
      "--------------|---------------|-------------|\n");
  for (const Measured& r : results) {
    const Measured* m = &r;
    std::printf("| %-15s | %10d | %9s | %5d | %8d | %8.2f | %10.0f | %11.1f%% | %13.0f | %-11s |\n",
                m->name.c_str(), m->partitions, m->ordering.c_str(), m->keys, m->commands,
                m->seconds, m->rate, m->rate / ceiling * 100, m->max_in_flight,
                m->order_check.c_str());
  }
  if (!key_only) {
    const Measured& wide = results[0];
    const Measured& lane = results[1];
    std::printf("\n64 partitions: %.1f%% of max.in.flight/latency (target >= 90%%): %s\n",
                wide.rate / ceiling * 100, wide.rate >= 0.9 * ceiling ? "met" : "NOT met");
    std::printf("1 partition: %.0f writes/s against 1/latency = %.0f: the lane is the limit\n",
                lane.rate, 1000.0 / latency_ms);
    std::printf("1 partition, ordering=key: %.2fx the 64-partition run, %.1fx the partition lane\n",
                keyed.rate / wide.rate, keyed.rate / lane.rate);
  }
  std::printf("1 partition, ordering=key: %.1f%% of max.in.flight/latency (target >= 90%%): %s\n",
              keyed.rate / ceiling * 100, keyed.rate >= 0.9 * ceiling ? "met" : "NOT met");
  snowcar::bench::Stop(emulator);
  snowcar::bench::Stop(broker);
  return 0;
}
