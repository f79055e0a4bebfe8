#include "source_direction.h"

#include <future>

#include "snowcar/common/log.h"

namespace snowcar::source {

SourceDirection::SourceDirection(const runtime::DirectionContext& context, SourceSettings settings,
                                 std::shared_ptr<kafka::RecordProducer> producer,
                                 std::shared_ptr<kafka::KafkaProducer> own_producer,
                                 const PollerOptions& options)
    : context_(context),
      settings_(std::move(settings)),
      producer_(std::move(producer)),
      own_producer_(std::move(own_producer)) {
  for (const TableSettings& table : settings_.tables) {
    TablePoller::Deps deps;
    deps.io = context_.io;
    deps.client = context_.client;
    deps.producer = producer_;
    deps.store = context_.store;
    deps.health = context_.health;
    deps.source = &settings_;
    deps.table = &table;
    deps.options = options;
    deps.once = &once_;
    pollers_.push_back(std::make_shared<TablePoller>(std::move(deps)));
  }
}

SourceDirection::~SourceDirection() {
  // By now the pool is joined (the sidecar stops it before dropping directions), so nothing
  // else touches the pollers: let go of the windows while the store still exists.
  for (auto& poller : pollers_) poller->ReleaseWindow();
}

Status SourceDirection::Start() {
  if (started_) return Status::Ok();
  started_ = true;
  for (auto& poller : pollers_) poller->Start();
  SNOWCAR_LOG(
      kInfo, "source.started",
      {{"tables", static_cast<int64_t>(pollers_.size())}, {"instance", settings_.instance}});
  return Status::Ok();
}

bool SourceDirection::Started() const {
  for (const auto& poller : pollers_) {
    if (!poller->started()) return false;
  }
  return true;
}

void SourceDirection::Stop(std::chrono::steady_clock::time_point deadline) {
  if (stopped_) return;
  stopped_ = true;
  if (started_) {
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
  for (const auto& poller : pollers_) {
    if (poller->table().alias != table || poller->failed()) continue;
    return Status::FailedPrecondition(
        "table '" + std::string(table) +
        "' is being polled by this sidecar, which would write its cursor back at its next "
        "commit; stop the sidecar and run `snowcar state reset-cursor " +
        std::string(table) + " --state-dir DIR`, or reset it while the table is failed");
  }
  return Status::Ok();
}

}  // namespace snowcar::source
