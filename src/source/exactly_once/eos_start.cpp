// SPDX-License-Identifier: Apache-2.0
#include "eos_start.h"

#include "../deletes/audit_stream.h"
#include "eos_settings.h"
#include "snowcar/api/readiness.h"
#include "snowcar/common/log.h"
#include "snowcar/source/rows/keyset_query.h"

namespace snowcar::source::exactly_once {
namespace {

constexpr std::chrono::milliseconds kStartTimeout{30000};
constexpr std::string_view kHealth = "source.exactly_once";

// `requested` without transactions: at least once, said in the log and in health.
Result<Transactions> RunWithout(const std::string& why, api::HealthRegistry* health) {
  SNOWCAR_LOG(kWarn, "source.exactly_once.off",
              {{"requested", true}, {"reason", why}, {"delivery", "at-least-once"}});
  if (health != nullptr) {
    health->Report(std::string(kHealth), true, "off (at-least-once): requested, but " + why);
  }
  return Transactions{};
}

}  // namespace

Result<Transactions> StartTransactions(const SourceSettings& settings,
                                       const std::map<std::string, std::string>& kafka_properties,
                                       kafka::KafkaProducer& probe, state::StateStore& store,
                                       api::HealthRegistry* health) {
  if (settings.exactly_once == ExactlyOnce::kDisabled) return Transactions{};
  const bool required = settings.exactly_once == ExactlyOnce::kRequired;
  const std::string cluster = probe.ClusterId(kStartTimeout);
  if (cluster.starts_with("mockCluster")) {
    const std::string why =
        "the Kafka cluster is the embedded broker (librdkafka's mock cluster), whose "
        "transactions are not faithful";
    if (!required) return RunWithout(why, health);
    return Status::FailedPrecondition(
        "exactly.once.source.support=required, but " + why +
        "; point kafka.bootstrap.servers at Apache Kafka, or set it to requested or disabled");
  }
  Transactions out;
  // A table with deletes=audit has two pollers, the rows and the deletes stream, each with its
  // own cursor and strand: each gets a transaction of its own (the stream's id and state key
  // end in ".deletes"), so each commits its records with the cursor they reached.
  const auto start = [&](const TableSettings& polled) -> Status {
    TransactionOptions options;
    options.kafka_properties = kafka_properties;
    options.transactional_id = TransactionalId(settings, polled);
    options.state_topic = settings.exactly_once_state_topic;
    options.table_topic = polled.topic;
    options.identity = IdentityFor(settings, polled);
    options.policy = settings.dedup_policy();
    options.timeout = kStartTimeout;
    auto txn = TableTransaction::Create(std::move(options));
    Status started = txn.ok() ? (*txn)->Start(store) : txn.status();
    if (!started.ok()) return started;
    out.emplace(polled.alias, std::move(txn).value());
    return Status::Ok();
  };
  for (const TableSettings& table : settings.tables) {
    Status started = start(table);
    if (started.ok() && ReadsAudit(table.deletes)) started = start(AuditTableSettings(table));
    if (!started.ok()) {
      // The first table tells whether the cluster takes transactions at all.
      if (!required && out.empty()) return RunWithout(started.message(), health);
      return started.WithContext("exactly-once for table '" + table.alias + "'");
    }
  }
  SNOWCAR_LOG(kInfo, "source.exactly_once.on",
              {{"tables", static_cast<int64_t>(settings.tables.size())},
               {"transactional_ids", static_cast<int64_t>(out.size())},
               {"state_topic", settings.exactly_once_state_topic},
               {"boundary", settings.transaction_interval_ms > 0 ? "interval" : "poll"}});
  if (health != nullptr) health->Report(std::string(kHealth), true, "on");
  return out;
}

}  // namespace snowcar::source::exactly_once
