// SPDX-License-Identifier: Apache-2.0
// What the contract checker reads, as plain values: the records of a topic with each
// partition's watermarks, and the violations it reports. Nothing here knows snowcar; the
// same values come from a real broker (observe.h) or are written by hand in the checker's
// own tests.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace snowcar::contract {

struct KafkaRecord {
  int32_t partition = 0;
  int64_t offset = 0;
  std::optional<std::string> key;
  std::optional<std::string> value;  // nullopt: a null value (tombstone)
  std::vector<std::pair<std::string, std::string>> headers;

  // The first value of header `name`, if present.
  std::optional<std::string> Header(const std::string& name) const {
    for (const auto& [k, v] : headers) {
      if (k == name) return v;
    }
    return std::nullopt;
  }
};

// A partition's low and high watermarks when it was read. A low watermark above 0 means
// records were removed (retention, compaction): what they said is unknown.
struct PartitionMarks {
  int32_t partition = 0;
  int64_t low = 0;
  int64_t high = 0;
};

// Every record of one topic, in (partition, offset) order, and the watermarks read first.
struct TopicDump {
  std::string topic;
  std::vector<PartitionMarks> marks;
  std::vector<KafkaRecord> records;
};

enum class ViolationKind {
  kLost,             // a final row version or a deletion is not on the topic
  kReorder,          // a key's versions go back, or an UPSERT follows its row's DELETE
  kStaleFinal,       // a key's last record is not what the instance holds
  kDuplicates,       // more repeats than the documented bound
  kUndecodable,      // a record that does not decode in the declared format / key encoding
  kWrongMark,        // a record marked as the sink's own version that someone else wrote
  kSinkOutOfOrder,   // a key's writes on the instance are not in offset order
  kSinkUncommitted,  // a committed offset passes a record that was neither applied nor
                     // dead-lettered
  kSinkUnfinished,   // a command that ended neither applied, dead-lettered, nor on a stopped lane
};

const char* KindName(ViolationKind kind);

struct Violation {
  ViolationKind kind;
  std::string detail;
};

struct Verdict {
  // A partition lost records before it was read: nothing can be concluded (not "lost").
  bool void_check = false;
  std::string void_reason;
  std::vector<Violation> violations;

  bool ok() const { return !void_check && violations.empty(); }
  bool Has(ViolationKind kind) const {
    for (const auto& v : violations) {
      if (v.kind == kind) return true;
    }
    return false;
  }
  void Add(ViolationKind kind, std::string detail) {
    violations.push_back({kind, std::move(detail)});
  }
  // Folds another verdict in (void wins).
  void Merge(const Verdict& other);
  // One line per violation, at most `limit` lines per kind.
  std::string Summary(size_t limit = 3) const;
};

// Voids `verdict` when any partition of `dump` was read with a low watermark above 0.
void CheckWatermarks(const TopicDump& dump, Verdict& verdict);

}  // namespace snowcar::contract
