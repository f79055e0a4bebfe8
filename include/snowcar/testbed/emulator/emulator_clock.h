// SPDX-License-Identifier: Apache-2.0
// The emulator's controllable clock.
//
// Every timestamp the emulator stamps (sys_created_on, sys_updated_on), every OAuth token
// expiry, the Date header and X-RateLimit-Reset read this clock, so a test can freeze time,
// jump it forward to expire a token, or make rows share one second, without sleeping.
//
// Real mode follows the system clock plus an offset (Set/Advance move the offset); frozen
// mode returns a fixed instant until told otherwise. Thread-safe and lock-free to read.
#pragma once

#include <atomic>
#include <cstdint>
#include <string_view>

#include "snowcar/common/status.h"
#include "snowcar/common/time.h"

namespace snowcar::emulator {

class EmulatorClock final : public Clock {
 public:
  EmulatorClock() = default;

  int64_t NowMillis() const override;

  // Stops time at the current instant.
  void Freeze();
  // Stops time at `epoch_millis`.
  void FreezeAt(int64_t epoch_millis);
  // Lets time run again from the current (possibly frozen) instant.
  void Unfreeze();
  // Moves "now" to `epoch_millis`, keeping the mode (a real clock keeps running from there).
  void Set(int64_t epoch_millis);
  // Moves "now" forward (or back, if negative) by `millis`.
  void Advance(int64_t millis);
  bool frozen() const { return frozen_.load(std::memory_order_acquire); }

 private:
  std::atomic<bool> frozen_{false};
  std::atomic<int64_t> frozen_at_{0};
  std::atomic<int64_t> offset_{0};  // real mode: added to the system clock
};

// Epoch milliseconds of "2026-01-01 00:00:00" or "2026-01-01T00:00:00" (UTC; a trailing
// "Z" is accepted). InvalidArgument naming the text otherwise.
Result<int64_t> ParseClockInstant(std::string_view text);

}  // namespace snowcar::emulator
