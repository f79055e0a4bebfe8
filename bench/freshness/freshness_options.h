// SPDX-License-Identifier: Apache-2.0
// The freshness bench's command line:
//
//   freshness_bench [--tables 10] [--rows 500] [--rate 200] [--writer-threads 2]
//                   [--creates 10] [--seconds 60] [--poll-ms 0] [--interval-ms 1000]
//                   [--partitions 4] [--kafka embedded|real] [--bootstrap HOST:PORT]
//                   [--exactly-once | --delivery alo,eos-poll,eos-interval]
//                   [--sidecar [LABEL=]PATH]... [--rounds 1] [--sidecar-property K=V]...
//                   [--kafka-server PATH]
//
// --poll-ms 0 leaves snow.source.poll.interval.ms at the sidecar's default (5000).
// --kafka real starts Apache Kafka (scripts/kafka-server) for the run; --bootstrap uses a
// cluster already running instead (and implies --kafka real). --exactly-once runs the sidecar
// with exactly.once.source.support=required, once with transaction.boundary=poll and once with
// interval (--interval-ms), each read by a read_committed consumer; --delivery picks any list
// of the three modes (alo: at-least-once, read_uncommitted). Exactly-once needs --kafka real:
// the embedded broker has no faithful transactions.
// --sidecar: a snowcar binary whose sidecar is measured (default: this build's, labelled
// "this build"); give several to compare builds in one run, each under the same settings.
// --rounds N repeats the whole list of runs N times, so a drift in the machine's load shows.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "freshness_run.h"

namespace snowcar::bench {

struct FreshnessOptions {
  FreshnessSettings settings;
  bool real_kafka = false;
  std::string kafka_server;  // the script that starts Apache Kafka
  std::vector<Delivery> deliveries{Delivery::kAtLeastOnce};
  std::vector<std::pair<std::string, std::string>> sidecars;  // label, binary
  int rounds = 1;
};

// Parses argv into `options` (which holds the defaults on entry). An error names the flag and
// what it needs; flags of Google Benchmark (--benchmark_*, passed by scripts/run-benchmarks)
// are ignored.
std::optional<std::string> ParseFreshnessOptions(int argc, const char* const* argv,
                                                 FreshnessOptions* options);

}  // namespace snowcar::bench
