// SPDX-License-Identifier: Apache-2.0
// A direction of data flow (the source or the sink) as the sidecar process sees it.
//
// The sidecar owns the shared pieces (thread pool, state store, the one ServiceNow client per
// instance, health registry) and hands them to each enabled direction through a
// DirectionContext. A direction adds its socket routes, starts, reports metrics and stops
// gracefully; everything else about it is its own business.
//
// A module of its own below source/ and sink/ (which implement it) and the runtime (which
// owns the directions), so no arrow points up: header-only, with only forward declarations of
// the shared pieces it hands out.
#pragma once

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "snowcar/common/histogram.h"
#include "snowcar/common/status.h"

namespace snowcar::config {
class Config;
}
namespace snowcar::state {
class StateStore;
}
namespace snowcar::servicenow {
class TableClient;
}
namespace snowcar::api {
class ApiRouter;
class HealthRegistry;
}  // namespace snowcar::api

namespace snowcar::direction {

// Everything a direction borrows from the process. Every pointer outlives the direction.
struct DirectionContext {
  const config::Config* config = nullptr;
  boost::asio::io_context* io = nullptr;  // the shared pool; make strands from it
  state::StateStore* store = nullptr;
  servicenow::TableClient* client = nullptr;  // shared by source and sink (one per instance)
  api::HealthRegistry* health = nullptr;      // Report("source.incident", ok, detail), ...
};

class Direction {
 public:
  virtual ~Direction() = default;

  // "source" or "sink": used in logs, health component names and start-up errors.
  virtual std::string_view name() const = 0;

  // Adds this direction's socket routes (e.g. /v1/source/tables). Called once, before
  // Start() and before the socket accepts; handlers must be thread-safe.
  virtual Status RegisterRoutes(api::ApiRouter& router) = 0;

  // Starts the pollers or lanes on the pool and returns without waiting for network work.
  // Fails only for what makes the whole direction unusable (e.g. the Kafka client cannot be
  // created); one table or partition failing later is reported through health and the
  // socket, not here. Called from a non-pool thread with the pool running.
  virtual Status Start() = 0;

  // Graceful stop: no new work, in-flight work drained until `deadline`, a final commit.
  // Blocks the calling (non-pool) thread; the pool keeps running meanwhile. Idempotent.
  virtual void Stop(std::chrono::steady_clock::time_point deadline) = 0;

  // True once every part that was started is running (source: each table polled or failed
  // with a reported cause; sink: subscribed). /v1/ready waits for it.
  virtual bool Started() const = 0;

  // Asked before the socket resets or rewinds a table's cursor (POST
  // /v1/state/cursors/{table}/reset). A direction that would overwrite the change (a running
  // poller of that table) returns kFailedPrecondition saying what to do; the default allows.
  virtual Status BeforeStateReset(std::string_view /*table*/) { return Status::Ok(); }

  // Appends Prometheus text exposition (# HELP, # TYPE, samples) for /metrics.
  // Thread-safe; called from socket handlers.
  virtual void WriteMetrics(std::string& out) const = 0;

  // The backlog of each Kafka producer the direction owns, for the one
  // snowcar_kafka_producer_queue_length{client=...} family the sidecar writes (a family may
  // appear once per exposition, so directions report values rather than writing it).
  // Thread-safe; the default reports none.
  struct ProducerGauge {
    std::string client;                // "source", "sink-dlq", ...
    int64_t queue_length = 0;          // produced but not yet acknowledged or failed
    LatencyHistogram produce_seconds;  // KafkaProducer::Stats::produce_seconds
  };
  virtual std::vector<ProducerGauge> ProducerGauges() const { return {}; }
};

}  // namespace snowcar::direction
