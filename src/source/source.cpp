#include "snowcar/source/source.h"

#include "snowcar/config/config.h"
#include "source_direction.h"

namespace snowcar::source {

Result<std::unique_ptr<runtime::Direction>> MakeSource(const runtime::DirectionContext& context,
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
  return std::unique_ptr<runtime::Direction>(std::make_unique<SourceDirection>(
      context, std::move(settings), std::move(producer), std::move(own), options));
}

}  // namespace snowcar::source
