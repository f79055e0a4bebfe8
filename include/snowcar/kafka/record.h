// SPDX-License-Identifier: Apache-2.0
// Kafka records as plain values, free of librdkafka types, so the source, the sink and their
// tests build and inspect records without a broker.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace snowcar::kafka {

// Kafka headers keep their order and may repeat; a header value may be null.
struct Header {
  std::string key;
  std::optional<std::string> value;

  bool operator==(const Header&) const = default;
};
using Headers = std::vector<Header>;

// The first header named `key` (exact, case-sensitive as Kafka is), or nullptr.
const Header* FindHeader(const Headers& headers, std::string_view key);

// A record to produce.
struct OutRecord {
  std::string topic;
  int32_t partition = -1;  // -1: the partitioner decides from the key
  std::optional<std::string> key;
  std::optional<std::string> value;  // nullopt: a tombstone (the source never sends one)
  Headers headers;
  int64_t timestamp_ms = 0;  // 0: the producer's clock (CreateTime now)
};

// A consumed record.
struct InRecord {
  std::string topic;
  int32_t partition = 0;
  int64_t offset = 0;
  std::optional<std::string> key;
  std::optional<std::string> value;
  Headers headers;
  int64_t timestamp_ms = -1;  // -1 when the record has none
};

struct TopicPartition {
  std::string topic;
  int32_t partition = 0;

  // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy misreads the defaulted comparison.
  auto operator<=>(const TopicPartition&) const = default;
  std::string ToString() const;  // "topic/3"
};

// A committed (or to be committed) offset with its metadata: the broker keeps up to
// offset.metadata.max.bytes (4096 by default) and hands it to whoever reads the offset.
struct OffsetAndMetadata {
  int64_t offset = -1;
  std::string metadata;
};

}  // namespace snowcar::kafka
