// SPDX-License-Identifier: Apache-2.0
// A lane test rig: the lane's collaborators wired as the direction wires them, with a fake
// client (FakeTableClient or HoldingClient), a FakeProducer and recorded lane events.
#pragma once

#include <memory>
#include <mutex>
#include <vector>

#include "sink/lanes/error_path.h"
#include "sink/lanes/keyed_lane.h"
#include "sink/lanes/lane.h"
#include "sink/lanes/sink_metrics.h"
#include "sink/writer/in_flight_limit.h"
#include "sink/writer/limited_client.h"
#include "sink/writer/table_api_writer.h"
#include "sink_lanes_util.h"
#include "support/fake_producer.h"
#include "support/wait.h"

namespace snowcar::sinktest {

// The names every lane test uses, by their short names.
using servicenow::InstanceRequest;
using servicenow::Method;
using servicenow::OutcomeClass;
using testsupport::FakeProducer;
using testsupport::WaitFor;

class LaneRig {
 public:
  // `store` (may be null) is the writer's correlation cache.
  LaneRig(servicenow::TableClient& client, int max_in_flight, sink::SinkSettings settings = {},
          state::StateStore* store = nullptr)
      : settings_(Defaults(std::move(settings))),
        limit_(max_in_flight),
        limited_(client, limit_),
        writer_(limited_, store, settings_),
        producer_(std::make_shared<testsupport::FakeProducer>()),
        error_path_(settings_, producer_, metrics_) {}

  ~LaneRig() {
    for (auto& lane : lanes_) lane->Abandon();
    for (auto& lane : keyed_) lane->Abandon();
    pool_.Stop();
  }

  std::shared_ptr<sink::Lane> Lane(const std::string& topic, int32_t partition,
                                   sink::LaneOptions options = Fast()) {
    sink::LaneDeps deps;
    deps.io = &pool_.io();
    deps.settings = &settings_;
    deps.writer = &writer_;
    deps.catalog = nullptr;
    deps.decoder = decoder_;
    deps.error_path = &error_path_;
    deps.metrics = &metrics_;
    deps.options = options;
    deps.events.completed = [this](const void*, const kafka::TopicPartition& tp, int64_t next) {
      std::lock_guard lock(mu_);
      completed_.push_back({tp, next});
    };
    deps.events.pause = [this](const void*, const kafka::TopicPartition& tp, bool paused) {
      std::lock_guard lock(mu_);
      pauses_.push_back({tp, paused});
    };
    deps.events.failed = [this](const void*, const kafka::TopicPartition& tp,
                                const sink::Failure& f) {
      std::lock_guard lock(mu_);
      failed_.push_back({tp, f});
    };
    auto lane = std::make_shared<sink::Lane>(kafka::TopicPartition{topic, partition}, deps);
    lanes_.push_back(lane);
    return lane;
  }

  // A lane (as Lane()) whose producer holds every record it is given until the test acks or
  // fails it: the DLQ and error-report tests.
  std::shared_ptr<sink::Lane> HeldLane(const std::string& topic, int32_t partition) {
    producer_->set_mode(testsupport::FakeProducer::Mode::kHold);
    return Lane(topic, partition);
  }
  // A partition under key ordering: a KeyedLane whose key lanes are made like Lane() makes
  // them. Its progress (next offset, metadata) is recorded as Progress() shows.
  std::shared_ptr<sink::KeyedLane> Keyed(const std::string& topic, int32_t partition,
                                         size_t max_held = 1000,
                                         sink::LaneOptions options = Fast()) {
    sink::LaneEvents events;
    events.progress = [this](const void*, const kafka::TopicPartition&, int64_t next,
                             const std::string& metadata) {
      std::lock_guard lock(mu_);
      progress_.push_back({next, metadata});
    };
    events.pause = [this](const void*, const kafka::TopicPartition& tp, bool paused) {
      std::lock_guard lock(mu_);
      pauses_.push_back({tp, paused});
    };
    events.failed = [this](const void*, const kafka::TopicPartition& tp, const sink::Failure& f) {
      std::lock_guard lock(mu_);
      failed_.push_back({tp, f});
    };
    const kafka::TopicPartition tp{topic, partition};
    const sink::KeyedLane::Options o{.max_held = max_held,
                                     .max_active = 2 * static_cast<size_t>(limit_.max())};
    auto keyed = std::make_shared<sink::KeyedLane>(
        tp, &settings_, std::move(events), o, pool_.io().get_executor(),
        [this, tp, options](sink::LaneEvents ev) {
          return std::make_shared<sink::Lane>(tp, Deps(options, std::move(ev)));
        });
    keyed_.push_back(keyed);
    return keyed;
  }
  std::vector<std::pair<int64_t, std::string>> Progress() const {
    std::lock_guard lock(mu_);
    return progress_;
  }
  // The last offset reported to commit (-1: none yet).
  int64_t LastProgress() const {
    std::lock_guard lock(mu_);
    return progress_.empty() ? -1 : progress_.back().first;
  }

  static sink::LaneOptions Fast() {
    sink::LaneOptions o;
    o.initial_backoff = std::chrono::milliseconds(1);
    o.max_backoff = std::chrono::milliseconds(8);
    return o;
  }

  // Next offsets reported done for one partition, in report order.
  std::vector<int64_t> Completed(int32_t partition, const std::string& topic = "cmds") const {
    std::lock_guard lock(mu_);
    std::vector<int64_t> out;
    for (const auto& [tp, next] : completed_) {
      if (tp.topic == topic && tp.partition == partition) out.push_back(next);
    }
    return out;
  }
  size_t CompletedCount() const {
    std::lock_guard lock(mu_);
    return completed_.size();
  }
  std::vector<bool> Pauses(int32_t partition) const {
    std::lock_guard lock(mu_);
    std::vector<bool> out;
    for (const auto& [tp, paused] : pauses_) {
      if (tp.partition == partition) out.push_back(paused);
    }
    return out;
  }
  std::vector<sink::Failure> Failed() const {
    std::lock_guard lock(mu_);
    std::vector<sink::Failure> out;
    for (const auto& [tp, f] : failed_) out.push_back(f);
    return out;
  }

  // The decoder of framed commands the lanes made from now on use (none by default).
  void set_decoder(schema_registry::FramedDecoder* decoder) { decoder_ = decoder; }

  sink::SinkSettings& settings() { return settings_; }
  sink::InFlightLimit& limit() { return limit_; }
  sink::SinkMetrics& metrics() { return metrics_; }
  testsupport::FakeProducer& producer() { return *producer_; }

 private:
  static sink::SinkSettings Defaults(sink::SinkSettings s) {
    if (s.table.empty()) s.table = "incident";
    s.unknown_field = sink::UnknownFieldBehavior::kPassthrough;
    return s;
  }

  Pool pool_{2};
  sink::SinkSettings settings_;
  sink::InFlightLimit limit_;
  sink::LimitedClient limited_;
  sink::TableApiWriter writer_;
  sink::SinkMetrics metrics_;
  std::shared_ptr<testsupport::FakeProducer> producer_;
  sink::ErrorPath error_path_;
  schema_registry::FramedDecoder* decoder_ = nullptr;
  sink::LaneDeps Deps(sink::LaneOptions options, sink::LaneEvents events) {
    sink::LaneDeps deps;
    deps.io = &pool_.io();
    deps.settings = &settings_;
    deps.writer = &writer_;
    deps.decoder = decoder_;
    deps.error_path = &error_path_;
    deps.metrics = &metrics_;
    deps.options = options;
    deps.events = std::move(events);
    return deps;
  }

  std::vector<std::shared_ptr<sink::Lane>> lanes_;
  std::vector<std::shared_ptr<sink::KeyedLane>> keyed_;

  mutable std::mutex mu_;
  std::vector<std::pair<kafka::TopicPartition, int64_t>> completed_;
  std::vector<std::pair<kafka::TopicPartition, bool>> pauses_;
  std::vector<std::pair<kafka::TopicPartition, sink::Failure>> failed_;
  std::vector<std::pair<int64_t, std::string>> progress_;
};

// {"short_description": text}
inline boost::json::object Desc(const std::string& text) {
  return boost::json::object{{"short_description", text}};
}

}  // namespace snowcar::sinktest
