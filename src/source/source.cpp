// SPDX-License-Identifier: Apache-2.0
#include "snowcar/source/source.h"

#include <unistd.h>

#include <cstdlib>

#include "snowcar/common/log.h"
#include "snowcar/config/config.h"
#include "snowcar/kafka/static_membership.h"
#include "snowcar/kafka/topic_admin.h"
#include "snowcar/schema_registry/client.h"
#include "snowcar/schema_registry/registry_options.h"
#include "source_direction.h"
#include "typed/typed_table.h"

namespace snowcar::source {
namespace {

// With schema.registry.url set: registers typed records' schemas through the registry client
// (typed_table.h). Null otherwise: records are written without framing.
Result<SchemaRegistrar> MakeRegistrar(const config::Config& config, state::StateStore* store) {
  SNOWCAR_ASSIGN_OR_RETURN(schema_registry::RegistryOptions options,
                           schema_registry::RegistryOptionsFromConfig(config));
  if (!options.enabled()) return SchemaRegistrar();
  auto created = schema_registry::SchemaRegistryClient::Create(options, store);
  if (!created.ok()) return created.status().WithContext("schema registry client");
  return MakeSchemaRegistrar(std::move(created).value(), options);
}

}  // namespace

Result<std::unique_ptr<direction::Direction>> MakeSource(const direction::DirectionContext& context,
                                                         const SourceSeams& seams) {
  if (context.config == nullptr || context.io == nullptr || context.store == nullptr ||
      context.client == nullptr) {
    return Status::Internal("the source needs config, io_context, state store and client");
  }
  const config::Config& config = *context.config;
  SNOWCAR_ASSIGN_OR_RETURN(SourceSettings settings, SourceSettings::FromConfig(config));

  std::shared_ptr<kafka::RecordProducer> producer = seams.producer;
  std::shared_ptr<kafka::KafkaProducer> own;
  if (!producer) {
    kafka::ProducerOptions options;
    options.properties = config.WithPrefix("kafka.");
    options.client_id = "snowcar-source";
    auto created = kafka::KafkaProducer::Create(options);
    if (!created.ok()) return created.status().WithContext("source Kafka producer");
    own = std::shared_ptr<kafka::KafkaProducer>(std::move(created).value());
    producer = own;
    std::vector<std::string> topics;
    for (const TableSettings& table : settings.tables) topics.push_back(table.topic);
    own->PrepareTopics(topics);
  }

  PollerOptions options;
  options.initial_backoff_ms = settings.retry_initial_backoff_ms;
  options.max_backoff_ms = settings.retry_max_backoff_ms;
  options.username = settings.username;
  SNOWCAR_ASSIGN_OR_RETURN(options.registrar, MakeRegistrar(config, context.store));
  options.echo = settings.echo;
  if (own && settings.topic_creation.active()) {
    // topic.creation: each table's topic is created (if missing) before its first produce.
    auto admin = kafka::TopicAdmin::Create(config.WithPrefix("kafka."));
    if (!admin.ok()) return admin.status().WithContext("topic creation");
    options.topics =
        std::make_shared<TopicPreparer>(settings.topic_creation, std::move(admin).value());
  }

  OwnershipOptions ownership;
  ownership.group_id = settings.group_id;
  if (!ownership.group_id.empty()) {
    ownership.replica_id = settings.group_replica_id;
    if (ownership.replica_id.empty()) {
      char host[256] = {};
      if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
      ownership.replica_id = std::string(host[0] != '\0' ? host : "replica") + "-" +
                             std::to_string(static_cast<int64_t>(getpid()));
    }
    ownership.snapshot_interval_ms = settings.group_snapshot_interval_ms;
    ownership.kafka_properties = config.WithPrefix("kafka.");
    SNOWCAR_ASSIGN_OR_RETURN(const kafka::StaticMembership membership,
                             kafka::ResolveStaticMembership(settings.group_instance_id,
                                                            std::getenv(kafka::kPodNameVariable)));
    kafka::ApplyStaticMembership(membership, ownership.kafka_properties);
    SNOWCAR_LOG(kInfo, "source.group.static_membership",
                {{"group_instance_id", membership.id}, {"origin", membership.origin}});
  }
  // Exactly-once: each table's transaction fences its earlier owners and restores the state
  // they committed, before any poller loads it (exactly_once/eos_start.h).
  exactly_once::Transactions transactions;
  if (own) {
    SNOWCAR_ASSIGN_OR_RETURN(
        transactions, exactly_once::StartTransactions(settings, config.WithPrefix("kafka."), *own,
                                                      *context.store, context.health));
  }
  return std::unique_ptr<direction::Direction>(std::make_unique<SourceDirection>(
      context, std::move(settings), std::move(producer), std::move(own), options,
      std::move(ownership), std::move(transactions)));
}

}  // namespace snowcar::source
