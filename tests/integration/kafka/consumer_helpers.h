// SPDX-License-Identifier: Apache-2.0
// Shared bits of the consumer tests: options for a test consumer on the mock broker and a
// poll loop that collects records until a condition holds.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "snowcar/kafka/consumer.h"

namespace snowcar::kafka::testing {

// A consumer of `topics` in `group`. session.timeout.ms=6000 keeps the mock's slow handling
// of departed members short (docs/embedded-broker.md); `extra` adds or overrides.
inline ConsumerOptions TestConsumerOptions(const std::string& bootstrap, const std::string& group,
                                           std::vector<std::string> topics,
                                           const std::map<std::string, std::string>& extra = {}) {
  ConsumerOptions options;
  options.properties = {{"bootstrap.servers", bootstrap},
                        {"group.id", group},
                        {"session.timeout.ms", "6000"},
                        {"heartbeat.interval.ms", "500"}};
  for (const auto& [k, v] : extra) options.properties[k] = v;
  options.topics = std::move(topics);
  return options;
}

// Polls `consumer` (100 ms at a time), appending to `got`, until `done()` or `timeout`.
inline bool PollUntil(KafkaConsumer& consumer, std::vector<InRecord>& got,
                      const std::function<bool()>& done, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    auto r = consumer.Poll(std::chrono::milliseconds(100));
    if (!r.ok()) return false;
    if (r->has_value()) got.push_back(std::move(**r));
  }
  return true;
}

}  // namespace snowcar::kafka::testing
