// SPDX-License-Identifier: Apache-2.0
// Source end to end, measured side by side in one run (issue #4, design section 9):
//
//   floor    a bare loop in this process: Boost.JSON parses the same pages the emulator
//            serves, every row becomes the same Kafka record (key, value, four headers,
//            timestamp) produced with the same producer settings to the same broker.
//            No HTTP, no dedup, no state: what Boost.JSON + librdkafka cost on this machine.
//   sidecar  `snowcar run` with the source on, polling the emulator over HTTP with the
//            same page size, producing to the same broker, committing to RocksDB.
//
// Reported: rows/s (wall) and CPU per row of each, and their ratios; then a large backfill
// with the sidecar's peak RSS. Targets: CPU/row <= 1.5x the floor's, rows/s >= 70 %.
//
//   source_e2e_bench [--rows 200000] [--page 5000] [--backfill-rows 1000000] [--baseline PATH]
//                    [--bootstrap HOST:PORT]
//                    [--parallel-rows N [--latency-ms 300] [--parallelism 1,2,4,8]
//                    [--only-parallel] [--journal PREFIX]]
//                    [--sweep-rows N [--sweep-batch 10000] [--sweep-latency-ms 0]
//                     [--sweep-deletions 1000] [--only-sweep]]
// --parallel-rows adds the parallel backfill section (parallel_backfill.h): rows/s of one
// backfill per parallelism against an emulator answering each request after --latency-ms.
// --journal PREFIX writes each run's requests with their times to PREFIX.<parallelism>.tsv.
// --sweep-rows adds the reconciliation section (reconcile_sweep.h): what sweeping a table of
// that many rows costs in requests, seconds and CPU, and its id set on disk.
//
// --bootstrap HOST:PORT: the floor, the sidecar, the baseline and the backfill produce to that
// Kafka cluster instead of the embedded broker (e.g. Apache Kafka from scripts/kafka-server,
// its PLAINTEXT address); their topics (4 partitions each) are created there through the Admin
// API, named after this process's id. The broker's CPU is then not reported (it is not a
// child of this bench). The parallel and sweep sections run on the embedded broker only.
//
// --exactly-once (with --bootstrap): the sidecar runs a second time with
// exactly.once.source.support=required on a topic of its own, right after the first, and its
// rows/s is reported as a ratio of the at-least-once run's (target >= 0.8x).
//
// --baseline PATH: another snowcar binary (an earlier build) whose sidecar runs right after
// this build's, on the same broker and emulator, so a change is measured before and after in
// one run (the ratios to the floor are what compare; the machine's load moves both).
#include <curl/curl.h>
#include <librdkafka/rdkafka.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "e2e_processes.h"
#include "parallel_backfill.h"
#include "reconcile_sweep.h"
#include "support/kafka_admin.h"
#include "support/temp_dir.h"

namespace {

using snowcar::bench::PeakRssMiB;
using snowcar::bench::ProcessCpuSeconds;
using snowcar::bench::SecondsSince;
using snowcar::bench::SelfCpuSeconds;
using snowcar::bench::StartSnowcar;
using Clock = std::chrono::steady_clock;

constexpr const char* kUser = "admin";
constexpr const char* kPassword = "admin-emulator";

// The pages the sidecar will read, fetched once before timing (offset paging is fine here:
// the data does not change during the bench).
std::vector<std::string> FetchPages(const std::string& base, int rows, int page) {
  std::vector<std::string> pages;
  for (int offset = 0; offset < rows; offset += page) {
    pages.push_back(snowcar::bench::EmulatorHttp(
        "GET", base +
                   "/api/now/table/incident?sysparm_query=ORDERBYsys_updated_on%5E"
                   "ORDERBYsys_id&sysparm_exclude_reference_link=true&sysparm_limit=" +
                   std::to_string(page) + "&sysparm_offset=" + std::to_string(offset)));
  }
  return pages;
}

rd_kafka_t* MakeProducer(const std::string& bootstrap) {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  const std::pair<const char*, const char*> props[] = {{"bootstrap.servers", bootstrap.c_str()},
                                                       {"enable.idempotence", "true"},
                                                       {"acks", "all"},
                                                       {"partitioner", "murmur2_random"},
                                                       {"client.id", "bench-floor"}};
  for (const auto& [k, v] : props) {
    if (rd_kafka_conf_set(conf, k, v, err, sizeof err) != RD_KAFKA_CONF_OK) {
      std::fprintf(stderr, "%s: %s\n", k, err);
      std::exit(1);
    }
  }
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  if (rk == nullptr) {
    std::fprintf(stderr, "rd_kafka_new: %s\n", err);
    std::exit(1);
  }
  return rk;
}

int64_t ParseTsMillis(const std::string& text) {
  std::tm tm{};
  if (strptime(text.c_str(), "%Y-%m-%d %H:%M:%S", &tm) == nullptr) return 0;
  return static_cast<int64_t>(timegm(&tm)) * 1000;
}

struct Measured {
  double wall_s = 0;
  double cpu_s = 0;
  int64_t rows = 0;
  double peak_rss_mib = 0;
  // Where the sidecar's time went (see PrintBreakdown).
  std::map<std::string, double> thread_cpu_s;  // by thread name
  double http_s = 0, http_n = 0;               // page requests: summed wall time, count
  double ack_s = 0, ack_n = 0;                 // produce to acknowledgement, summed, count
};

// CPU seconds of each thread of `pid`, summed by thread name (/proc/<pid>/task/*/stat).
std::map<std::string, double> ThreadCpu(pid_t pid) {
  std::map<std::string, double> out;
  const std::string dir = "/proc/" + std::to_string(pid) + "/task";
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator(dir, ec)) {
    std::ifstream in(task.path() / "stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t open = stat.find('('), close = stat.rfind(')');
    if (open == std::string::npos || close == std::string::npos) continue;
    std::string name = stat.substr(open + 1, close - open - 1);
    // Numbered librdkafka and RocksDB threads count as one kind each.
    while (!name.empty() && (std::isdigit(static_cast<unsigned char>(name.back())) != 0)) {
      name.pop_back();
    }
    std::istringstream rest(stat.substr(close + 2));
    std::string field;
    double ticks = 0;
    for (int i = 3; i <= 15 && rest >> field; ++i) {
      if (i == 14 || i == 15) ticks += std::atof(field.c_str());  // utime, stime
    }
    out[name] += ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
  }
  return out;
}

// Sum and count of a histogram family in the Prometheus text, over all its label sets.
void HistogramTotals(const std::string& text, const std::string& family, double* sum,
                     double* count) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    const bool is_sum = line.rfind(family + "_sum", 0) == 0;
    const bool is_count = line.rfind(family + "_count", 0) == 0;
    if (!is_sum && !is_count) continue;
    const double v = std::atof(line.substr(line.rfind(' ') + 1).c_str());
    *(is_sum ? sum : count) += v;
  }
}

void PrintBreakdown(const char* name, const Measured& m) {
  std::printf("\n%s: where the time went (%.2f s wall)\n", name, m.wall_s);
  std::printf("  page requests: %.0f, %.3f s each (HTTP wall, incl. the parse)\n", m.http_n,
              m.http_n > 0 ? m.http_s / m.http_n : 0.0);
  std::printf("  produce to ack: %.0f records, mean %.1f ms\n", m.ack_n,
              m.ack_n > 0 ? m.ack_s / m.ack_n * 1e3 : 0.0);
  for (const auto& [thread, cpu] : m.thread_cpu_s) {
    if (cpu >= 0.01) {
      std::printf("  thread %-16s %6.2f s CPU (%3.0f%% of wall)\n", thread.c_str(), cpu,
                  cpu / m.wall_s * 100);
    }
  }
}

// The floor: parse + build + produce + wait for every acknowledgement.
Measured RunFloor(const std::vector<std::string>& pages, const std::string& bootstrap,
                  const std::string& topic) {
  rd_kafka_t* rk = MakeProducer(bootstrap);
  const auto start = Clock::now();
  const double cpu0 = SelfCpuSeconds();
  int64_t rows = 0;
  for (const auto& body : pages) {
    boost::json::value page = boost::json::parse(body);
    for (const auto& row_value : page.as_object().at("result").as_array()) {
      const auto& row = row_value.as_object();
      const std::string sys_id(row.at("sys_id").as_string());
      const std::string value = boost::json::serialize(row);
      const int64_t ts = ParseTsMillis(std::string(row.at("sys_updated_on").as_string()));
      const std::string extracted = std::to_string(ts);
      for (;;) {
        const rd_kafka_resp_err_t err = rd_kafka_producev(
            rk, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
            RD_KAFKA_V_KEY(sys_id.data(), sys_id.size()),
            RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()),
            RD_KAFKA_V_HEADER("snow.source.operation", "UPSERT", 6),
            RD_KAFKA_V_HEADER("snow.table", "incident", 8),
            RD_KAFKA_V_HEADER("snow.instance", "127.0.0.1", 9),
            RD_KAFKA_V_HEADER("snow.extracted_at", extracted.data(),
                              static_cast<ssize_t>(extracted.size())),
            RD_KAFKA_V_TIMESTAMP(ts), RD_KAFKA_V_END);
        if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
          rd_kafka_poll(rk, 10);
          continue;
        }
        if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
          std::fprintf(stderr, "produce: %s\n", rd_kafka_err2str(err));
          std::exit(1);
        }
        break;
      }
      rd_kafka_poll(rk, 0);
      ++rows;
    }
  }
  if (rd_kafka_flush(rk, 60000) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    std::fprintf(stderr, "flush timed out\n");
    std::exit(1);
  }
  Measured m;
  m.wall_s = SecondsSince(start);
  m.cpu_s = SelfCpuSeconds() - cpu0;
  m.rows = rows;
  rd_kafka_destroy(rk);
  return m;
}

int64_t RowsEmitted(const std::string& socket) {
  const std::string body = snowcar::bench::SocketGet(socket, "/v1/source/tables/incident");
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(body, ec);
  if (ec || !v.is_object()) return 0;
  const auto* n = v.as_object().if_contains("rows_emitted");
  return (n != nullptr && n->is_int64()) ? n->as_int64() : 0;
}

// Extra `key=value` lines for every sidecar's configuration (--sidecar-property), e.g. to
// compare snow.source.backfill.parallelism=1 with the default in two invocations.
std::vector<std::string>& SidecarProperties() {
  static std::vector<std::string> properties;
  return properties;
}

Measured RunSidecar(const std::string& binary, const std::string& base,
                    const std::string& bootstrap, const std::string& topic, int rows, int page) {
  snowcar::testsupport::TempDir dir("source-bench");
  const std::string socket = dir.File("snowcar.sock");
  const std::string config_path = dir.File("bench.properties");
  {
    std::ofstream cfg(config_path);
    cfg << "snow.url=" << base << "\n"
        << "snow.auth.username=" << kUser << "\nsnow.auth.password=" << kPassword << "\n"
        << "source.enabled=true\nsink.enabled=false\n"
        << "snow.tables=incident\nsnow.table.incident.name=incident\n"
        << "snow.table.incident.topic=" << topic << "\n"
        << "snow.source.batch.size=" << page << "\n"
        << "snow.source.startup.probe=false\n"
        << "state.dir=" << dir.File("state") << "\nsocket.path=" << socket << "\n"
        << "log.level=warn\nkafka.bootstrap.servers=" << bootstrap << "\n";
    for (const std::string& line : SidecarProperties()) cfg << line << "\n";
  }
  const auto start = Clock::now();
  snowcar::testsupport::ChildOptions options;
  options.args = {"run", "--config", config_path};
  auto child = snowcar::testsupport::ChildProcess::Spawn(binary, options);
  if (!child.ok()) {
    std::fprintf(stderr, "snowcar run: %s\n", child.status().message().c_str());
    std::exit(1);
  }
  const pid_t pid = (*child)->pid();
  Measured m;
  int64_t emitted = 0;
  while ((emitted = RowsEmitted(socket)) < rows) {
    if (SecondsSince(start) > 600) {
      std::fprintf(stderr, "sidecar emitted %lld of %d rows in 600 s\n",
                   static_cast<long long>(emitted), rows);
      std::exit(1);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  m.wall_s = SecondsSince(start);
  m.cpu_s = ProcessCpuSeconds(pid);
  m.rows = emitted;
  m.peak_rss_mib = PeakRssMiB(pid);
  m.thread_cpu_s = ThreadCpu(pid);
  const std::string metrics = snowcar::bench::SocketGet(socket, "/metrics");
  HistogramTotals(metrics, "snowcar_snow_request_duration_seconds", &m.http_s, &m.http_n);
  HistogramTotals(metrics, "snowcar_kafka_produce_duration_seconds", &m.ack_s, &m.ack_n);
  (void)(*child)->Signal(SIGTERM);
  (void)(*child)->Wait(std::chrono::seconds(60));
  return m;
}

void PrintRow(const char* name, const Measured& m) {
  std::printf("| %-28s | %9lld | %8.2f | %10.0f | %8.2f | %8s |\n", name,
              static_cast<long long>(m.rows), m.wall_s, static_cast<double>(m.rows) / m.wall_s,
              m.cpu_s * 1e6 / static_cast<double>(m.rows),
              m.peak_rss_mib > 0 ? std::to_string(static_cast<int>(m.peak_rss_mib)).c_str() : "-");
}

}  // namespace

int main(int argc, char** argv) {
  int rows = 200000;
  int page = 5000;
  int backfill_rows = 1000000;
  snowcar::bench::ParallelBackfillOptions parallel;
  parallel.rows = 0;
  bool only_parallel = false;
  snowcar::bench::SweepOptions sweep;
  sweep.rows = 0;
  bool only_sweep = false;
  std::string baseline;       // an earlier snowcar binary, measured in the same run
  std::string external;       // --bootstrap: a cluster of the caller's instead of the embedded one
  bool exactly_once = false;  // --exactly-once: also the sidecar with transactions
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--parallel-rows" && i + 1 < argc) {
      parallel.rows = std::atoi(argv[++i]);
      continue;
    }
    if (arg == "--latency-ms" && i + 1 < argc) {
      parallel.latency_ms = std::atoi(argv[++i]);
      continue;
    }
    if (arg == "--parallelism" && i + 1 < argc) {
      parallel.parallelism.clear();
      for (const char* p = argv[++i]; *p != 0;) {
        parallel.parallelism.push_back(std::atoi(p));
        while (*p != 0 && *p != ',') ++p;
        if (*p == ',') ++p;
      }
      continue;
    }
    if (arg == "--journal" && i + 1 < argc) {
      parallel.journal = argv[++i];
      continue;
    }
    if (arg == "--only-parallel") {
      only_parallel = true;
      continue;
    }
    if (arg == "--only-sweep") {
      only_sweep = true;
      continue;
    }
    if (arg.starts_with("--sweep-") && i + 1 < argc) {
      const int value = std::atoi(argv[++i]);
      if (arg == "--sweep-rows") sweep.rows = value;
      if (arg == "--sweep-batch") sweep.batch = value;
      if (arg == "--sweep-latency-ms") sweep.latency_ms = value;
      if (arg == "--sweep-deletions") sweep.deletions = value;
      continue;
    }
    if (arg == "--rows" && i + 1 < argc)
      rows = std::atoi(argv[++i]);
    else if (arg == "--page" && i + 1 < argc)
      page = std::atoi(argv[++i]);
    else if (arg == "--backfill-rows" && i + 1 < argc)
      backfill_rows = std::atoi(argv[++i]);
    else if (arg == "--baseline" && i + 1 < argc)
      baseline = argv[++i];
    else if (arg == "--bootstrap" && i + 1 < argc)
      external = argv[++i];
    else if (arg == "--exactly-once")
      exactly_once = true;
    else if (arg == "--sidecar-property" && i + 1 < argc)
      SidecarProperties().emplace_back(argv[++i]);
    // Other flags (e.g. --benchmark_counters_tabular from scripts/run-benchmarks) are ignored.
  }
  if (exactly_once && external.empty()) {
    std::fprintf(stderr,
                 "--exactly-once needs --bootstrap: the embedded broker has no "
                 "faithful transactions\n");
    return 2;
  }
  if (!external.empty() && (sweep.rows > 0 || parallel.rows > 0)) {
    std::fprintf(stderr, "--parallel-rows and --sweep-rows run on the embedded broker only\n");
    return 2;
  }
  curl_global_init(CURL_GLOBAL_DEFAULT);

  // The parallel backfill's topics have 32 partitions: the embedded broker keeps the last
  // 5 MiB of each partition, and the check reads every key while the sidecar writes; at 4
  // partitions (20 MiB) the reader fell behind that tail in a 1 000 000-row run.
  snowcar::bench::Started broker;
  std::string bootstrap = external;
  const std::string prefix =
      external.empty() ? "bench." : "bench-" + std::to_string(::getpid()) + ".";
  if (external.empty()) {
    const std::string topics =
        "bench.floor:4,bench.sidecar:4,bench.backfill:4,bench.baseline:4,"
        "bench.backfill-baseline:4,bench.parallel.1:32,bench.parallel.2:32,bench.parallel.4:32,"
        "bench.parallel.8:32,bench.parallel.16:32,bench.sweep:4";
    broker = StartSnowcar({"broker", "--brokers", "1", "--direct", "--topics", topics});
    bootstrap = broker.first_line;
  } else {
    for (const char* name :
         {"floor", "sidecar", "sidecar-eos", "backfill", "baseline", "backfill-baseline"}) {
      const std::string topic = prefix + name;
      const auto s = snowcar::testsupport::CreateTopic({{"bootstrap.servers", external}}, topic, 4);
      if (!s.ok()) {
        std::fprintf(stderr, "creating %s on %s: %s\n", topic.c_str(), external.c_str(),
                     s.message().c_str());
        return 1;
      }
    }
  }
  // An external broker is not this bench's child: its CPU is not read (printed as 0).
  const auto broker_cpu = [&] {
    return broker.process != nullptr ? ProcessCpuSeconds(broker.process->pid()) : 0.0;
  };
  const auto stop_broker = [&] {
    if (broker.process == nullptr) return;
    (void)broker.process->Signal(SIGTERM);
    (void)broker.process->Wait(std::chrono::seconds(30));
  };
  if (sweep.rows > 0) {
    snowcar::bench::RunReconcileSweep(bootstrap, sweep);
    if (only_sweep) {
      stop_broker();
      return 0;
    }
  }
  if (parallel.rows > 0) {
    parallel.page = page;
    snowcar::bench::RunParallelBackfill(bootstrap, parallel);
    if (only_parallel) {
      stop_broker();
      return 0;
    }
  }
  auto emulator =
      StartSnowcar({"emulate", "--port", "0", "--tables", "incident:" + std::to_string(rows)});
  std::printf("source end to end: %d rows of `incident`, page %d, %s %s\n", rows, page,
              external.empty() ? "embedded broker" : "Kafka at", bootstrap.c_str());
  const auto pages = FetchPages(emulator.first_line, rows, page);
  // The broker and the emulator share the 2 cores: their CPU during each run is part of the
  // picture (the floor's run leaves the emulator idle, the sidecar's run makes it serve HTTP).
  const double broker_cpu0 = broker_cpu();
  const double emulator_cpu0 = ProcessCpuSeconds(emulator.process->pid());
  const Measured floor = RunFloor(pages, bootstrap, prefix + "floor");
  const double broker_cpu1 = broker_cpu();
  const double emulator_cpu1 = ProcessCpuSeconds(emulator.process->pid());
  const Measured sidecar =
      RunSidecar(SNOWCAR_BINARY, emulator.first_line, bootstrap, prefix + "sidecar", rows, page);
  const double broker_cpu2 = broker_cpu();
  const double emulator_cpu2 = ProcessCpuSeconds(emulator.process->pid());
  Measured before;
  if (!baseline.empty()) {
    before = RunSidecar(baseline, emulator.first_line, bootstrap, prefix + "baseline", rows, page);
  }
  Measured eos;
  if (exactly_once) {
    SidecarProperties().emplace_back("exactly.once.source.support=required");
    SidecarProperties().emplace_back("snow.source.exactly.once.state.topic=" + prefix + "state");
    eos = RunSidecar(SNOWCAR_BINARY, emulator.first_line, bootstrap, prefix + "sidecar-eos", rows,
                     page);
    SidecarProperties().resize(SidecarProperties().size() - 2);
  }

  std::printf("\n| %-28s | %9s | %8s | %10s | %8s | %8s |\n", "run", "rows", "wall s", "rows/s",
              "CPU us/row", "peak MiB");
  std::printf(
      "|------------------------------|-----------|----------|------------|----------|----------|"
      "\n");
  PrintRow("floor (parse+produce)", floor);
  PrintRow("sidecar (HTTP+dedup+state)", sidecar);
  if (!baseline.empty()) PrintRow("baseline sidecar", before);
  if (exactly_once) PrintRow("sidecar, exactly-once", eos);
  PrintBreakdown("sidecar", sidecar);
  if (!baseline.empty()) PrintBreakdown("baseline sidecar", before);
  const double cpu_ratio = (sidecar.cpu_s / static_cast<double>(sidecar.rows)) /
                           (floor.cpu_s / static_cast<double>(floor.rows));
  const double rate_ratio = (static_cast<double>(sidecar.rows) / sidecar.wall_s) /
                            (static_cast<double>(floor.rows) / floor.wall_s);
  std::printf(
      "\nother processes' CPU on the same cores (s): floor run: broker %.2f, emulator "
      "%.2f; sidecar run: broker %.2f, emulator %.2f\n",
      broker_cpu1 - broker_cpu0, emulator_cpu1 - emulator_cpu0, broker_cpu2 - broker_cpu1,
      emulator_cpu2 - emulator_cpu1);
  if (!external.empty()) std::printf("(the broker at %s is not measured: 0)\n", bootstrap.c_str());
  if (exactly_once) {
    const double eos_ratio = (static_cast<double>(eos.rows) / eos.wall_s) /
                             (static_cast<double>(sidecar.rows) / sidecar.wall_s);
    std::printf("exactly-once rows/s = %.2fx the at-least-once sidecar's (target >= 0.8x): %s\n",
                eos_ratio, eos_ratio >= 0.8 ? "met" : "NOT met");
  }
  std::printf("\nsidecar CPU/row = %.2fx the floor's (target <= 1.5x): %s\n", cpu_ratio,
              cpu_ratio <= 1.5 ? "met" : "NOT met");
  std::printf("sidecar rows/s  = %.0f%% of the floor's (target >= 70%%): %s\n", rate_ratio * 100,
              rate_ratio >= 0.7 ? "met" : "NOT met");
  if (!baseline.empty()) {
    std::printf("baseline rows/s = %.0f%% of the floor's, CPU/row = %.2fx the floor's\n",
                (static_cast<double>(before.rows) / before.wall_s) /
                    (static_cast<double>(floor.rows) / floor.wall_s) * 100,
                (before.cpu_s / static_cast<double>(before.rows)) /
                    (floor.cpu_s / static_cast<double>(floor.rows)));
  }
  (void)emulator.process->Signal(SIGTERM);
  (void)emulator.process->Wait(std::chrono::seconds(30));

  if (backfill_rows > 0) {
    auto big = StartSnowcar(
        {"emulate", "--port", "0", "--tables", "incident:" + std::to_string(backfill_rows)});
    const Measured backfill = RunSidecar(SNOWCAR_BINARY, big.first_line, bootstrap,
                                         prefix + "backfill", backfill_rows, page);
    std::printf("\nbackfill: %lld rows in %.1f s (%.0f rows/s), sidecar peak RSS %.1f MiB\n",
                static_cast<long long>(backfill.rows), backfill.wall_s,
                static_cast<double>(backfill.rows) / backfill.wall_s, backfill.peak_rss_mib);
    if (!baseline.empty()) {
      const Measured old = RunSidecar(baseline, big.first_line, bootstrap,
                                      prefix + "backfill-baseline", backfill_rows, page);
      std::printf("baseline backfill: %lld rows in %.1f s (%.0f rows/s), peak RSS %.1f MiB\n",
                  static_cast<long long>(old.rows), old.wall_s,
                  static_cast<double>(old.rows) / old.wall_s, old.peak_rss_mib);
    }
    (void)big.process->Signal(SIGTERM);
    (void)big.process->Wait(std::chrono::seconds(60));
  }
  stop_broker();
  return 0;
}
