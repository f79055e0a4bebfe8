// SPDX-License-Identifier: Apache-2.0
#include "consumer_loop.h"

#include <algorithm>

#include "snowcar/common/log.h"

namespace snowcar::sink {
namespace {

std::string Names(const std::vector<kafka::TopicPartition>& tps) {
  std::string out;
  for (const auto& tp : tps) out += (out.empty() ? "" : ",") + tp.ToString();
  return out;
}

}  // namespace

ConsumerLoop::ConsumerLoop(ConsumerLoopOptions options, LaneFactory factory,
                           api::HealthRegistry* health)
    : options_(std::move(options)),
      health_(health),
      lanes_(
          [this, factory = std::move(factory)](const kafka::TopicPartition& tp, uint64_t serial) {
            return factory(tp, MakeEvents(serial));
          }) {}

ConsumerLoop::~ConsumerLoop() { Stop(std::chrono::steady_clock::now()); }

LaneEvents ConsumerLoop::MakeEvents(uint64_t lane_serial) {
  LaneEvents events;
  events.completed = [this, lane_serial](const void*, const kafka::TopicPartition& tp,
                                         int64_t next) {
    PostEvent(Event{Event::Kind::kCompleted, lane_serial, tp, next, {}});
  };
  events.pause = [this, lane_serial](const void*, const kafka::TopicPartition& tp, bool paused) {
    PostEvent(Event{paused ? Event::Kind::kPause : Event::Kind::kResume, lane_serial, tp, 0, {}});
  };
  events.progress = [this, lane_serial](const void*, const kafka::TopicPartition& tp, int64_t next,
                                        const std::string& metadata) {
    PostEvent(Event{Event::Kind::kProgress, lane_serial, tp, next, metadata});
  };
  events.failed = [this](const void*, const kafka::TopicPartition& tp, const Failure& failure) {
    if (health_ != nullptr) {
      health_->Report("sink", false,
                      "lane " + tp.ToString() + " stopped at a failed record (" +
                          std::string(ErrorClassName(failure.klass)) + "): " + failure.message);
    }
  };
  return events;
}

void ConsumerLoop::PostEvent(Event event) {
  MutexLock lock(mu_);
  events_.push_back(std::move(event));
  cv_.NotifyAll();
  if (wake_ != nullptr) wake_->Wake();
}

Status ConsumerLoop::Start() {
  std::promise<Status> started;
  auto result = started.get_future();
  thread_ = std::thread([this, &started] { Run(&started); });
  Status s = result.get();
  if (!s.ok()) {
    thread_.join();
    MutexLock lock(mu_);
    stopped_ = true;
  }
  return s;
}

void ConsumerLoop::Run(std::promise<Status>* started) {
  kafka::ConsumerOptions o;
  o.properties = options_.properties;
  o.topics = options_.topics;
  o.client_id = "snowcar-sink";
  o.listener.on_assigned = [this](const auto& tps) { OnAssigned(tps); };
  o.listener.on_revoked = [this](const auto& tps) { OnRevoked(tps); };
  o.listener.on_lost = [this](const auto& tps) { OnLost(tps); };
  // A refusal (a missing ACL, refused credentials) would otherwise show only in the log
  // while the sink looks healthy and applies nothing; the next assignment reports it well.
  o.listener.on_refused = [this](const std::string& error, const std::string& reason) {
    if (health_ != nullptr) {
      health_->Report("sink", false, "Kafka refused the sink's consumer: " + error + ": " + reason);
    }
  };
  auto created = kafka::KafkaConsumer::Create(std::move(o));
  if (!created.ok()) {
    started->set_value(created.status().WithContext("sink consumer"));
    return;
  }
  consumer_ = std::move(created).value();
  {
    MutexLock lock(mu_);
    wake_ = consumer_.get();
  }
  subscribed_ = true;
  SNOWCAR_LOG(kInfo, "sink.subscribed", {{"topics", static_cast<int64_t>(options_.topics.size())}});
  started->set_value(Status::Ok());

  while (!stop_requested_.load()) {
    DrainEvents();
    RefreshCommitted(false);
    if (options_.commit_metadata &&
        std::chrono::steady_clock::now() - last_commit_ >= options_.commit_interval) {
      CommitProgress({}, /*wait=*/false);
    }
    auto polled = consumer_->Poll(options_.poll_timeout);
    if (!polled.ok()) {
      SNOWCAR_LOG(kError, "sink.consumer.fatal", {{"error", polled.status().message()}});
      if (health_ != nullptr) {
        health_->Report("sink", false, "Kafka consumer failed: " + polled.status().message());
      }
      break;
    }
    if (!polled->has_value()) continue;
    kafka::InRecord record = std::move(**polled);
    auto lane = lanes_.Find(kafka::TopicPartition{record.topic, record.partition});
    if (lane == nullptr) {
      SNOWCAR_LOG(kDebug, "sink.record.unassigned",
                  {{"topic", record.topic}, {"partition", record.partition}});
      continue;
    }
    lane->Enqueue(std::move(record));
  }
  Shutdown();
}

void ConsumerLoop::DrainEvents() {
  std::deque<Event> events;
  {
    MutexLock lock(mu_);
    events.swap(events_);
  }
  for (auto& e : events) {
    // An event of a lane that is gone (revoked, lost; maybe replaced by a new lane of the
    // same partition) is dropped: a stale "pause" would otherwise stop the new lane for good.
    auto lane = lanes_.Find(e.tp, e.lane_serial);
    if (lane == nullptr) continue;
    switch (e.kind) {
      case Event::Kind::kCompleted: {
        Status s = consumer_->StoreOffset(e.tp, e.offset);
        if (s.ok()) {
          lane->SetStored(e.offset);
        } else {
          SNOWCAR_LOG(kDebug, "sink.offset.store_failed",
                      {{"partition", e.tp.ToString()}, {"error", s.message()}});
        }
        break;
      }
      case Event::Kind::kProgress: {
        Progress& p = progress_[e.tp];
        p.offset = kafka::OffsetAndMetadata{e.offset, std::move(e.metadata)};
        p.dirty = true;
        lane->SetStored(e.offset);
        break;
      }
      case Event::Kind::kPause:
      case Event::Kind::kResume: {
        const bool pause = e.kind == Event::Kind::kPause;
        Status s = pause ? consumer_->Pause({e.tp}) : consumer_->Resume({e.tp});
        SNOWCAR_LOG(kDebug, pause ? "sink.partition.paused" : "sink.partition.resumed",
                    {{"partition", e.tp.ToString()}, {"ok", s.ok()}});
        break;
      }
    }
  }
}

void ConsumerLoop::RefreshCommitted(bool force) {
  const auto now = std::chrono::steady_clock::now();
  if (!force && now - last_refresh_ < options_.committed_refresh) return;
  last_refresh_ = now;
  auto tps = lanes_.Partitions();
  if (tps.empty()) return;
  // The consumer lag metric's other end, from librdkafka's cache: no broker round trip.
  for (const auto& [tp, high] : consumer_->CachedHighWatermarks(tps)) {
    if (auto lane = lanes_.Find(tp)) lane->SetHighWatermark(high);
  }
  auto committed = consumer_->Committed(tps, std::chrono::milliseconds(500));
  if (!committed.ok()) return;
  for (const auto& [tp, offset] : *committed) {
    if (auto lane = lanes_.Find(tp)) lane->SetCommitted(offset >= 0 ? offset : -1);
  }
}

void ConsumerLoop::CommitProgress(const std::vector<kafka::TopicPartition>& tps, bool wait) {
  last_commit_ = std::chrono::steady_clock::now();
  std::map<kafka::TopicPartition, kafka::OffsetAndMetadata> offsets;
  for (auto& [tp, p] : progress_) {
    if (!p.dirty) continue;
    if (!tps.empty() && std::find(tps.begin(), tps.end(), tp) == tps.end()) continue;
    offsets[tp] = p.offset;
  }
  if (offsets.empty()) return;
  Status s = consumer_->CommitOffsets(offsets, wait);
  if (!s.ok()) {
    // Still dirty: the next commit sends it again.
    SNOWCAR_LOG(kWarn, "sink.offset.commit_failed", {{"error", s.message()}});
    return;
  }
  for (const auto& [tp, o] : offsets) {
    auto it = progress_.find(tp);
    if (it != progress_.end() && it->second.offset.offset == o.offset &&
        it->second.offset.metadata == o.metadata) {
      it->second.dirty = false;
    }
  }
}

void ConsumerLoop::OnAssigned(const std::vector<kafka::TopicPartition>& tps) {
  auto created = lanes_.Add(tps);
  if (options_.commit_metadata && !created.empty()) {
    // Before the first record: which records above the committed offset an earlier owner
    // already finished. Without an answer the lanes start plain and may repeat those.
    std::vector<kafka::TopicPartition> fresh;
    fresh.reserve(created.size());
    for (const auto& lane : created) fresh.push_back(lane->tp());
    auto committed = consumer_->CommittedWithMetadata(fresh, std::chrono::seconds(10));
    if (committed.ok()) {
      for (const auto& lane : created) {
        auto it = committed->find(lane->tp());
        if (it != committed->end()) lane->Seed(it->second.offset, it->second.metadata);
      }
    } else {
      SNOWCAR_LOG(kWarn, "sink.offset.metadata_unread",
                  {{"partitions", Names(fresh)}, {"error", committed.status().message()}});
    }
  }
  SNOWCAR_LOG(kInfo, "sink.partitions.assigned",
              {{"partitions", Names(tps)}, {"new_lanes", static_cast<int64_t>(created.size())}});
  if (health_ != nullptr && !created.empty()) {
    bool any_failed = false;
    for (const auto& s : lanes_.Snapshot()) any_failed |= s.state == LaneState::kFailed;
    if (!any_failed) health_->Report("sink", true, "consuming");
  }
}

bool ConsumerLoop::WaitIdle(const std::vector<std::shared_ptr<PartitionLane>>& lanes,
                            std::chrono::steady_clock::time_point deadline) {
  while (true) {
    DrainEvents();
    const bool busy =
        std::any_of(lanes.begin(), lanes.end(), [](const auto& l) { return l->Busy(); });
    if (!busy) return true;
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return false;
    MutexLock lock(mu_);
    const auto until = std::min(deadline, now + std::chrono::milliseconds(50));
    while (events_.empty() && cv_.WaitUntil(lock, until)) {
    }
  }
}

void ConsumerLoop::OnRevoked(const std::vector<kafka::TopicPartition>& tps) {
  auto lanes = lanes_.Get(tps);
  for (const auto& lane : lanes) lane->Stop();
  auto deadline = std::chrono::steady_clock::now() + options_.revoke_wait;
  {
    MutexLock lock(mu_);
    if (stop_requested_.load() && deadline_ < deadline) deadline = deadline_;
  }
  WaitIdle(lanes, deadline);
  int abandoned = 0;
  for (const auto& lane : lanes) {
    if (lane->Busy()) {
      lane->Abandon();
      ++abandoned;
    }
  }
  DrainEvents();
  if (options_.commit_metadata) {
    CommitProgress(tps, /*wait=*/true);
    for (const auto& tp : tps) progress_.erase(tp);
  }
  lanes_.Remove(tps);
  SNOWCAR_LOG(kInfo, "sink.partitions.revoked",
              {{"partitions", Names(tps)}, {"abandoned_in_flight", abandoned}});
  if (abandoned > 0) {
    SNOWCAR_LOG(kWarn, "sink.revoke.timed_out",
                {{"partitions", Names(tps)},
                 {"abandoned_in_flight", abandoned},
                 {"note",
                  "a write sent before the revoke was still unanswered at "
                  "snow.sink.revoke.timeout.ms; the instance may still apply it after the next "
                  "owner's writes"}});
  }
}

void ConsumerLoop::OnLost(const std::vector<kafka::TopicPartition>& tps) {
  auto lanes = lanes_.Get(tps);
  for (const auto& lane : lanes) lane->Abandon();
  for (const auto& tp : tps) progress_.erase(tp);
  lanes_.Remove(tps);
  SNOWCAR_LOG(kWarn, "sink.partitions.lost", {{"partitions", Names(tps)}});
}

void ConsumerLoop::Shutdown() {
  std::chrono::steady_clock::time_point deadline;
  {
    MutexLock lock(mu_);
    deadline = deadline_;
  }
  auto lanes = lanes_.All();
  for (const auto& lane : lanes) lane->Stop();
  const bool idle = WaitIdle(lanes, deadline);
  if (!idle) {
    for (const auto& lane : lanes) {
      if (lane->Busy()) lane->Abandon();
    }
  }
  DrainEvents();
  if (options_.commit_metadata) CommitProgress({}, /*wait=*/true);
  Status committed = consumer_->CommitSync();
  SNOWCAR_LOG(kInfo, "sink.consumer.closing",
              {{"drained", idle}, {"commit", committed.ok() ? "ok" : committed.message()}});
  consumer_->Close();
  {
    MutexLock lock(mu_);
    wake_ = nullptr;
  }
  consumer_.reset();
  subscribed_ = false;
}

void ConsumerLoop::Stop(std::chrono::steady_clock::time_point deadline) {
  {
    MutexLock lock(mu_);
    if (stopped_) return;
    stopped_ = true;
    deadline_ = deadline;
    stop_requested_ = true;
    if (wake_ != nullptr) wake_->Wake();
  }
  if (thread_.joinable()) thread_.join();
}

}  // namespace snowcar::sink
