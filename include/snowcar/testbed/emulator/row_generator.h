// SPDX-License-Identifier: Apache-2.0
// A background row generator: the other users of the instance.
//
// While a poller reads pages, real instances keep changing: rows are created and updated,
// many within one second, and some transactions commit late, making a row visible with a
// sys_updated_on a few seconds in the past (older than rows a poller already read). The
// generator produces exactly that, at a chosen pace, so source tests can check that nothing
// is lost or duplicated under churn. Over HTTP it is /_emulator/writer (docs/testbed.md); its
// rows carry the user "writer" unless told otherwise.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "snowcar/common/status.h"
#include "snowcar/testbed/emulator/table_store.h"

namespace snowcar::emulator {

struct RowGeneratorOptions {
  std::vector<std::string> tables;  // written round-robin; must exist
  double rows_per_second = 10.0;    // steady writes (creates + updates)
  double update_share = 0.5;        // share of steady writes that update an existing row
  // Every burst_interval_ms, burst_rows creates at once (all within one clock second).
  int64_t burst_rows = 0;
  int64_t burst_interval_ms = 1000;
  // Share of writes made late-visible, stamped late_seconds in the past.
  double late_share = 0.0;
  int64_t late_seconds = 5;
  uint64_t seed = 7;
  std::string user = "writer";
};

struct RowGeneratorStats {
  uint64_t inserted = 0;
  uint64_t updated = 0;
  uint64_t late = 0;    // writes among the above that were backdated
  uint64_t failed = 0;  // writes the store refused
};

class RowGenerator {
 public:
  explicit RowGenerator(TableStore& store) : store_(store) {}
  ~RowGenerator() { Stop(); }
  RowGenerator(const RowGenerator&) = delete;
  RowGenerator& operator=(const RowGenerator&) = delete;

  // Starts writing on its own thread; InvalidArgument for a bad option or unknown table,
  // FailedPrecondition when already running.
  Status Start(RowGeneratorOptions options);
  // Stops and joins; safe to call when not running. Stats stay readable.
  void Stop();
  bool running() const;
  RowGeneratorStats stats() const;

  // One synchronous step, for tests that want exact control: `creates` new rows and
  // `updates` updates of existing rows on `table`, each backdated by `backdate_seconds`.
  Status WriteNow(const std::string& table, int creates, int updates, int64_t backdate_seconds,
                  const std::string& user = "writer");

 private:
  void Run(RowGeneratorOptions options);
  Status UpdateRandom(const std::string& table, uint64_t pick, int64_t backdate,
                      const std::string& user);

  TableStore& store_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool running_ = false;
  std::thread thread_;
  RowGeneratorStats stats_;
  uint64_t counter_ = 0;
};

}  // namespace snowcar::emulator
