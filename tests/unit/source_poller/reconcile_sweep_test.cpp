// SPDX-License-Identifier: Apache-2.0
// Reconciliation's pure parts: the requests of a sweep, the page comparison, the records of a
// deletion it finds, and the state it keeps.
#include "source/deletes/reconcile_sweep.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "snowcar/source/rows/record_builder.h"

namespace snowcar::source {
namespace {

std::string IdOf(char c) { return std::string(32, c); }

TableSettings ReconciledTable() {
  TableSettings t;
  t.alias = "inc";
  t.name = "incident";
  t.topic = "servicenow.incident";
  t.base_query = "active=true^NQpriority=1";
  t.deletes = DeleteCapture::kReconcile;
  return t;
}

std::string HeaderOf(const kafka::OutRecord& r, std::string_view key) {
  const kafka::Header* h = kafka::FindHeader(r.headers, key);
  return h != nullptr && h->value ? *h->value : "";
}

TEST(ReconcileSweep, PagesReadOnlySysIdsInIdOrderAfterThePosition) {
  const TableSettings t = ReconciledTable();
  const std::string first = SweepPageTarget(t, "", 10000);
  EXPECT_NE(first.find("sysparm_fields=sys_id"), std::string::npos) << first;
  EXPECT_NE(first.find("sysparm_limit=10000"), std::string::npos) << first;
  EXPECT_NE(first.find("ORDERBYsys_id"), std::string::npos) << first;
  EXPECT_EQ(first.find("sys_id%3E"), std::string::npos) << first;
  // The position goes into every branch of the table's query.
  const std::string next = SweepPageTarget(t, IdOf('a'), 10000);
  EXPECT_NE(next.find("active%3Dtrue%5Esys_id%3E" + IdOf('a') + "%5ENQpriority%3D1%5Esys_id%3E" +
                      IdOf('a')),
            std::string::npos)
      << next;
  const std::string confirm = RowsByIdTarget(t, {IdOf('1'), IdOf('2')}, true);
  EXPECT_NE(confirm.find("sys_idIN" + IdOf('1') + "%2C" + IdOf('2')), std::string::npos) << confirm;
  EXPECT_NE(confirm.find("sysparm_fields=sys_id"), std::string::npos) << confirm;
  EXPECT_EQ(RowsByIdTarget(t, {IdOf('1')}, false).find("sysparm_fields=sys_id&"),
            std::string::npos);
}

TEST(ReconcileSweep, APageSplitsIntoGoneAndUnknown) {
  const PageDiff d = ComparePage({IdOf('1'), IdOf('3'), IdOf('4'), IdOf('7')},
                                 {IdOf('2'), IdOf('3'), IdOf('5'), IdOf('7'), IdOf('8')});
  EXPECT_EQ(d.gone, (std::vector<std::string>{IdOf('2'), IdOf('5'), IdOf('8')}));
  EXPECT_EQ(d.unknown, (std::vector<std::string>{IdOf('1'), IdOf('4')}));
  EXPECT_TRUE(ComparePage({IdOf('1')}, {IdOf('1')}).gone.empty());
  EXPECT_EQ(ComparePage({}, {IdOf('1')}).gone.size(), 1u);
}

TEST(ReconcileSweep, AFoundDeletionSaysSoAndItsTombstoneIsNoSecondDelete) {
  const TableSettings t = ReconciledTable();
  SourceSettings source;
  source.instance = "acme.service-now.com";
  source.emit_tombstones = true;
  const int64_t found = 1772366400123;
  auto records = ReconciledDeleteRecords(t, source, IdOf('a'), found, 5);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].key, IdOf('a'));
  EXPECT_EQ(records[0].timestamp_ms, found);
  EXPECT_EQ(HeaderOf(records[0], kOperationHeader), "DELETE");
  EXPECT_EQ(HeaderOf(records[0], kDeleteFoundByHeader), "reconciliation");
  auto v = boost::json::parse(*records[0].value).as_object();
  EXPECT_EQ(v.at("found_by").as_string(), "reconciliation");
  EXPECT_EQ(v.at("found_gone_at").as_string(), "2026-03-01 12:00:00");
  EXPECT_FALSE(records[1].value.has_value());
  EXPECT_EQ(HeaderOf(records[1], kOperationHeader), "TOMBSTONE");
  source.emit_envelope = true;
  source.emit_tombstones = false;
  records = ReconciledDeleteRecords(t, source, IdOf('a'), found, 5);
  ASSERT_EQ(records.size(), 1u);
  auto e = boost::json::parse(*records[0].value).as_object();
  EXPECT_EQ(e.at("op").as_string(), "d");
  EXPECT_EQ(e.at("source").at("found_by").as_string(), "reconciliation");
}

TEST(ReconcileSweep, TheStateRoundTripsAndDamageIsNamed) {
  SweepState s;
  s.seeded = true;
  s.in_sweep = true;
  s.after = IdOf('c');
  s.started_at_ms = 17;
  s.compared = 1000;
  s.deleted = 2;
  s.emitted = 1;
  s.last_started_at_ms = 5;
  s.last_duration_ms = 9;
  s.last_compared = 999;
  s.last_deleted = 3;
  s.last_emitted = 4;
  s.sweeps = 6;
  auto back = DecodeSweepState(EncodeSweepState(s));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, s);
  auto bad = DecodeSweepState("{\"after\":1}");
  EXPECT_EQ(bad.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(bad.status().message().find("after"), std::string::npos);
}

TEST(ReconcileSweep, ABaselineRestartForgetsThePositionAndKeepsTheHistory) {
  SweepState s;
  s.seeded = true;
  s.in_sweep = true;
  s.after = std::string(32, 'a');
  s.compared = 10;
  s.deleted = 2;
  s.emitted = 1;
  s.last_compared = 500;
  s.sweeps = 3;
  const SweepState b = RestartAsBaseline(s);
  EXPECT_FALSE(b.seeded);
  EXPECT_FALSE(b.in_sweep);
  EXPECT_TRUE(b.after.empty());
  EXPECT_EQ(b.compared + b.deleted + b.emitted, 0u);
  EXPECT_EQ(b.last_compared, 500u);
  EXPECT_EQ(b.sweeps, 3u);
}

TEST(ReconcileSweep, IdBeforeIsTheGreatestIdBelow) {
  EXPECT_EQ(IdBefore("0000000000000000000000000000000b"), "0000000000000000000000000000000a");
  EXPECT_EQ(IdBefore("0000000000000000000000000000000a"), "00000000000000000000000000000009");
  EXPECT_EQ(IdBefore("000000000000000000000000000001a0"), "0000000000000000000000000000019f");
  EXPECT_EQ(IdBefore("10000000000000000000000000000000"), "0fffffffffffffffffffffffffffffff");
  EXPECT_EQ(IdBefore("00000000000000000000000000000000"), "");
}

}  // namespace
}  // namespace snowcar::source
