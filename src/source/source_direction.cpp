// SPDX-License-Identifier: Apache-2.0
#include "source_direction.h"

#include <future>

#include "snowcar/common/log.h"

namespace snowcar::source {

SourceDirection::SourceDirection(const direction::DirectionContext& context,
                                 SourceSettings settings,
                                 std::shared_ptr<kafka::RecordProducer> producer,
                                 std::shared_ptr<kafka::KafkaProducer> own_producer,
                                 const PollerOptions& options, OwnershipOptions ownership,
                                 exactly_once::Transactions transactions)
    : context_(context),
      settings_(std::move(settings)),
      producer_(std::move(producer)),
      own_producer_(std::move(own_producer)),
      poller_options_(options),
      transactions_(std::move(transactions)) {
  if (!ownership.group_id.empty()) {
    ownership_ = std::make_unique<TableOwnership>(
        std::move(ownership), settings_, *context_.store, producer_, context_.io->get_executor(),
        context_.health, [this](const TableSettings& table) { return MakePoller(table); });
    return;
  }
  for (const TableSettings& table : settings_.tables) pollers_.push_back(MakePoller(table));
}

std::shared_ptr<TablePoller> SourceDirection::MakePoller(const TableSettings& table) {
  TablePoller::Deps deps;
  deps.io = context_.io;
  deps.client = context_.client;
  deps.producer = producer_;
  deps.store = context_.store;
  deps.health = context_.health;
  deps.source = &settings_;
  deps.table = &table;
  deps.options = poller_options_;
  deps.once = &once_;
  if (auto it = transactions_.find(table.alias); it != transactions_.end()) {
    deps.transaction = it->second;
    deps.producer = it->second->producer();
  }
  if (auto it = transactions_.find(table.alias + std::string(kDeletesAliasSuffix));
      it != transactions_.end()) {
    deps.deletes_transaction = it->second;
  }
  return TablePoller::Make(std::move(deps));
}

std::vector<std::shared_ptr<TablePoller>> SourceDirection::CurrentPollers() const {
  return ownership_ ? ownership_->Current() : pollers_;
}

SourceDirection::~SourceDirection() {
  // By now the pool is joined (the sidecar stops it before dropping directions), so nothing
  // else touches the pollers: let go of the windows while the store still exists.
  for (auto& poller : pollers_) poller->ReleaseWindow();
  if (ownership_) ownership_->ReleaseWindows();
}

Status SourceDirection::Start() {
  if (started_) return Status::Ok();
  started_ = true;
  if (ownership_) return ownership_->Start();
  for (auto& poller : pollers_) poller->Start();
  SNOWCAR_LOG(
      kInfo, "source.started",
      {{"tables", static_cast<int64_t>(pollers_.size())}, {"instance", settings_.instance}});
  return Status::Ok();
}

bool SourceDirection::Started() const {
  if (ownership_) return ownership_->Started();
  for (const auto& poller : pollers_) {
    if (!poller->started()) return false;
  }
  return true;
}

void SourceDirection::Stop(std::chrono::steady_clock::time_point deadline) {
  if (stopped_) return;
  stopped_ = true;
  if (started_ && ownership_) ownership_->Stop(deadline);
  if (started_ && !ownership_) {
    std::vector<std::future<void>> done;
    done.reserve(pollers_.size());
    for (auto& poller : pollers_) done.push_back(poller->Stop());
    for (size_t i = 0; i < done.size(); ++i) {
      if (done[i].wait_until(deadline) == std::future_status::ready) continue;
      // Deadline passed with produces in flight: commit what is acknowledged and go.
      auto forced = pollers_[i]->ForceFinish();
      forced.wait_for(std::chrono::seconds(5));
    }
  }
  if (own_producer_) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    own_producer_->Close(std::max(left, std::chrono::milliseconds(0)));
  }
  SNOWCAR_LOG(kInfo, "source.stopped", {{"tables", static_cast<int64_t>(pollers_.size())}});
}

}  // namespace snowcar::source

namespace snowcar::source {

Status SourceDirection::BeforeStateReset(std::string_view table) {
  for (const auto& poller : CurrentPollers()) {
    // A table's deletes stream (<alias>.deletes) runs and stops with its table.
    const bool deletes = poller->deletes_poller() &&
                         poller->deletes_poller()->table().alias == table &&
                         !poller->deletes_poller()->failed();
    if (!deletes && (poller->table().alias != table || poller->failed())) continue;
    return Status::FailedPrecondition(
        "table '" + std::string(table) +
        "' is being polled by this sidecar, which would write its cursor back at its next "
        "commit; stop the sidecar and run `snowcar state reset-cursor " +
        std::string(table) + " --state-dir DIR`, or reset it while the table is failed");
  }
  return Status::Ok();
}

std::vector<direction::Direction::ProducerGauge> SourceDirection::ProducerGauges() const {
  // own_producer_ is set in the constructor and never replaced, so reading it here is safe.
  if (!own_producer_) return {};
  const kafka::KafkaProducer::Stats st = own_producer_->stats();
  return {{.client = "source",
           .queue_length = st.queued + st.in_flight,
           .produce_seconds = st.produce_seconds}};
}

}  // namespace snowcar::source
