// SPDX-License-Identifier: Apache-2.0
// The source as a direction::Direction: one TablePoller per configured table on the shared
// pool, the socket views (/v1/source/tables[/{alias}]), /metrics and the graceful stop.
// With source.group.id set, a TableOwnership decides which tables this replica polls and
// creates their pollers as the group assigns them (table_ownership.h).
#pragma once

#include <boost/json/object.hpp>
#include <memory>
#include <string>
#include <vector>

#include "exactly_once/eos_start.h"
#include "ownership/table_ownership.h"
#include "poller/table_poller.h"
#include "snowcar/direction/direction.h"
#include "snowcar/kafka/producer.h"
#include "snowcar/source/source_settings.h"

namespace snowcar::source {

class SourceDirection final : public direction::Direction {
 public:
  // `own_producer` is the KafkaProducer behind `producer` when the direction built it (it is
  // closed at Stop); null when a test handed in its own.
  SourceDirection(const direction::DirectionContext& context, SourceSettings settings,
                  std::shared_ptr<kafka::RecordProducer> producer,
                  std::shared_ptr<kafka::KafkaProducer> own_producer, const PollerOptions& options,
                  OwnershipOptions ownership = {}, exactly_once::Transactions transactions = {});
  ~SourceDirection() override;

  std::string_view name() const override { return "source"; }
  Status RegisterRoutes(api::ApiRouter& router) override;
  Status Start() override;
  void Stop(std::chrono::steady_clock::time_point deadline) override;
  bool Started() const override;
  void WriteMetrics(std::string& out) const override;
  std::vector<ProducerGauge> ProducerGauges() const override;
  // A running poller would write its own cursor and dedup entries back at its next commit,
  // undoing the reset: only a failed table (or a stopped sidecar) may be reset.
  Status BeforeStateReset(std::string_view table) override;

  // The socket view of one table (also used by tests).
  boost::json::object TableJson(const TablePoller& poller) const;
  const std::vector<std::shared_ptr<TablePoller>>& pollers() const { return pollers_; }
  // The pollers running in this replica: every table's, or the owned ones' in a group.
  std::vector<std::shared_ptr<TablePoller>> CurrentPollers() const;

 private:
  std::shared_ptr<TablePoller> MakePoller(const TableSettings& table);

  direction::DirectionContext context_;
  SourceSettings settings_;
  std::shared_ptr<kafka::RecordProducer> producer_;
  std::shared_ptr<kafka::KafkaProducer> own_producer_;
  ProcessOnce once_;
  PollerOptions poller_options_;
  std::vector<std::shared_ptr<TablePoller>> pollers_;  // empty in a source group
  exactly_once::Transactions transactions_;            // by alias; empty: at-least-once
  std::unique_ptr<TableOwnership> ownership_;          // null unless source.group.id is set
  bool started_ = false;
  bool stopped_ = false;
};

}  // namespace snowcar::source
