// SPDX-License-Identifier: Apache-2.0
#include "sink_direction.h"

#include <cstdlib>

#include "lanes/keyed_lane.h"
#include "snowcar/api/metric_names.h"
#include "snowcar/api/prometheus.h"
#include "snowcar/api/readiness.h"
#include "snowcar/common/log.h"

namespace snowcar::sink {

SinkDirection::SinkDirection(const direction::DirectionContext& context, SinkSettings settings,
                             SinkRuntimeOptions options, SinkSeams seams)
    : context_(context),
      settings_(std::move(settings)),
      options_(std::move(options)),
      seams_(std::move(seams)),
      limit_(settings_.max_in_flight),
      client_(*context.client, limit_),
      catalog_(client_),
      writer_(client_, context.store, settings_),
      origins_(context.store, options_.origin, settings_) {
  // The source of this process asks the store whether the sink wrote a version: one it wrote
  // longer ago than snow.sink.origin.window.seconds is forgotten at once, not only when the
  // sink next records a version and prunes.
  if (context.store != nullptr) {
    context.store->SetOriginWindow(options_.origin.policy.window_seconds, nullptr);
  }
}

SinkDirection::~SinkDirection() { Stop(std::chrono::steady_clock::now()); }

std::shared_ptr<PartitionLane> SinkDirection::MakeLane(const kafka::TopicPartition& tp,
                                                       LaneEvents events) {
  if (settings_.ordering == Ordering::kKey) {
    // A lane per key, each with the partition's dependencies; their queues never pause the
    // partition (the keyed lane's cap does), so only the cap bounds them.
    // Twice max.in.flight keys at work keep the in-flight limit busy while the rest wait in
    // offset order; more would only queue for permits ahead of the commit's record.
    const KeyedLane::Options o{.max_held = static_cast<size_t>(settings_.max_held_records),
                               .max_active = 2 * static_cast<size_t>(settings_.max_in_flight),
                               .decoder = decoder_.get()};
    return std::make_shared<KeyedLane>(
        tp, &settings_, std::move(events), o, context_.io->get_executor(),
        [this, tp](LaneEvents key_events) { return MakeKeyLane(tp, std::move(key_events)); });
  }
  return MakeKeyLane(tp, std::move(events));
}

std::shared_ptr<Lane> SinkDirection::MakeKeyLane(const kafka::TopicPartition& tp,
                                                 LaneEvents events) {
  LaneDeps deps;
  deps.io = context_.io;
  deps.settings = &settings_;
  deps.writer = &writer_;
  deps.catalog = &catalog_;
  deps.error_path = error_path_.get();
  deps.metrics = &metrics_;
  deps.gate = context_.client->gate();
  deps.decoder = decoder_.get();
  deps.origins = &origins_;
  deps.events = std::move(events);
  deps.options = options_.lane;
  return std::make_shared<Lane>(tp, std::move(deps));
}

Status SinkDirection::Start() {
  if (ErrorPath::NeedsProducer(settings_)) {
    if (seams_.producer != nullptr) {
      producer_ = seams_.producer;
    } else {
      kafka::ProducerOptions po;
      po.properties = options_.kafka;
      po.client_id = "snowcar-sink";
      auto created = kafka::KafkaProducer::Create(po);
      if (!created.ok()) return created.status().WithContext("sink DLQ/reporter producer");
      owned_producer_ = created->get();
      metrics_producer_.store(owned_producer_);
      producer_ = std::shared_ptr<kafka::RecordProducer>(std::move(created).value());
    }
  }
  error_path_ = std::make_unique<ErrorPath>(settings_, producer_, metrics_);
  if (options_.registry.enabled()) {
    auto created = schema_registry::SchemaRegistryClient::Create(options_.registry, context_.store);
    if (!created.ok()) return created.status().WithContext("sink schema registry client");
    registry_ = std::move(created).value();
    decoder_ = std::make_unique<schema_registry::FramedDecoder>(*registry_);
  }

  ConsumerLoopOptions lo;
  lo.properties = options_.kafka;
  lo.topics = settings_.topics;
  lo.revoke_wait = options_.revoke_wait;
  lo.commit_metadata = settings_.ordering == Ordering::kKey;
  if (auto it = options_.kafka.find("auto.commit.interval.ms"); it != options_.kafka.end()) {
    const long long ms = std::atoll(it->second.c_str());
    if (ms > 0) lo.commit_interval = std::chrono::milliseconds(ms);
  }
  loop_ = std::make_unique<ConsumerLoop>(
      std::move(lo),
      [this](const kafka::TopicPartition& tp, LaneEvents events) {
        return MakeLane(tp, std::move(events));
      },
      context_.health);
  SNOWCAR_RETURN_IF_ERROR(loop_->Start());
  if (context_.health != nullptr) context_.health->Report("sink", true, "subscribed");
  if (NeedsRightsProbe(settings_)) {
    rights_ = RightsProbe::Start(client_, context_.io->get_executor(), context_.health, settings_,
                                 options_.rights);
  }
  return Status::Ok();
}

void SinkDirection::Stop(std::chrono::steady_clock::time_point deadline) {
  if (stopped_.exchange(true)) return;
  if (rights_) rights_->Stop();
  if (loop_) loop_->Stop(deadline);
  if (producer_ != nullptr) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    Status flushed = producer_->Flush(std::max(left, std::chrono::milliseconds(100)));
    if (!flushed.ok()) {
      SNOWCAR_LOG(kWarn, "sink.producer.flush_failed", {{"error", flushed.message()}});
    }
    if (owned_producer_ != nullptr) owned_producer_->Close(std::chrono::milliseconds(0));
  }
}

bool SinkDirection::Started() const { return loop_ != nullptr && loop_->subscribed(); }

namespace {

// The partition's high watermark minus the next offset the sink has to complete: what a
// consumer-group lag tool shows, but from the sink's own progress, so it falls as records
// are applied rather than at the next commit.
int64_t ConsumerLag(const LaneStatus& s) {
  // Before anything completed: the committed offset, else the record the lane holds (a lane
  // stopped at its first record still shows what waits behind it).
  int64_t next = s.stored_offset >= 0 ? s.stored_offset : s.committed_offset;
  if (next < 0 && s.in_flight_offset.has_value()) next = *s.in_flight_offset;
  if (s.high_watermark < 0 || next < 0) return -1;
  return std::max<int64_t>(0, s.high_watermark - next);
}

}  // namespace

void SinkDirection::WriteMetrics(std::string& out) const {
  std::vector<SinkMetrics::LaneGauge> gauges;
  if (loop_) {
    for (const auto& s : loop_->lanes().Snapshot()) {
      gauges.push_back({.topic = s.tp.topic,
                        .partition = s.tp.partition,
                        .failed = s.state == LaneState::kFailed,
                        .in_flight = s.in_flight_offset.has_value(),
                        .queued = static_cast<int64_t>(s.queue_depth),
                        .lag = ConsumerLag(s)});
    }
  }
  metrics_.Write(out, limit_.in_flight(), limit_.max_observed(), gauges);
  api::WriteMetricFamily(out, api::metric::kSinkOriginsRecorded, "counter",
                         "Row versions the sink wrote and recorded for the source to recognise");
  api::WriteSample(out, api::metric::kSinkOriginsRecorded, "", origins_.recorded());
  api::WriteMetricFamily(out, api::metric::kSinkOriginErrors, "counter",
                         "Written row versions whose recording failed (emitted unmarked)");
  api::WriteSample(out, api::metric::kSinkOriginErrors, "", origins_.errors());
}

std::vector<direction::Direction::ProducerGauge> SinkDirection::ProducerGauges() const {
  const kafka::KafkaProducer* producer = metrics_producer_.load();
  if (producer == nullptr) return {};
  const kafka::KafkaProducer::Stats st = producer->stats();
  return {{.client = "sink",
           .queue_length = st.queued + st.in_flight,
           .produce_seconds = st.produce_seconds}};
}

}  // namespace snowcar::sink
