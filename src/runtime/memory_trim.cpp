// SPDX-License-Identifier: Apache-2.0
#include "memory_trim.h"

#include <malloc.h>

#include <cstdlib>

namespace snowcar::runtime {

MemoryTrimmer::MemoryTrimmer(boost::asio::io_context& io, std::chrono::milliseconds interval)
    : task_(io, interval, [] { malloc_trim(0); }) {}

void CompactAllocator() {
  for (const char* tuned : {"GLIBC_TUNABLES", "MALLOC_ARENA_MAX"}) {
    if (std::getenv(tuned) != nullptr) return;
  }
  mallopt(M_ARENA_MAX, 1);
}

}  // namespace snowcar::runtime
