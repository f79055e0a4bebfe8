// SPDX-License-Identifier: Apache-2.0
#include "snowcar/source/source.h"

#include <unistd.h>

#include <cstdlib>

#include "snowcar/common/log.h"
#include "snowcar/config/config.h"
#include "snowcar/kafka/static_membership.h"
#include "source_direction.h"

namespace snowcar::source {

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
  }

  PollerOptions options;
  options.initial_backoff_ms = config.GetInt("snow.retry.initial.backoff.ms");
  options.max_backoff_ms = config.GetInt("snow.retry.max.backoff.ms");
  options.username = config.GetString("snow.auth.username");
  options.echo = EchoModeFromConfig(config);

  OwnershipOptions ownership;
  ownership.group_id = config.GetString("source.group.id");
  if (!ownership.group_id.empty()) {
    ownership.replica_id = config.GetString("source.group.replica.id");
    if (ownership.replica_id.empty()) {
      char host[256] = {};
      if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
      ownership.replica_id = std::string(host[0] != '\0' ? host : "replica") + "-" +
                             std::to_string(static_cast<int64_t>(getpid()));
    }
    ownership.snapshot_interval_ms = config.GetInt("source.group.snapshot.interval.ms");
    ownership.kafka_properties = config.WithPrefix("kafka.");
    SNOWCAR_ASSIGN_OR_RETURN(
        const kafka::StaticMembership membership,
        kafka::ResolveStaticMembership(config.GetString("kafka.group.instance.id"),
                                       std::getenv(kafka::kPodNameVariable)));
    kafka::ApplyStaticMembership(membership, ownership.kafka_properties);
    SNOWCAR_LOG(kInfo, "source.group.static_membership",
                {{"group_instance_id", membership.id}, {"origin", membership.origin}});
  }
  return std::unique_ptr<direction::Direction>(
      std::make_unique<SourceDirection>(context, std::move(settings), std::move(producer),
                                        std::move(own), options, std::move(ownership)));
}

}  // namespace snowcar::source
