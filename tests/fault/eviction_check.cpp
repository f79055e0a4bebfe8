// SPDX-License-Identifier: Apache-2.0
// The checker checked: against a topic the embedded broker really truncated, a source row
// must come out VOID (the broker evicted records), never as loss, and against the same topic
// before that, PASS.
#include "scenarios.h"
#include "source_rig.h"
#include "support/kafka_client.h"

namespace snowcar::fault {

std::vector<Row> EvictionCheck(const RunOptions& /*options*/) {
  Row row;
  row.scenario = "source rows, then 6 MiB more on the one partition: the broker drops the oldest";
  row.rounds = 1;
  row.bound = -1;  // no duplicates to bound: this row checks the checker
  SourceRig rig(300, {}, /*partitions=*/1);
  if (!rig.sidecar().Start()) {
    row.Fail(rig.sidecar().last_error());
    return {row};
  }
  Row before;
  rig.Settle(before);
  (void)rig.sidecar().Terminate();
  if (before.verdict() != "PASS") {
    row.Fail("before anything was dropped the checker said " + before.verdict() + ": " +
             before.extra);
    return {row};
  }
  // 60 records of 100 KiB, each a batch of its own, push the source's records out.
  auto producer = testsupport::TestProducer::Create(
      rig.broker().bootstrap(), {{"linger.ms", "0"}, {"batch.num.messages", "1"}});
  if (!producer.ok()) {
    row.Fail(producer.status().ToString());
    return {row};
  }
  std::vector<testsupport::OutMessage> filler(60);
  for (auto& m : filler) m.value = std::string(size_t{100} * 1024, 'x');
  if (auto reports = (*producer)->ProduceAll(rig.topic(), filler, 60s); !reports.ok()) {
    row.Fail("filler: " + reports.status().ToString());
    return {row};
  }
  ++row.faults;
  Row after;
  rig.Settle(after, 30s);
  row.in = after.in;
  row.out = after.out;
  if (after.verdict() != "VOID") {
    row.Fail("after the broker dropped records the checker said " + after.verdict() + " (lost " +
             std::to_string(after.lost) + "): " + after.extra);
  } else {
    row.Note("before: PASS; after: VOID, " + std::to_string(after.lost) +
             " versions unreadable and not counted as lost (" + after.extra + ")");
  }
  return {row};
}

}  // namespace snowcar::fault
