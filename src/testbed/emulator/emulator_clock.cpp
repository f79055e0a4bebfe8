// SPDX-License-Identifier: Apache-2.0
#include "snowcar/testbed/emulator/emulator_clock.h"

#include <string>

namespace snowcar::emulator {
namespace {
int64_t SystemNow() { return SystemClock::Instance().NowMillis(); }
}  // namespace

int64_t EmulatorClock::NowMillis() const {
  if (frozen_.load(std::memory_order_acquire)) return frozen_at_.load(std::memory_order_acquire);
  return SystemNow() + offset_.load(std::memory_order_acquire);
}

void EmulatorClock::Freeze() { FreezeAt(NowMillis()); }

void EmulatorClock::FreezeAt(int64_t epoch_millis) {
  frozen_at_.store(epoch_millis, std::memory_order_release);
  frozen_.store(true, std::memory_order_release);
}

void EmulatorClock::Unfreeze() {
  if (!frozen_.load(std::memory_order_acquire)) return;
  offset_.store(frozen_at_.load(std::memory_order_acquire) - SystemNow(),
                std::memory_order_release);
  frozen_.store(false, std::memory_order_release);
}

void EmulatorClock::Set(int64_t epoch_millis) {
  if (frozen_.load(std::memory_order_acquire)) {
    frozen_at_.store(epoch_millis, std::memory_order_release);
  } else {
    offset_.store(epoch_millis - SystemNow(), std::memory_order_release);
  }
}

void EmulatorClock::Advance(int64_t millis) {
  if (frozen_.load(std::memory_order_acquire)) {
    frozen_at_.fetch_add(millis, std::memory_order_acq_rel);
  } else {
    offset_.fetch_add(millis, std::memory_order_acq_rel);
  }
}

Result<int64_t> ParseClockInstant(std::string_view text) {
  std::string t(text);
  if (!t.empty() && (t.back() == 'Z' || t.back() == 'z')) t.pop_back();
  if (t.size() > 10 && (t[10] == 'T' || t[10] == 't')) t[10] = ' ';
  auto seconds = ParseSnowTimestamp(t);
  if (!seconds.ok()) {
    return Status::InvalidArgument("clock instant '" + std::string(text) +
                                   "' is not YYYY-MM-DD HH:MM:SS or YYYY-MM-DDTHH:MM:SS");
  }
  return *seconds * 1000;
}

}  // namespace snowcar::emulator
