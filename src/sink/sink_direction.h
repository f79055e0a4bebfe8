// SPDX-License-Identifier: Apache-2.0
// The sink as a direction::Direction: wires the pieces (in-flight limit, writer, field
// catalog, error path, lanes, consumer loop) and exposes them to the socket and /metrics.
#pragma once

#include <atomic>
#include <memory>

#include "consumer_loop.h"
#include "lanes/error_path.h"
#include "lanes/sink_metrics.h"
#include "origin/origin_recorder.h"
#include "snowcar/direction/direction.h"
#include "snowcar/schema_registry/client.h"
#include "snowcar/schema_registry/framed_decoder.h"
#include "snowcar/sink/sink.h"
#include "snowcar/sink/sink_settings.h"
#include "writer/field_catalog.h"
#include "writer/in_flight_limit.h"
#include "writer/limited_client.h"
#include "writer/rights_probe.h"
#include "writer/table_api_writer.h"

namespace snowcar::sink {

// What MakeSink reads besides SinkSettings.
struct SinkRuntimeOptions {
  std::map<std::string, std::string> kafka;  // the kafka.* keys, prefix stripped
  LaneOptions lane;
  std::chrono::milliseconds revoke_wait{60000};  // snow.sink.revoke.timeout.ms
  // schema.registry.*: decodes framed commands when its url is set.
  schema_registry::RegistryOptions registry;
  OriginSettings origin;
  RightsProbe::Options rights;  // the start-up probe of sys_db_object / sys_dictionary
};

class SinkDirection final : public direction::Direction {
 public:
  SinkDirection(const direction::DirectionContext& context, SinkSettings settings,
                SinkRuntimeOptions options, SinkSeams seams);
  ~SinkDirection() override;

  std::string_view name() const override { return "sink"; }
  Status RegisterRoutes(api::ApiRouter& router) override;
  Status Start() override;
  void Stop(std::chrono::steady_clock::time_point deadline) override;
  bool Started() const override;
  void WriteMetrics(std::string& out) const override;
  std::vector<ProducerGauge> ProducerGauges() const override;

 private:
  // A Lane, or under key ordering a KeyedLane making a Lane per key (MakeKeyLane).
  std::shared_ptr<PartitionLane> MakeLane(const kafka::TopicPartition& tp, LaneEvents events);
  std::shared_ptr<Lane> MakeKeyLane(const kafka::TopicPartition& tp, LaneEvents events);

  direction::DirectionContext context_;
  const SinkSettings settings_;
  const SinkRuntimeOptions options_;
  SinkSeams seams_;

  SinkMetrics metrics_;
  InFlightLimit limit_;
  LimitedClient client_;
  FieldCatalog catalog_;
  TableApiWriter writer_;
  OriginRecorder origins_;
  std::shared_ptr<kafka::RecordProducer> producer_;
  kafka::KafkaProducer* owned_producer_ = nullptr;  // when we created it (to close it)
  // The same, for /metrics: set once in Start while the socket may already answer.
  std::atomic<const kafka::KafkaProducer*> metrics_producer_{nullptr};
  std::unique_ptr<ErrorPath> error_path_;
  std::unique_ptr<schema_registry::SchemaRegistryClient> registry_;  // null without a url
  std::unique_ptr<schema_registry::FramedDecoder> decoder_;
  std::unique_ptr<ConsumerLoop> loop_;
  std::shared_ptr<RightsProbe> rights_;  // null when the sink reads no metadata
  std::atomic<bool> stopped_{false};
};

}  // namespace snowcar::sink
