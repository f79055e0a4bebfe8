// SPDX-License-Identifier: Apache-2.0
// Freshness: how long a change on the instance takes to reach a consumer of its table's topic
// (issue #37's "freshness unchanged or better", and the freshness cost of exactly-once).
//
// The emulator holds --tables tables; a writer changes their rows over the Table API at --rate
// changes/s in total (PATCH of existing rows, --creates % POSTs of new ones), each change
// writing its sequence number into the row. The sidecar polls the tables into one topic each,
// and a consumer reads those topics. A change's freshness is the time from its HTTP answer to
// the first arrival of the record carrying its sequence number, both stamped on this
// process's steady clock. Reported per run: p50, p99 and max, the changes made, seen, lost
// (neither that version nor a later one of the row arrived) and superseded (overwritten by a
// later change before a poll could see it). The options are in freshness_options.h.
#include <curl/curl.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

#include "e2e_processes.h"
#include "freshness_options.h"
#include "freshness_run.h"
#include "support/child_process.h"
#include "support/kafka_admin.h"

namespace {

using snowcar::bench::Delivery;
using snowcar::bench::FreshnessOptions;
using snowcar::bench::RunResult;
using snowcar::bench::RunSpec;

// Apache Kafka from scripts/kafka-server: its PLAINTEXT address once it serves.
std::string StartKafka(const std::string& script,
                       std::unique_ptr<snowcar::testsupport::ChildProcess>* server) {
  snowcar::testsupport::ChildOptions options;
  options.capture_stderr = true;
  auto child = snowcar::testsupport::ChildProcess::Spawn(script, options);
  if (!child.ok()) {
    std::fprintf(stderr, "freshness: cannot start %s: %s\n", script.c_str(),
                 child.status().message().c_str());
    std::exit(1);
  }
  *server = std::move(child).value();
  for (;;) {
    auto line = (*server)->ReadLine(std::chrono::seconds(180));
    if (!line.ok()) {
      std::fprintf(stderr, "freshness: %s printed no PLAINTEXT address: %s\n", script.c_str(),
                   line.status().message().c_str());
      std::exit(1);
    }
    if (line->rfind("PLAINTEXT=", 0) == 0) return line->substr(10);
  }
}

void PrintRow(const RunSpec& spec, const RunResult& r) {
  const std::string reader =
      spec.delivery == Delivery::kAtLeastOnce ? "read_uncommitted" : "read_committed";
  if (!r.ran) {
    std::printf("| %s | %s | %s | did not run: %s |\n", spec.label.c_str(),
                DeliveryName(spec.delivery).c_str(), reader.c_str(), r.why_not.c_str());
    return;
  }
  const auto& s = r.summary;
  std::printf(
      "| %s | %s | %s | %lld | %lld | %lld | %lld | %lld | %.0f | %.0f | %.0f | %.1f | %.1f to "
      "%.1f |\n",
      spec.label.c_str(), DeliveryName(spec.delivery).c_str(), reader.c_str(),
      static_cast<long long>(s.changes), static_cast<long long>(s.seen),
      static_cast<long long>(s.lost), static_cast<long long>(s.superseded),
      static_cast<long long>(s.duplicates), s.p50_ms, s.p99_ms, s.max_ms, r.writer_rate,
      r.load_before, r.load_after);
  if (r.writer_failures > 0 || s.unmatched > 0) {
    std::printf("  (writer requests failed: %lld; records matching no change: %lld)\n",
                static_cast<long long>(r.writer_failures), static_cast<long long>(s.unmatched));
  }
}

}  // namespace

int main(int argc, char** argv) {
  FreshnessOptions options;
  options.kafka_server = std::string(SNOWCAR_SOURCE_DIR) + "/scripts/kafka-server";
  if (const auto error = snowcar::bench::ParseFreshnessOptions(argc, argv, &options)) {
    std::fprintf(stderr, "freshness_bench: %s\n", error->c_str());
    return 2;
  }
  if (options.sidecars.empty()) options.sidecars.emplace_back("this build", SNOWCAR_BINARY);
  curl_global_init(CURL_GLOBAL_DEFAULT);
  auto& settings = options.settings;
  const std::vector<std::string> tables = snowcar::bench::TableNames(settings.tables);

  // Every run's topics, named after its place in the list (and this process on a cluster
  // that outlives it, so a second invocation does not meet the first one's records).
  std::vector<RunSpec> runs;
  const std::string pid = std::to_string(::getpid());
  for (int round = 0; round < options.rounds; ++round) {
    for (Delivery d : options.deliveries) {
      for (const auto& [label, binary] : options.sidecars) {
        RunSpec spec{label, binary, d, "fresh-" + pid + "-" + std::to_string(runs.size()) + "."};
        runs.push_back(spec);
      }
    }
  }

  snowcar::bench::Started broker;
  std::unique_ptr<snowcar::testsupport::ChildProcess> kafka;
  if (!options.real_kafka) {
    std::string topics;
    for (const RunSpec& run : runs) {
      for (const std::string& t : tables) {
        topics += (topics.empty() ? "" : ",") + run.topic_prefix + t + ":" +
                  std::to_string(settings.partitions);
      }
    }
    broker =
        snowcar::bench::StartSnowcar({"broker", "--brokers", "1", "--direct", "--topics", topics});
    settings.bootstrap = broker.first_line;
  } else if (settings.bootstrap.empty()) {
    settings.bootstrap = StartKafka(options.kafka_server, &kafka);
  }
  const std::string poll =
      settings.poll_ms > 0 ? std::to_string(settings.poll_ms) + " ms" : "the default (5000 ms)";
  std::printf(
      "freshness: %d tables of %d rows, writer %d changes/s (%d%% creates) for %d s, poll "
      "interval %s, %s at %s\n\n",
      settings.tables, settings.rows, settings.rate, settings.create_percent, settings.seconds,
      poll.c_str(), options.real_kafka ? "Apache Kafka" : "embedded broker",
      settings.bootstrap.c_str());
  std::printf(
      "| sidecar | delivery | reader | changes | seen | lost | superseded | duplicates | p50 ms | "
      "p99 ms | max ms | writer/s | load "
      "|\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  std::fflush(stdout);

  for (const RunSpec& run : runs) {
    if (options.real_kafka) {
      for (const std::string& t : tables) {
        const auto s = snowcar::testsupport::CreateTopic(
            {{"bootstrap.servers", settings.bootstrap}}, run.topic_prefix + t, settings.partitions);
        if (!s.ok()) {
          std::fprintf(stderr, "freshness: creating %s%s: %s\n", run.topic_prefix.c_str(),
                       t.c_str(), s.message().c_str());
          return 1;
        }
      }
    }
    PrintRow(run, snowcar::bench::RunFreshness(settings, run));
    std::fflush(stdout);
  }
  snowcar::bench::Stop(broker);
  if (kafka != nullptr) {
    (void)kafka->Signal(SIGTERM);
    (void)kafka->Wait(std::chrono::seconds(120));
  }
  return 0;
}
