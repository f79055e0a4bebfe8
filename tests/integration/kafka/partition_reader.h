// SPDX-License-Identifier: Apache-2.0
// Reads a topic back from the beginning with a plain assigned consumer (no group), so the
// producer tests check what the broker holds without paying the mock's ~3 s group join.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "snowcar/common/status.h"
#include "snowcar/kafka/record.h"

namespace snowcar::kafka::testing {

// Every record of partitions [0, partitions) of `topic` until `count` arrived (then it also
// waits a little for extras, so duplicates show), or DeadlineExceeded after `timeout`.
Result<std::vector<InRecord>> ReadFromStart(const std::string& bootstrap, const std::string& topic,
                                            int partitions, size_t count,
                                            std::chrono::milliseconds timeout);

}  // namespace snowcar::kafka::testing
