// SPDX-License-Identifier: Apache-2.0
#include "eos_start.h"

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
  for (const TableSettings& table : settings.tables) {
    TransactionOptions options;
    options.kafka_properties = kafka_properties;
    options.transactional_id = TransactionalId(settings, table);
    options.state_topic = settings.exactly_once_state_topic;
    options.table_topic = table.topic;
    options.identity = IdentityFor(settings, table);
    options.policy = settings.dedup_policy();
    options.timeout = kStartTimeout;
    auto txn = TableTransaction::Create(std::move(options));
    Status started = txn.ok() ? (*txn)->Start(store) : txn.status();
    if (!started.ok()) {
      // The first table tells whether the cluster takes transactions at all.
      if (!required && out.empty()) return RunWithout(started.message(), health);
      return started.WithContext("exactly-once for table '" + table.alias + "'");
    }
    out.emplace(table.alias, std::move(txn).value());
  }
  SNOWCAR_LOG(kInfo, "source.exactly_once.on",
              {{"tables", static_cast<int64_t>(out.size())},
               {"state_topic", settings.exactly_once_state_topic},
               {"boundary", settings.transaction_interval_ms > 0 ? "interval" : "poll"}});
  if (health != nullptr) health->Report(std::string(kHealth), true, "on");
  return out;
}

}  // namespace snowcar::source::exactly_once
