// SPDX-License-Identifier: Apache-2.0
// A settable clock for the emulator core tests.
#pragma once

#include <atomic>
#include <cstdint>

#include "snowcar/common/time.h"

namespace snowcar::emulator::testing {

class TestClock final : public Clock {
 public:
  explicit TestClock(int64_t seconds) : millis_(seconds * 1000) {}
  int64_t NowMillis() const override { return millis_.load(); }
  void SetSeconds(int64_t s) { millis_.store(s * 1000); }
  void Advance(int64_t seconds) { millis_.fetch_add(seconds * 1000); }

 private:
  std::atomic<int64_t> millis_;
};

// 2026-03-01 12:00:00 UTC.
inline constexpr int64_t kBaseTime = 1772366400;

}  // namespace snowcar::emulator::testing
