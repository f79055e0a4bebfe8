// SPDX-License-Identifier: Apache-2.0
// What one table's poller shows the outside world (socket, /metrics, health): counters as
// atomics bumped on the poller's strand and read from socket handlers on other threads, and
// a small mutex-guarded record of state, phase, cursor and the last error.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>

#include "snowcar/state/state_store.h"

namespace snowcar::source {

enum class TableState { kStarting, kProbing, kRunning, kBackingOff, kFailed, kStopped };

inline std::string_view TableStateName(TableState state) {
  switch (state) {
    case TableState::kStarting:
      return "starting";
    case TableState::kProbing:
      return "probing";
    case TableState::kRunning:
      return "running";
    case TableState::kBackingOff:
      return "backing_off";
    case TableState::kFailed:
      return "failed";
    case TableState::kStopped:
      return "stopped";
  }
  return "unknown";
}

// Why a request went to the instance, for snowcar_snow_requests_total: page (a keyset page,
// with or without its X-Total-Count), count (a count request of its own: a range's or a
// parallel backfill's cut), probe (the startup probe, the clock read and the time-zone check),
// dictionary (a typed table's column types), audit (a deletes stream's pages, counts and row
// reads) and sweep (reconciliation; the reconciler counts those itself).
enum class RequestPurpose { kPage, kCount, kProbe, kDictionary, kAudit, kSweep };
inline constexpr RequestPurpose kRequestPurposes[] = {
    RequestPurpose::kPage,       RequestPurpose::kCount, RequestPurpose::kProbe,
    RequestPurpose::kDictionary, RequestPurpose::kAudit, RequestPurpose::kSweep};

inline std::string_view RequestPurposeName(RequestPurpose purpose) {
  switch (purpose) {
    case RequestPurpose::kPage:
      return "page";
    case RequestPurpose::kCount:
      return "count";
    case RequestPurpose::kProbe:
      return "probe";
    case RequestPurpose::kDictionary:
      return "dictionary";
    case RequestPurpose::kAudit:
      return "audit";
    case RequestPurpose::kSweep:
      return "sweep";
  }
  return "page";
}

class TableStatus {
 public:
  struct View {
    TableState state = TableState::kStarting;
    state::Phase phase = state::Phase::kBackfill;
    state::Cursor cursor;            // the committed cursor
    int64_t last_request_at_ms = 0;  // 0: none yet
    std::string last_error;
    // What the instance's X-Total-Count counts, as the table learned it from hidden rows:
    // "unknown", "includes_hidden" or "readable_only" (docs/source.md, hidden rows).
    std::string count_reading = "unknown";
  };

  std::atomic<int64_t> rows_emitted{0};
  std::atomic<int64_t> pages_fetched{0};
  std::atomic<int64_t> duplicates_suppressed{0};
  // Row versions the sink of this process wrote: emitted with origin headers, or kept out
  // of the topic under snow.source.echo=suppress (echo_marker.h).
  std::atomic<int64_t> echo_marked{0};
  std::atomic<int64_t> echo_suppressed{0};
  std::atomic<int64_t> rows_skipped{0};
  std::atomic<int64_t> retries{0};
  std::atomic<int64_t> throttled_ms{0};
  // The wait of the current backoff (0 when not backing off); at least the instance's
  // Retry-After when it sent one.
  std::atomic<int64_t> backoff_ms{0};
  std::atomic<int64_t> commits{0};
  // Sweeps that reached their high-water mark: a caught-up table finishes one every poll
  // interval, so a count that stops growing means the table stopped advancing.
  std::atomic<int64_t> sweeps{0};
  // The wait before the next sweep once caught up: the poll interval, or under adaptive
  // polling (poll.interval.max.ms) the current one. 0 until the first sweep ended.
  std::atomic<int64_t> poll_interval_ms{0};
  // Logical requests sent to the instance (one Send each; the client's retries of a call are
  // in retries and the request-duration histogram), by purpose.
  std::array<std::atomic<int64_t>, std::size(kRequestPurposes)> requests{};

  void CountRequest(RequestPurpose purpose) {
    requests[static_cast<size_t>(purpose)].fetch_add(1, std::memory_order_relaxed);
  }
  int64_t Requests(RequestPurpose purpose) const {
    return requests[static_cast<size_t>(purpose)].load(std::memory_order_relaxed);
  }

  View Read() const {
    std::lock_guard lock(mu_);
    return view_;
  }
  void SetState(TableState state) {
    std::lock_guard lock(mu_);
    view_.state = state;
  }
  void SetPhase(state::Phase phase) {
    std::lock_guard lock(mu_);
    view_.phase = phase;
  }
  void SetCursor(const state::Cursor& cursor) {
    std::lock_guard lock(mu_);
    view_.cursor = cursor;
  }
  void SetLastRequestAt(int64_t ms) {
    std::lock_guard lock(mu_);
    view_.last_request_at_ms = ms;
  }
  void SetCountReading(std::string reading) {
    std::lock_guard lock(mu_);
    view_.count_reading = std::move(reading);
  }
  void SetLastError(std::string error) {
    std::lock_guard lock(mu_);
    view_.last_error = std::move(error);
  }

 private:
  mutable std::mutex mu_;
  View view_;
};

}  // namespace snowcar::source
