// SPDX-License-Identifier: Apache-2.0
#include "keyed_lane.h"

#include <boost/asio/post.hpp>

#include "ordering_key.h"

namespace snowcar::sink {

KeyedLane::KeyedLane(kafka::TopicPartition tp, const SinkSettings* settings, LaneEvents events,
                     Options options, boost::asio::any_io_executor executor, KeyLaneFactory factory)
    : tp_(std::move(tp)),
      settings_(settings),
      events_(std::move(events)),
      max_held_(std::max<size_t>(1, options.max_held)),
      max_active_(std::max<size_t>(1, options.max_active)),
      decoder_(options.decoder),
      executor_(std::move(executor)),
      factory_(std::move(factory)) {
  status_.tp = tp_;
}

void KeyedLane::Seed(int64_t committed, const std::string& metadata) {
  MutexLock lock(mu_);
  if (committed < 0 || last_queued_ >= 0) return;
  prefix_.Reset(committed, metadata);
  reported_next_ = committed;
  reported_metadata_ = metadata;
}

std::shared_ptr<Lane> KeyedLane::MakeKeyLane(const std::string& key) {
  std::weak_ptr<KeyedLane> weak = weak_from_this();
  LaneEvents events;
  events.completed = [weak, key](const void*, const kafka::TopicPartition&, int64_t next) {
    if (auto self = weak.lock()) self->OnKeyDone(key, next);
  };
  // One key waiting (backing off, failed) must not stop the others: the partition is paused
  // for what it holds in all (UpdatePauseLocked), never for one key.
  events.pause = [](const void*, const kafka::TopicPartition&, bool) {};
  events.failed = [weak, key](const void*, const kafka::TopicPartition&, const Failure& failure) {
    if (auto self = weak.lock()) self->OnKeyFailed(key, failure);
  };
  return factory_(std::move(events));
}

void KeyedLane::Enqueue(kafka::InRecord record) {
  // Parsed off the lock: the consumer thread is the only caller.
  std::string key = OrderingKey(record, *settings_, decoder_);
  Handoff handoff;
  std::vector<std::shared_ptr<Lane>> retired;
  {
    MutexLock lock(mu_);
    retired.swap(retired_);
    if (abandoned_ || stopping_ || record.offset <= last_queued_) return;
    last_queued_ = record.offset;
    if (prefix_.Track(record.offset)) {
      // Done by an earlier owner of the partition (the commit metadata says so).
      ++status_.completed;
      ReportLocked();
      UpdatePauseLocked();
      return;
    }
    Key& k = keys_[key];
    if (!k.lane) k.lane = MakeKeyLane(key);
    ++k.pending;
    if (!k.failed) {
      if (!k.running && k.waiting.empty()) ready_.emplace(record.offset, key);
      k.waiting.push_back(std::move(record));
    }
    status_.queue_depth = prefix_.held();
    UpdatePauseLocked();
    handoff = TakeReadyLocked();
  }
  for (auto& [lane, r] : handoff) lane->Enqueue(std::move(r));
}

KeyedLane::Handoff KeyedLane::TakeReadyLocked() {
  Handoff out;
  while (active_ < max_active_ && !ready_.empty() && !stopping_) {
    const std::string key = ready_.begin()->second;
    ready_.erase(ready_.begin());
    Key& k = keys_[key];
    k.running = true;
    ++active_;
    out.emplace_back(k.lane, std::move(k.waiting.front()));
    k.waiting.pop_front();
  }
  return out;
}

void KeyedLane::Dispatch() {
  Handoff handoff;
  {
    MutexLock lock(mu_);
    handoff = TakeReadyLocked();
  }
  for (auto& [lane, r] : handoff) lane->Enqueue(std::move(r));
}

void KeyedLane::OnKeyDone(const std::string& key, int64_t next_offset) {
  MutexLock lock(mu_);
  if (abandoned_) return;
  prefix_.MarkDone(next_offset - 1);
  ++status_.completed;
  auto it = keys_.find(key);
  if (it != keys_.end()) {
    Key& k = it->second;
    if (k.running) {
      k.running = false;
      --active_;
    }
    if (k.pending > 0) --k.pending;
    if (!k.waiting.empty()) {
      ready_.emplace(k.waiting.front().offset, key);
    } else if (k.pending == 0 && !k.failed) {
      // The lane reporting holds a reference to itself until it returns; ours is released
      // on the consumer thread, off every lock.
      retired_.push_back(std::move(k.lane));
      keys_.erase(it);
    }
  }
  status_.queue_depth = prefix_.held();
  ReportLocked();
  UpdatePauseLocked();
  // The next records go to their lanes from the pool: this runs under the reporting key
  // lane's lock, and a lane must not be called into from there (lane.h).
  if (!ready_.empty() && active_ < max_active_) {
    boost::asio::post(executor_, [self = shared_from_this()] { self->Dispatch(); });
  }
}

void KeyedLane::OnKeyFailed(const std::string& key, const Failure& failure) {
  MutexLock lock(mu_);
  auto it = keys_.find(key);
  if (it != keys_.end()) {
    // The key stops here: its slot goes to other keys, its waiting records are never sent.
    Key& k = it->second;
    k.failed = true;
    k.waiting.clear();
    if (k.running) {
      k.running = false;
      --active_;
      if (!ready_.empty()) {
        boost::asio::post(executor_, [self = shared_from_this()] { self->Dispatch(); });
      }
    }
  }
  status_.state = LaneState::kFailed;
  status_.last_error = failure.message;
  status_.last_error_class = ErrorClassName(failure.klass);
  if (!abandoned_ && events_.failed) events_.failed(this, tp_, failure);
}

void KeyedLane::ReportLocked() {
  const int64_t next = prefix_.next();
  if (next < 0 || abandoned_) return;
  std::string metadata = prefix_.Metadata();
  if (next == reported_next_ && metadata == reported_metadata_) return;
  reported_next_ = next;
  reported_metadata_ = metadata;
  if (events_.progress) events_.progress(this, tp_, next, reported_metadata_);
}

void KeyedLane::UpdatePauseLocked() {
  const size_t held = prefix_.held();
  bool want = paused_;
  if (!paused_ && held >= max_held_) want = true;
  if (paused_ && held <= max_held_ / 2) want = false;
  if (want == paused_) return;
  paused_ = want;
  status_.paused = want;
  if (!abandoned_ && events_.pause) events_.pause(this, tp_, want);
}

std::vector<std::shared_ptr<Lane>> KeyedLane::LanesLocked() const {
  std::vector<std::shared_ptr<Lane>> out;
  out.reserve(keys_.size());
  for (const auto& [key, k] : keys_) {
    if (k.lane) out.push_back(k.lane);
  }
  return out;
}

void KeyedLane::Stop() {
  std::vector<std::shared_ptr<Lane>> lanes;
  {
    MutexLock lock(mu_);
    stopping_ = true;
    ready_.clear();
    for (auto& [key, k] : keys_) k.waiting.clear();
    lanes = LanesLocked();
  }
  for (const auto& lane : lanes) lane->Stop();
}

void KeyedLane::Abandon() {
  std::vector<std::shared_ptr<Lane>> lanes;
  {
    MutexLock lock(mu_);
    abandoned_ = true;
    stopping_ = true;
    ready_.clear();
    for (auto& [key, k] : keys_) k.waiting.clear();
    lanes = LanesLocked();
  }
  for (const auto& lane : lanes) lane->Abandon();
}

bool KeyedLane::Busy() const {
  std::vector<std::shared_ptr<Lane>> lanes;
  {
    MutexLock lock(mu_);
    lanes = LanesLocked();
  }
  for (const auto& lane : lanes) {
    if (lane->Busy()) return true;
  }
  return false;
}

LaneStatus KeyedLane::Snapshot() const {
  LaneStatus s;
  std::vector<std::shared_ptr<Lane>> lanes;
  bool stopping = false;
  {
    MutexLock lock(mu_);
    s = status_;
    s.queue_depth = prefix_.held();
    s.active_keys = keys_.size();
    lanes = LanesLocked();
    stopping = stopping_;
  }
  std::optional<LaneStatus> oldest;
  bool busy = false;
  for (const auto& lane : lanes) {
    LaneStatus k = lane->Snapshot();
    s.retries += k.retries;
    busy |= lane->Busy();
    if (k.state == LaneState::kFailed) s.state = LaneState::kFailed;
    if (k.in_flight_offset && (!oldest || *k.in_flight_offset < *oldest->in_flight_offset)) {
      oldest = std::move(k);
    }
  }
  if (oldest) {
    s.in_flight_offset = oldest->in_flight_offset;
    s.backoff_ms = oldest->backoff_ms;
    if (!oldest->last_error.empty()) {
      s.last_error = oldest->last_error;
      s.last_error_class = oldest->last_error_class;
    }
    if (oldest->state == LaneState::kBackingOff && s.state == LaneState::kRunning) {
      s.state = LaneState::kBackingOff;
    }
  }
  if (stopping) s.state = busy ? LaneState::kStopping : LaneState::kStopped;
  return s;
}

void KeyedLane::SetCommitted(int64_t offset) {
  MutexLock lock(mu_);
  status_.committed_offset = offset;
}

void KeyedLane::SetHighWatermark(int64_t offset) {
  MutexLock lock(mu_);
  status_.high_watermark = offset;
}

void KeyedLane::SetStored(int64_t offset) {
  MutexLock lock(mu_);
  status_.stored_offset = std::max(status_.stored_offset, offset);
}

}  // namespace snowcar::sink
