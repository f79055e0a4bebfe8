// SPDX-License-Identifier: Apache-2.0
// What the embedded broker can hold for the demo. It keeps at most 5 MiB of records per
// partition and drops the oldest past that (snowcar/testbed/broker/log_start.h), and the demo runs
// for as long as the user lets it, so the demo says up front about when its topics reach the cap
// and, at each census, which topics lost their oldest records.
#pragma once

#include <cstdint>
#include <string>

#include "demo/options.h"

namespace snowcar::demo {

// Partitions of each source topic the demo creates.
inline constexpr int kSourcePartitions = 3;
// A source record as the demo produces it, on the wire (value, key, headers and its share of
// the batch): `snowcar demo --tables incident --rows 16000` ended with 11 011 records held on
// 3 partitions, 5 MiB / 3 670 = about 1.4 KiB each. An estimate, for the notice only.
inline constexpr int64_t kApproxSourceRecordBytes = 1430;

// About how many seconds the demo runs before the fullest source partition reaches the
// broker's cap (0: its first load alone does), assuming the writer spreads over the tables.
int64_t SecondsUntilCap(const Options& options);
// The line the demo prints when it starts the broker.
std::string CapNotice(const Options& options);
// What a census line adds when the broker had dropped `dropped` records of what it counts
// ("" when none).
std::string DroppedNote(int64_t dropped);

}  // namespace snowcar::demo
