// SPDX-License-Identifier: Apache-2.0
// The exactly-once source's keys (KIP-618's names where Kafka Connect has them):
// src/source/exactly_once/ reads them, docs/semantics.md "Exactly-once" describes them.
#include "option_table_parts.h"
#include "value_checks.h"

namespace snowcar::config {

namespace {
constexpr std::string_view kExactlyOnce = "Exactly-once source";
}  // namespace

void AppendExactlyOnceOptions(std::vector<OptionSpec>& table) {
  using T = OptionType;
  std::vector<OptionSpec> keys = {
      {.name = "exactly.once.source.support",
       .type = T::kEnum,
       .default_value = "disabled",
       .allowed = {"disabled", "requested", "required"},
       .group = kExactlyOnce,
       .doc =
           "Exactly-once delivery of the source (KIP-618's values): each page's records and "
           "the table's new cursor and dedup entries are written in one Kafka transaction, "
           "so a consumer with `isolation.level=read_committed` sees every row version the "
           "source read once, across crashes. `requested`: on when the cluster takes "
           "transactions, at-least-once otherwise (the embedded broker). `required`: the "
           "sidecar does not start without them. Needs a transactional producer per table "
           "(its id `snowcar-source.<instance host>.<alias>`: WRITE and DESCRIBE on "
           "that TransactionalId) and the compacted topic `snow.source.exactly.once.state.topic`. "
           "A table with `deletes=audit` gets a second id, `<alias>.deletes`, for its deletes "
           "stream. Refused (exit 2) with `source.group.id` (a handoff is not transactional) "
           "and with `deletes=reconcile` or `audit+reconcile` (a sweep's DELETEs and the id "
           "set are not); a backfill reads one range (`snow.source.backfill.parallelism` is "
           "taken as 1). See docs/semantics.md."},
      {.name = "exactly.once.support",
       .alias_of = "exactly.once.source.support",
       .group = kExactlyOnce,
       .doc = "Kafka Connect's worker-level name for `exactly.once.source.support`; give one or "
              "the other."},
      {.name = "transaction.boundary",
       .type = T::kEnum,
       .default_value = "poll",
       .allowed = {"poll", "interval"},
       .group = kExactlyOnce,
       .doc = "With exactly-once: `poll` commits one transaction per page produced (at most "
              "`snow.source.batch.size` rows); `interval` keeps a transaction open across pages "
              "until `transaction.boundary.interval.ms` passed (still at most one page of rows "
              "per transaction, which the produce window bounds)."},
      {.name = "transaction.boundary.interval.ms",
       .type = T::kInt,
       .default_value = "1000",
       .min = 10,
       .max = 600000,
       .group = kExactlyOnce,
       .doc = "With `transaction.boundary=interval`: the longest a transaction stays open. A "
              "`read_committed` consumer sees a row only once its transaction commits, so this "
              "adds to the freshness. At most half of `kafka.transaction.timeout.ms` "
              "(librdkafka's default 60000), or `config check` refuses it: the broker aborts a "
              "transaction open longer than that timeout."},
      {.name = "snow.source.exactly.once.state.topic",
       .default_value = "snowcar.source.state",
       .check = CheckTopicName,
       .group = kExactlyOnce,
       .doc = "With exactly-once: the compacted topic (one partition is enough) that each "
              "transaction writes its table's cursor and dedup entries to, keyed by the "
              "table's transactional id. The local state is a cache of it: a table whose "
              "committed state there is newer restores it before its first poll. Created when "
              "absent if the cluster allows it."},
  };
  for (auto& spec : keys) table.push_back(std::move(spec));
}

}  // namespace snowcar::config
