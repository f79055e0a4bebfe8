// SPDX-License-Identifier: Apache-2.0
// Kafka misbehaving under a running source: the broker down and back, slow answers, and
// Produce requests failing. The writer keeps the instance busy during each fault; after it
// the driver waits for every row version to be in the topic.
#include <functional>

#include "scenarios.h"
#include "source_rig.h"

namespace snowcar::fault {
namespace {

struct BrokerFault {
  std::string name;
  std::vector<std::string> inject;  // control lines sent at the start
  std::chrono::milliseconds hold;   // how long the fault lasts
  std::vector<std::string> heal;    // control lines that end it
  int faults;                       // faults injected (for the table)
};

}  // namespace

std::vector<Row> BrokerFaults(const RunOptions& options) {
  const int repeat = options.long_run ? 5 : 1;
  const std::vector<BrokerFault> plan = {
      {"broker down 3 s, then up", {"down 1"}, 3000ms, {"up 1"}, 1},
      {"broker RTT spike 800 ms for 3 s", {"rtt 1 800"}, 3000ms, {"rtt 1 0"}, 1},
      {"Produce errors: 6 x NOT_ENOUGH_REPLICAS, 2 x REQUEST_TIMED_OUT",
       {"errors Produce NOT_ENOUGH_REPLICAS 6", "errors Produce REQUEST_TIMED_OUT 2"},
       1500ms,
       {"clear Produce"},
       8},
      {"Produce connection drops (_TRANSPORT x 3)",
       {"errors Produce _TRANSPORT 3"},
       1500ms,
       {"clear Produce"},
       3},
  };
  std::vector<Row> rows;
  SourceRig rig(300);
  if (!rig.sidecar().Start()) {
    Row row;
    row.scenario = "start";
    row.Fail(rig.sidecar().last_error());
    return {row};
  }
  int64_t dups_before = 0;
  int64_t copies_before = 0;
  for (const auto& fault : plan) {
    Row row;
    row.scenario = fault.name;
    row.rounds = repeat;
    // The idempotent producer never produces a version twice for these faults (no delivery
    // fails, so the source re-reads nothing), and Apache Kafka writes a retried batch once.
    // The embedded broker cannot promise the second part: a batch it appended whose answer
    // was lost with a dropped connection it appends again on the client's resend (librdkafka
    // 2.0.2's mock checks sequence numbers for transactional producers only; pinned by
    // FaultInjection.AnAnswerLostWithADroppedConnectionIsWrittenTwiceByTheMock). Such copies
    // carry the snow.extracted_at of their first copy; they are counted apart, and the bound
    // holds the versions the source produced again.
    row.bound = 0;
    for (int r = 0; r < repeat && !row.failed_check; ++r) {
      if (Status s = rig.StartWriter(); !s.ok()) row.Fail(s.ToString());
      for (const auto& line : fault.inject) {
        if (Status s = rig.broker().Command(line); !s.ok()) row.Fail(s.ToString());
      }
      row.faults += fault.faults;
      PauseForFault(fault.hold);
      for (const auto& line : fault.heal) {
        if (Status s = rig.broker().Command(line); !s.ok()) row.Fail(s.ToString());
      }
      (void)rig.StopWriter();
      rig.Settle(row);
    }
    const int64_t total = row.duplicated - rig.broker_copies();
    row.duplicated = total - dups_before;
    dups_before = total;
    const int64_t copies = rig.broker_copies() - copies_before;
    copies_before = rig.broker_copies();
    row.Note(std::to_string(copies) +
             " more copies the broker wrote twice from one produce (mock, not counted)");
    row.Note("state " +
             std::string(rig.Table().contains("state") ? rig.Table().at("state").as_string().c_str()
                                                       : "?") +
             " after healing");
    rows.push_back(row);
  }
  const auto status = rig.sidecar().Terminate();
  if (!status.ok()) rows.back().Fail("final SIGTERM: " + status.ToString());
  return rows;
}

}  // namespace snowcar::fault
