// SPDX-License-Identifier: Apache-2.0
// MakeSink: settings from the config, then the direction (src/sink/sink_direction.h).
#include "snowcar/sink/sink.h"

#include <algorithm>
#include <cstdlib>

#include "sink_direction.h"
#include "snowcar/common/log.h"
#include "snowcar/config/config.h"
#include "snowcar/kafka/static_membership.h"
#include "snowcar/schema_registry/registry_options.h"

namespace snowcar::sink {

Result<std::unique_ptr<direction::Direction>> MakeSink(const direction::DirectionContext& context,
                                                       SinkSeams seams) {
  if (context.config == nullptr || context.io == nullptr || context.client == nullptr) {
    return Status::Internal("the sink needs a config, the pool and a ServiceNow client");
  }
  const config::Config& config = *context.config;
  SNOWCAR_ASSIGN_OR_RETURN(SinkSettings settings, SinkSettings::FromConfig(config));

  SinkRuntimeOptions options;
  options.kafka = config.WithPrefix("kafka.");
  options.origin = OriginSettings::From(settings);
  SNOWCAR_ASSIGN_OR_RETURN(const kafka::StaticMembership membership,
                           kafka::ResolveStaticMembership(settings.group_instance_id,
                                                          std::getenv(kafka::kPodNameVariable)));
  kafka::ApplyStaticMembership(membership, options.kafka);
  SNOWCAR_LOG(kInfo, "sink.static_membership",
              {{"group_instance_id", membership.id}, {"origin", membership.origin}});
  options.lane.initial_backoff = std::chrono::milliseconds(settings.retry_initial_backoff_ms);
  options.lane.max_backoff = std::chrono::milliseconds(
      std::max(settings.retry_max_backoff_ms, settings.retry_initial_backoff_ms));
  options.revoke_wait = std::chrono::milliseconds(settings.revoke_timeout_ms);
  SNOWCAR_ASSIGN_OR_RETURN(options.registry, schema_registry::RegistryOptionsFromConfig(config));
  // One attempt per try: a lane whose registry call fails backs off on its own timer (paused
  // partition, growing wait) instead of sleeping on a pool thread.
  options.registry.retry.max_attempts = 1;
  return std::unique_ptr<direction::Direction>(std::make_unique<SinkDirection>(
      context, std::move(settings), std::move(options), std::move(seams)));
}

}  // namespace snowcar::sink
