// SPDX-License-Identifier: Apache-2.0
// The exactly-once keys as SourceSettings, the combinations refused by name, the note
// `config check` prints, and the transactional id a table gets.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "settings_test_util.h"
#include "source/deletes/audit_stream.h"
#include "source/exactly_once/eos_settings.h"

namespace snowcar::source {
namespace {

using ::testing::AllOf;
using testing::BaseKeys;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::Settings;

std::map<std::string, std::string> With(std::map<std::string, std::string> extra) {
  auto keys = BaseKeys();
  for (auto& [k, v] : extra) keys[k] = v;
  return keys;
}

std::string ErrorOf(const Result<SourceSettings>& s) {
  EXPECT_FALSE(s.ok()) << "expected the source settings to be refused";
  return s.ok() ? "" : s.status().message();
}

TEST(ExactlyOnceSettings, DisabledByDefaultWithPollBoundary) {
  auto s = Settings(BaseKeys());
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->exactly_once, ExactlyOnce::kDisabled);
  EXPECT_EQ(s->transaction_interval_ms, 0);
  EXPECT_EQ(s->exactly_once_state_topic, "snowcar.source.state");
  EXPECT_EQ(s->backfill_parallelism, 4);
}

TEST(ExactlyOnceSettings, RequiredAndRequestedWithTheirBoundaries) {
  auto required = Settings(With({{"exactly.once.source.support", "required"}}));
  ASSERT_TRUE(required.ok()) << required.status().message();
  EXPECT_EQ(required->exactly_once, ExactlyOnce::kRequired);
  // One range per backfill: parallel ranges would move the cursor out of page order.
  EXPECT_EQ(required->backfill_parallelism, 1);

  auto requested = Settings(With({{"exactly.once.support", "requested"},
                                  {"transaction.boundary", "interval"},
                                  {"transaction.boundary.interval.ms", "250"},
                                  {"snow.source.exactly.once.state.topic", "eos.state"}}));
  ASSERT_TRUE(requested.ok()) << requested.status().message();
  EXPECT_EQ(requested->exactly_once, ExactlyOnce::kRequested);
  EXPECT_EQ(requested->transaction_interval_ms, 250);
  EXPECT_EQ(requested->exactly_once_state_topic, "eos.state");
  // The interval counts only with transaction.boundary=interval.
  auto poll = Settings(
      With({{"exactly.once.support", "requested"}, {"transaction.boundary.interval.ms", "250"}}));
  ASSERT_TRUE(poll.ok());
  EXPECT_EQ(poll->transaction_interval_ms, 0);
}

// The source group and the reconciling delete modes are refused by name; deletes=audit (and
// its tombstones) composes: its stream commits in a transaction of its own.
TEST(ExactlyOnceSettings, RefusesTheSourceGroupAndReconciliationByName) {
  const std::string group = ErrorOf(Settings(
      With({{"exactly.once.source.support", "required"}, {"source.group.id", "snowcar-src"}})));
  EXPECT_THAT(group, HasSubstr("exactly.once.source.support=required cannot be combined with "
                               "source.group.id"));
  for (const std::string mode : {"reconcile", "audit+reconcile"}) {
    const std::string deletes = ErrorOf(Settings(
        With({{"exactly.once.source.support", "requested"}, {"snow.table.inc.deletes", mode}})));
    EXPECT_THAT(deletes, HasSubstr("snow.table.inc.deletes=" + mode + ": the reconciliation's"));
    EXPECT_THAT(deletes, HasSubstr("not written in a transaction"));
  }
  auto audit = Settings(With({{"exactly.once.source.support", "required"},
                              {"snow.table.inc.deletes", "audit"},
                              {"snow.source.emit.tombstones", "true"}}));
  ASSERT_TRUE(audit.ok()) << audit.status().message();
  EXPECT_EQ(audit->tables[0].deletes, DeleteCapture::kAudit);
  // Without exactly-once all are fine.
  EXPECT_TRUE(Settings(With({{"source.group.id", "g"}, {"snow.table.inc.deletes", "audit"}})).ok());
  EXPECT_TRUE(Settings(With({{"snow.table.inc.deletes", "audit+reconcile"}})).ok());
}

TEST(ExactlyOnceSettings, ConfigCheckNotesWhatTheClusterAndReadersNeed) {
  auto on = config::Config::FromMap(With({{"exactly.once.source.support", "requested"}}));
  ASSERT_TRUE(on.ok()) << on.status().message();
  EXPECT_THAT(on->notes(), Contains(AllOf(HasSubstr("TransactionalIds"),
                                          HasSubstr("isolation.level=read_committed"),
                                          HasSubstr("snowcar.source.state"))));
  // A backfill reads one range: said, not done silently.
  EXPECT_THAT(on->notes(),
              Contains(HasSubstr("snow.source.backfill.parallelism=4 is taken as 1 with exactly")));
  auto one = config::Config::FromMap(With(
      {{"exactly.once.source.support", "requested"}, {"snow.source.backfill.parallelism", "1"}}));
  ASSERT_TRUE(one.ok()) << one.status().message();
  EXPECT_THAT(one->notes(), Not(Contains(HasSubstr("backfill.parallelism"))));
  auto off = config::Config::FromMap(BaseKeys());
  ASSERT_TRUE(off.ok());
  EXPECT_THAT(off->notes(), Not(Contains(HasSubstr("TransactionalIds"))));
}

TEST(ExactlyOnceSettings, TransactionalIdIsTheInstanceAndAlias) {
  auto s = Settings(With({{"exactly.once.source.support", "required"}}));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(exactly_once::TransactionalId(*s, s->tables[0]),
            "snowcar-source." + s->instance + ".inc");
  // The deletes stream of a deletes=audit table: an id of its own, so its transactions
  // neither fence nor wait for the rows'.
  EXPECT_EQ(exactly_once::TransactionalId(*s, AuditTableSettings(s->tables[0])),
            "snowcar-source." + s->instance + ".inc.deletes");
}

}  // namespace
}  // namespace snowcar::source
