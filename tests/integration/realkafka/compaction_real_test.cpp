// SPDX-License-Identifier: Apache-2.0
// Deletes on a compacted table topic, cleaned by Apache Kafka's log cleaner: what the
// embedded broker cannot show, since librdkafka's mock cluster never compacts.
//
// Kafka behaviour proven: on a `cleanup.policy=compact` topic, the cleaner keeps only the
// latest record of each key, and a key whose latest record is a tombstone (null value)
// disappears altogether once `delete.retention.ms` has passed after the first cleaning. So
// the source's DELETE record plus tombstone (`snow.source.emit.tombstones=true`) removes a
// deleted row's key from the topic, and every row that still exists stays, at its latest
// version.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "real_kafka.h"
#include "snowcar/testbed/emulator/data_gen.h"
#include "support/wait.h"

namespace snowcar::realkafka {
namespace {

using namespace std::chrono_literals;

constexpr size_t kRows = 8;

class CompactionRealKafkaTest : public RealKafkaTest {
 protected:
  // Deletes half the rows and waits for the cleaner to drop their keys. `formats` are the
  // sidecar's format lines; `key_of` turns a sys_id into the key as kcat prints it.
  void DeleteAndCompact(const std::vector<std::string>& formats,
                        const std::function<std::string(const std::string&)>& key_of);
};

TEST_F(CompactionRealKafkaTest, DeletedRowsVanishFromACompactedTopicAndTheRestRemain) {
  DeleteAndCompact({}, [](const std::string& id) { return id; });
}

// A typed key (key.format=json_typed: the sys_id as a JSON string) with typed values: the
// DELETE and its tombstone carry the UPSERTs' key bytes, so the cleaner drops the key too.
TEST_F(CompactionRealKafkaTest, ATypedKeysTombstoneCompactsItAway) {
  DeleteAndCompact({"value.format=json_typed", "key.format=json_typed"},
                   [](const std::string& id) { return "\"" + id + "\""; });
}

void CompactionRealKafkaTest::DeleteAndCompact(
    const std::vector<std::string>& formats,
    const std::function<std::string(const std::string&)>& key_of) {
  ASSERT_TRUE(emulator::Populate(emu_.store(), "incident", {.rows = kRows}).ok());
  const std::string topic = testsupport::UniqueName("compacted.incident");
  // Compaction within seconds: a segment rolls after 1 s, any dirt makes the log cleanable,
  // and a tombstone is dropped 100 ms after the cleaning that first kept it.
  ASSERT_TRUE(testsupport::CreateTopic(kafka_.Admin(), topic, 1,
                                       {{"cleanup.policy", "compact"},
                                        {"segment.ms", "1000"},
                                        {"min.cleanable.dirty.ratio", "0.01"},
                                        {"delete.retention.ms", "100"}})
                  .ok());
  auto lines = BaseConfig("c");
  lines.insert(lines.end(),
               {"kafka.bootstrap.servers=" + kafka_.plaintext, "sink.enabled=false",
                "source.enabled=true", "snow.tables=incident", "snow.table.incident.name=incident",
                "snow.table.incident.topic=" + topic, "snow.table.incident.deletes=audit",
                "snow.source.emit.tombstones=true", "snow.source.poll.interval.ms=200"});
  lines.insert(lines.end(), formats.begin(), formats.end());
  auto child = StartSidecar("c", lines);
  ASSERT_NE(child, nullptr);
  ASSERT_TRUE(
      testsupport::WaitFor([&] { return ReadLog(kafka_.plaintext, topic).size() == kRows; }, 60s))
      << child->Stderr();

  auto rows = emu_.store().Snapshot("incident");
  ASSERT_TRUE(rows.ok());
  std::set<std::string> deleted, kept;
  for (size_t i = 0; i < rows->size(); ++i) {
    const std::string id{(*rows)[i]->sys_id()};
    (i % 2 == 0 ? deleted : kept).insert(id);
  }
  for (const auto& id : deleted) ASSERT_TRUE(emu_.store().Delete("incident", id).ok());
  // Every deleted key ends in its DELETE record and tombstone.
  ASSERT_TRUE(testsupport::WaitFor(
      [&] {
        const auto log = ReadLog(kafka_.plaintext, topic);
        for (const auto& id : deleted) {
          auto it = log.find(key_of(id));
          if (it == log.end() || it->second.back() != "NULL") return false;
        }
        return true;
      },
      60s))
      << child->Stderr();

  // The cleaner needs new records to roll the segment holding the tombstones and to find
  // the log dirty again after the first cleaning; a kept row updated now and then gives it
  // them, as a live table would. Until every deleted key is gone from the log.
  const std::string touched = *kept.begin();
  int version = 0;
  std::map<std::string, std::vector<std::string>> log;
  const bool cleaned = testsupport::WaitFor(
      [&] {
        emulator::Fields f{{"short_description", "touch " + std::to_string(++version)}};
        (void)emu_.store().Update("incident", touched, f);
        log = ReadLog(kafka_.plaintext, topic);
        for (const auto& id : deleted) {
          if (log.contains(key_of(id))) return false;
        }
        return true;
      },
      90s, 1s);
  ASSERT_TRUE(cleaned) << "deleted keys still in the log after 90 s";
  // Every kept row is still there, with exactly one record (its latest version) except the
  // one being touched, whose newest records may still sit in the active segment.
  for (const auto& id : kept) {
    ASSERT_TRUE(log.contains(key_of(id))) << id;
    EXPECT_EQ(log.at(key_of(id)).back(), "value") << id;
    if (id != touched) {
      EXPECT_EQ(log.at(key_of(id)).size(), 1U) << id;
    }
  }
  ASSERT_TRUE(child->Signal(SIGTERM).ok());
  EXPECT_TRUE(child->Wait(60s).ok());
}

}  // namespace
}  // namespace snowcar::realkafka
