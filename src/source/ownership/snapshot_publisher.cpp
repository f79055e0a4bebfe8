// SPDX-License-Identifier: Apache-2.0
#include "snapshot_publisher.h"

#include "snowcar/common/log.h"
#include "snowcar/common/time.h"

namespace snowcar::source {

SnapshotPublisher::SnapshotPublisher(std::shared_ptr<kafka::RecordProducer> producer,
                                     boost::asio::any_io_executor executor, std::string topic,
                                     std::string replica_id, size_t max_bytes)
    : producer_(std::move(producer)),
      executor_(std::move(executor)),
      topic_(std::move(topic)),
      replica_id_(std::move(replica_id)),
      max_bytes_(max_bytes) {}

void SnapshotPublisher::Restored(const std::string& alias, const TableSnapshot& snapshot) {
  last_[alias] = Last{snapshot, {}};
}

void SnapshotPublisher::Forget(const std::string& alias) { last_.erase(alias); }

bool SnapshotPublisher::Publish(const std::string& alias, int32_t partition, TableSnapshot snapshot,
                                std::optional<std::chrono::steady_clock::time_point> until) {
  const auto now = std::chrono::steady_clock::now();
  auto settled = [&](const std::shared_future<Status>& delivered) {
    return delivered.wait_until(until.value_or(now)) == std::future_status::ready;
  };
  if (auto last = last_.find(alias);
      last != last_.end() && last->second.snapshot.SameState(snapshot)) {
    const std::shared_future<Status>& delivered = last->second.delivered;
    if (!delivered.valid()) return true;  // restored from the changelog: it is there
    if (!settled(delivered)) {
      if (until) SNOWCAR_LOG(kWarn, "source.group.snapshot_unconfirmed", {{"table", alias}});
      return false;  // still out: the next round looks again
    }
    if (delivered.get().ok()) return true;
    // Its write failed (the report was logged): written again below.
  }
  snapshot.replica = replica_id_;
  snapshot.written_at_ms = SystemClock::Instance().NowMillis();
  kafka::OutRecord record;
  record.topic = topic_;
  record.partition = partition;
  record.key = alias;
  record.value = EncodeSnapshot(snapshot, max_bytes_);
  auto report = std::make_shared<std::promise<Status>>();
  std::shared_future<Status> delivered = report->get_future().share();
  last_[alias] = Last{std::move(snapshot), delivered};
  producer_->Produce(std::move(record), executor_,
                     [report, counts = counts_, alias](const kafka::DeliveryReport& r) {
                       if (r.status.ok()) {
                         ++counts->published;
                       } else {
                         ++counts->failed;
                         SNOWCAR_LOG(kWarn, "source.group.snapshot_not_delivered",
                                     {{"table", alias}, {"error", r.status.message()}});
                       }
                       report->set_value(r.status);
                     });
  if (!until) return false;
  if (!settled(delivered)) {
    SNOWCAR_LOG(kWarn, "source.group.snapshot_unconfirmed", {{"table", alias}});
    return false;
  }
  return delivered.get().ok();
}

}  // namespace snowcar::source
