// SPDX-License-Identifier: Apache-2.0
// The freshness bench's writer: changes rows of the emulator's tables over the Table API at a
// fixed total rate, as an instance's other users would, and stamps each change with the time
// its HTTP answer arrived. Each change writes its sequence number into the row's field
// `u_freshness_seq`, so the reader can tell which change a record carries.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <string>
#include <thread>
#include <vector>

#include "freshness_tally.h"

namespace snowcar::bench {

struct WriterOptions {
  std::string base;                 // the emulator's base URL
  std::vector<std::string> tables;  // table names
  int rate = 200;                   // changes per second over all tables
  int threads = 2;                  // writer threads; table i goes to thread i % threads
  int create_percent = 10;          // share of changes that are POSTs of new rows
  std::chrono::steady_clock::time_point epoch;  // zero of the stamps
};

class ChangeWriter {
 public:
  explicit ChangeWriter(WriterOptions options);
  ~ChangeWriter();
  ChangeWriter(const ChangeWriter&) = delete;
  ChangeWriter& operator=(const ChangeWriter&) = delete;

  // Reads each table's sys_ids (the rows to change), then starts the threads. False (the
  // reason printed) when a table cannot be read.
  bool Start();
  // Stops sending and joins the threads; the changes made are then in Changes().
  void Stop();

  // Changes answered so far (readable while running).
  int64_t answered() const { return answered_.load(); }
  // Requests answered with anything but 200/201, or not answered at all.
  int64_t failures() const { return failures_.load(); }
  // Seconds from Start() to Stop(), and what was sent in them.
  double seconds() const { return seconds_; }
  // Every change made, in no particular order. Valid after Stop().
  const std::vector<Change>& Changes() const { return changes_; }

 private:
  // One thread's loop over its tables: change number j is due at start + j / its rate; a
  // thread that falls behind sends at once, so the achieved rate shows the shortfall.
  void Run(size_t thread_index, std::chrono::steady_clock::time_point start);

  WriterOptions options_;
  std::vector<std::deque<std::string>> pools_;  // per table: sys_ids, least recently changed first
  std::vector<std::vector<Change>> made_;       // per thread, merged by Stop()
  std::vector<std::thread> threads_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> next_seq_{1};
  std::atomic<int64_t> answered_{0};
  std::atomic<int64_t> failures_{0};
  std::chrono::steady_clock::time_point started_;
  double seconds_ = 0;
  std::vector<Change> changes_;
};

}  // namespace snowcar::bench
