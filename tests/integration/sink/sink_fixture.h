// SPDX-License-Identifier: Apache-2.0
// The sink's integration fixture: an in-process emulator (fresh per test), the suite's
// embedded broker, and `snowcar run` children with the sink enabled, queried over their
// Unix sockets.
#pragma once

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "snowcar/testbed/emulator/emulator_server.h"
#include "support/broker_fixture.h"
#include "support/child_process.h"
#include "support/kafka_client.h"
#include "support/temp_dir.h"

namespace snowcar::sinkit {

// The table every test writes: a generic emulator table, so correlation_id and any field a
// command names exist (known tables drop unknown fields, as an instance does).
inline constexpr char kTable[] = "u_ticket";

struct SinkProcess {
  std::unique_ptr<testsupport::ChildProcess> child;
  std::string socket;
  std::string state_dir;
};

class SinkIntegrationTest : public testsupport::SharedBrokerTest<SinkIntegrationTest> {
 protected:
  void SetUp() override;
  void TearDown() override;

  // A fresh topic with `partitions` partitions, and a fresh consumer group name.
  std::string NewTopic(int partitions);
  std::string NewGroup() const;

  // Starts `snowcar run` consuming `topic` in `group`; `sets` adds or overrides keys
  // ("key=value"; a "key.file=path" replaces a default "key"). `state_name` picks the state dir
  // (reuse it to restart "the same" sink). Waits until the socket answers /v1/ready.
  SinkProcess StartSink(const std::string& topic, const std::string& group,
                        const std::vector<std::string>& sets = {},
                        const std::string& state_name = "sink");
  // Waits until the sink holds `partitions` lanes.
  void WaitAssigned(const SinkProcess& sink, size_t partitions,
                    std::chrono::milliseconds timeout = std::chrono::seconds(30));
  // SIGTERM and wait for exit 0.
  void StopSink(SinkProcess& sink);

  boost::json::object Partitions(const SinkProcess& sink);
  // The end of the sink's stderr, for failure messages.
  static std::string Tail(const SinkProcess& sink);
  // The value of a metric sample (the full sample name with labels), or -1.
  int64_t Metric(const SinkProcess& sink, const std::string& sample);
  // True once the sink applied `n` commands of `operation` ("patch", "create"...) within 60 s.
  bool WaitApplied(const SinkProcess& sink, const std::string& operation, size_t n);

  // Produces and waits for the acknowledgements.
  void Produce(const std::string& topic, const std::vector<testsupport::OutMessage>& messages);

  // Committed offsets of `group` for partitions 0..n-1 (-1 when none).
  std::vector<int64_t> Committed(const std::string& group, const std::string& topic, int n);
  // Commits `offsets` (partition i -> offsets[i], skipped when < 0) for a group with no
  // members.
  void CommitFor(const std::string& group, const std::string& topic,
                 const std::vector<int64_t>& offsets);

  // Commits for `to_group` (no members) what `from_group` has committed for partitions
  // 0..n-1 of `topic`, offsets and their metadata.
  void CopyCommitted(const std::string& from_group, const std::string& to_group,
                     const std::string& topic, int n);

  // Reads `count` records of partition 0 of `topic` from the beginning, without joining a
  // group (assign, not subscribe: no rebalance wait).
  std::vector<testsupport::Message> ReadTopic(const std::string& topic, size_t count);

  // Rows of the table as field -> value maps, in insertion order.
  std::vector<std::map<std::string, std::string>> Rows();
  std::optional<std::map<std::string, std::string>> Row(const std::string& sys_id);
  // Inserts a row with this sys_id and fields.
  void Seed(const std::string& sys_id, std::vector<std::pair<std::string, std::string>> fields);
  // Journal entries of the table's API (not control calls), in arrival order.
  std::vector<emulator::JournalEntry> Journal();
  // The journal as text lines, for failure messages.
  std::string JournalText();

  emulator::EmulatorServer& emulator() { return *emulator_; }
  testsupport::TempDir& dir() { return dir_; }

 private:
  testsupport::TempDir dir_{"sink-it"};
  std::unique_ptr<emulator::EmulatorServer> emulator_;
  std::unique_ptr<testsupport::TestProducer> producer_;
};

// 32 hex digits made from `n` (distinct per n).
std::string SysId(int n);
// A command message: key (nullopt for none), JSON value (nullopt: null value), headers.
testsupport::OutMessage Command(std::optional<std::string> key,
                                std::optional<boost::json::object> value, int32_t partition,
                                testsupport::Headers headers = {});

// A command body that sets only short_description.
inline boost::json::object Desc(const std::string& text) {
  return boost::json::object{{"short_description", text}};
}

}  // namespace snowcar::sinkit
