// SPDX-License-Identifier: Apache-2.0
// Small builders shared by the sink core tests.
#pragma once

#include <optional>
#include <string>
#include <utility>

#include "snowcar/kafka/record.h"
#include "snowcar/sink/commands/command.h"
#include "snowcar/sink/sink_settings.h"

namespace snowcar::sink::testing {

inline constexpr char kId1[] = "0123456789abcdef0123456789abcdef";
inline constexpr char kId2[] = "fedcba9876543210fedcba9876543210";

// Defaults, writing to table incident.
inline SinkSettings Settings() {
  SinkSettings s;
  s.topics = {"commands"};
  s.table = "incident";
  return s;
}

// A record on topic "commands", partition 0, offset 7.
inline kafka::InRecord Record(std::optional<std::string> value,
                              std::optional<std::string> key = std::nullopt,
                              kafka::Headers headers = {}) {
  kafka::InRecord r;
  r.topic = "commands";
  r.partition = 0;
  r.offset = 7;
  r.key = std::move(key);
  r.value = std::move(value);
  r.headers = std::move(headers);
  return r;
}

}  // namespace snowcar::sink::testing
