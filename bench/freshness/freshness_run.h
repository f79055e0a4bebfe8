// SPDX-License-Identifier: Apache-2.0
// One measured run of the freshness bench: a fresh emulator with the tables, one sidecar
// binary polling them into their topics, the reader on those topics and the writer changing
// rows for a fixed time, then a drain until every change arrived or a deadline passed.
#pragma once

#include <string>
#include <vector>

#include "freshness_tally.h"

namespace snowcar::bench {

enum class Delivery { kAtLeastOnce, kExactlyOncePoll, kExactlyOnceInterval };

// "at-least-once", "exactly-once, boundary poll", ...
std::string DeliveryName(Delivery delivery);

// What every run of one bench invocation shares.
struct FreshnessSettings {
  int tables = 10;
  int rows = 500;  // per table before the writer starts
  int rate = 200;  // changes/s over all tables
  int writer_threads = 2;
  int create_percent = 10;  // share of changes that create a row (POST); the rest PATCH
  int seconds = 60;         // how long the writer writes
  int poll_ms = 0;          // snow.source.poll.interval.ms; 0: the sidecar's default
  int interval_ms = 1000;   // transaction.boundary.interval.ms for the interval runs
  int partitions = 4;       // of each table's topic
  std::string bootstrap;    // the Kafka cluster
  std::vector<std::string> sidecar_properties;  // extra key=value lines
};

// One sidecar binary under one delivery mode.
struct RunSpec {
  std::string label;   // e.g. "before", "after"
  std::string binary;  // the snowcar binary that runs the sidecar
  Delivery delivery = Delivery::kAtLeastOnce;
  std::string topic_prefix;  // its topics: <prefix><table>; they exist already
};

struct RunResult {
  bool ran = false;
  std::string why_not;  // when !ran: what stopped it
  FreshnessSummary summary;
  double writer_rate = 0;  // changes answered per second of writing
  int64_t writer_failures = 0;
  double load_before = 0;  // the machine's 1-minute load average at the start and the end
  double load_after = 0;
};

// The tables' names: fr0, fr1, ...
std::vector<std::string> TableNames(int tables);

// Runs `spec` with `settings`. The emulator is always this build's (`snowcar emulate`), so
// every sidecar binary reads the same kind of instance.
RunResult RunFreshness(const FreshnessSettings& settings, const RunSpec& spec);

}  // namespace snowcar::bench
