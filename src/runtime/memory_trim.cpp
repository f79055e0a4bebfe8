// SPDX-License-Identifier: Apache-2.0
#include "memory_trim.h"

#include <malloc.h>

namespace snowcar::runtime {

MemoryTrimmer::MemoryTrimmer(boost::asio::io_context& io, std::chrono::milliseconds interval)
    : task_(io, interval, [] { malloc_trim(0); }) {}

}  // namespace snowcar::runtime
