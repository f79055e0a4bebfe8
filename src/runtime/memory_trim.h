// SPDX-License-Identifier: Apache-2.0
// Gives memory freed after a burst (a backfill, a large page) back to the operating system.
//
// glibc keeps freed heap memory in its arenas, so a sidecar that parsed ten 5000-row pages at
// once keeps that resident size for the rest of its life although it needs a fraction of it
// while streaming. A pod's memory limit is about resident size, so every `interval` the
// trimmer asks glibc (malloc_trim) to return free pages. The call walks the arenas and costs
// about a millisecond; it runs on the pool like any other handler.
#pragma once

#include <boost/asio/io_context.hpp>
#include <chrono>

#include "periodic_task.h"

namespace snowcar::runtime {

class MemoryTrimmer {
 public:
  MemoryTrimmer(boost::asio::io_context& io, std::chrono::milliseconds interval);
  ~MemoryTrimmer() = default;
  MemoryTrimmer(const MemoryTrimmer&) = delete;
  MemoryTrimmer& operator=(const MemoryTrimmer&) = delete;

  void Start() { task_.Start(); }
  // Cancels the pending wait, so the pool can drain; call before stopping the pool.
  void Stop() { task_.Stop(); }

 private:
  PeriodicTask task_;  // the timer, its stop and its zero-interval "off" live there
};

// Keeps the heap compact during a backfill: one malloc arena, set before the pool and the
// clients start their threads. glibc otherwise gives each busy thread an arena of its own, and
// a page parsed on one pool thread, built into records on the other and released by
// librdkafka's threads leaves free memory resident in each (a 300 000-row backfill peaked at
// 108 MiB with the default, 75 MiB with one arena; docs/performance.md). A fixed mmap
// threshold saved 9 MiB more but made every page's memory fresh pages again, which cost more
// CPU than it was worth. Nothing is changed when the operator tunes malloc already
// (GLIBC_TUNABLES, MALLOC_ARENA_MAX).
void CompactAllocator();

}  // namespace snowcar::runtime
