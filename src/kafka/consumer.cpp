// SPDX-License-Identifier: Apache-2.0
#include "snowcar/kafka/consumer.h"

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <atomic>
#include <limits>
#include <mutex>
#include <thread>

#include "client_config.h"
#include "consumer_conf.h"
#include "consumer_rebalance.h"
#include "delivery_error.h"
#include "record_convert.h"
#include "snowcar/common/log.h"

namespace snowcar::kafka {
namespace {

using SteadyClock = std::chrono::steady_clock;

// Pause between commits refused with REBALANCE_IN_PROGRESS during a cooperative revoke.
constexpr std::chrono::milliseconds kRebalanceRetry{100};

// Turns a per-partition error of a partition-list call into a Status naming the partition.
Status PartitionStatus(const rd_kafka_topic_partition_list_t* list, std::string_view what) {
  for (int i = 0; i < list->cnt; ++i) {
    const auto& e = list->elems[i];
    if (e.err == RD_KAFKA_RESP_ERR_NO_ERROR) continue;
    std::string message = std::string(what) + " " + e.topic + "/" + std::to_string(e.partition) +
                          ": " + rd_kafka_err2str(e.err);
    if (e.err == RD_KAFKA_RESP_ERR__STATE || e.err == RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION) {
      return Status::FailedPrecondition(message + " (not assigned to this consumer)");
    }
    return Status::Unavailable(std::move(message));
  }
  return Status::Ok();
}

}  // namespace

struct KafkaConsumer::Impl {
  rd_kafka_t* rk = nullptr;
  rd_kafka_queue_t* queue = nullptr;  // the consumer queue; Wake() yields it
  RebalanceListener listener;
  std::chrono::milliseconds commit_timeout{5000};
  std::chrono::milliseconds close_timeout{10000};
  std::mutex wake_mu;    // guards `queue` between Wake() and Close()
  bool closing = false;  // consumer thread only: Close() started
  bool closed = false;   // consumer thread only: the handle is gone
  // The cooperative-sticky assignor is configured, and no assignment event has come yet
  // (consumer thread only). See Close().
  bool cooperative = false;
  bool synced = false;

  std::atomic<int64_t> consumed{0};
  std::atomic<int64_t> errors{0};
  std::atomic<int64_t> assigned{0};
  std::atomic<int64_t> revoked{0};
  std::atomic<int64_t> lost{0};
  std::atomic<int64_t> commit_failures{0};

  ~Impl() {
    if (queue != nullptr) rd_kafka_queue_destroy(queue);
    if (rk != nullptr) rd_kafka_destroy(rk);
  }

  // One asynchronous commit of the stored offsets, its answer awaited on a private queue for
  // at most `wait` (librdkafka's synchronous commit would wait for an unreachable coordinator
  // until the session times out). _TIMED_OUT when no answer came.
  rd_kafka_resp_err_t CommitOnce(std::chrono::milliseconds wait,
                                 const rd_kafka_topic_partition_list_t* offsets) {
    rd_kafka_queue_t* answers = rd_kafka_queue_new(rk);
    rd_kafka_resp_err_t err = rd_kafka_commit_queue(rk, offsets, answers, nullptr, nullptr);
    if (err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      rd_kafka_event_t* answer =
          rd_kafka_queue_poll(answers, static_cast<int>(std::max<int64_t>(1, wait.count())));
      if (answer == nullptr) {
        err = RD_KAFKA_RESP_ERR__TIMED_OUT;
      } else {
        err = rd_kafka_event_error(answer);
        rd_kafka_event_destroy(answer);
      }
    }
    rd_kafka_queue_destroy(answers);  // a late answer is dropped with the queue
    return err;
  }

  // Commits what was stored, within `commit_timeout` in all; "nothing stored" is not a
  // failure. With `retry_while_rebalancing`, a REBALANCE_IN_PROGRESS answer is retried until
  // then: during a cooperative revoke this member's generation is already current and the
  // coordinator accepts the commit as soon as the other members have synced.
  // `offsets`: these (with their metadata) instead of the stored ones.
  Status Commit(std::string_view why, bool retry_while_rebalancing,
                const rd_kafka_topic_partition_list_t* offsets = nullptr) {
    const auto deadline = SteadyClock::now() + commit_timeout;
    rd_kafka_resp_err_t err;
    while (true) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now());
      err = CommitOnce(left, offsets);
      if (err != RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS || !retry_while_rebalancing ||
          SteadyClock::now() + kRebalanceRetry >= deadline) {
        break;
      }
      std::this_thread::sleep_for(kRebalanceRetry);
    }
    if (err == RD_KAFKA_RESP_ERR_NO_ERROR || err == RD_KAFKA_RESP_ERR__NO_OFFSET) {
      return Status::Ok();
    }
    ++commit_failures;
    SNOWCAR_LOG(kWarn, "kafka.consumer.commit_failed",
                {{"when", why}, {"error", rd_kafka_err2name(err)}});
    if (err == RD_KAFKA_RESP_ERR__TIMED_OUT) {
      return Status::DeadlineExceeded(
          "commit of stored offsets: no answer from the group "
          "coordinator in " +
          std::to_string(commit_timeout.count()) + " ms");
    }
    return Status::Unavailable(std::string("commit of stored offsets failed: ") +
                               rd_kafka_err2str(err));
  }

  // rebalance_cb: runs on the consumer thread inside Poll() (or Close()).
  static void OnRebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                          rd_kafka_topic_partition_list_t* partitions, void* opaque) {
    auto* self = static_cast<Impl*>(opaque);
    // librdkafka raises an assignment only after a SyncGroup answer, which also gave the
    // sticky assignor its state.
    if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) self->synced = true;
    internal::HandleRebalance(rk, err, partitions,
                              {.listener = self->listener,
                               .assigned = self->assigned,
                               .revoked = self->revoked,
                               .lost = self->lost,
                               .commit_on_revoke = [self](bool cooperative) {
                                 (void)self->Commit("revoke",
                                                    /*retry_while_rebalancing=*/cooperative);
                               }});
  }

  // error_cb: runs on the consumer thread inside Poll().
  static void OnError(rd_kafka_t* rk, int err, const char* reason, void* opaque) {
    auto* self = static_cast<Impl*>(opaque);
    if (err != RD_KAFKA_RESP_ERR__FATAL) ++self->errors;
    internal::LogClientError(rk, err, reason);
    if (internal::IsBrokerRefusal(err) && self->listener.on_refused) {
      self->listener.on_refused(rd_kafka_err2name(static_cast<rd_kafka_resp_err_t>(err)),
                                internal::Clean(reason != nullptr ? reason : ""));
    }
  }

  Status FatalStatus() const {
    char detail[512];
    const rd_kafka_resp_err_t err = rd_kafka_fatal_error(rk, detail, sizeof detail);
    if (err == RD_KAFKA_RESP_ERR_NO_ERROR) return Status::Ok();
    return Status::FailedPrecondition(std::string("kafka consumer failed fatally: ") +
                                      rd_kafka_err2name(err) + ": " + internal::Clean(detail));
  }
};

Result<std::unique_ptr<KafkaConsumer>> KafkaConsumer::Create(ConsumerOptions options) {
  if (options.topics.empty()) {
    return Status::InvalidArgument("kafka consumer: no topics to subscribe to");
  }
  std::map<std::string, std::string> properties;
  SNOWCAR_ASSIGN_OR_RETURN(
      internal::ConfPtr conf,
      internal::PrepareConsumerConf(options, internal::Dropped::kLog, properties));
  if (properties["partition.assignment.strategy"].find("cooperative") != std::string::npos &&
      rd_kafka_version() < 0x020400ff) {
    SNOWCAR_LOG(kWarn, "kafka.consumer.cooperative_unsafe",
                {{"librdkafka", rd_kafka_version_str()},
                 {"why",
                  "with cooperative rebalancing, librdkafka before 2.4.0 can keep a consumer "
                  "closed during a rebalance waiting until its close timeout, and one closed "
                  "before its first assignment is not destroyed (librdkafka before 2.3.0 "
                  "aborts there); range or roundrobin have neither"}});
  }

  auto impl = std::make_unique<Impl>();
  impl->cooperative =
      properties["partition.assignment.strategy"].find("cooperative") != std::string::npos;
  impl->listener = std::move(options.listener);
  impl->commit_timeout = options.commit_timeout;
  impl->close_timeout = options.close_timeout;
  internal::RouteLogs(conf.get());
  rd_kafka_conf_set_error_cb(conf.get(), &Impl::OnError);
  rd_kafka_conf_set_rebalance_cb(conf.get(), &Impl::OnRebalance);
  rd_kafka_conf_set_opaque(conf.get(), impl.get());
  char errstr[512];
  impl->rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf.get(), errstr, sizeof errstr);
  if (impl->rk == nullptr) {
    return Status::InvalidArgument("cannot create the kafka consumer: " + internal::Clean(errstr));
  }
  (void)conf.release();  // rd_kafka_new took it
  // Every event (errors, rebalances, records) then comes through rd_kafka_consumer_poll.
  rd_kafka_poll_set_consumer(impl->rk);
  impl->queue = rd_kafka_queue_get_consumer(impl->rk);

  internal::PartitionList topics(
      rd_kafka_topic_partition_list_new(static_cast<int>(options.topics.size())));
  for (const auto& t : options.topics) {
    rd_kafka_topic_partition_list_add(topics.get(), t.c_str(), RD_KAFKA_PARTITION_UA);
  }
  if (rd_kafka_resp_err_t err = rd_kafka_subscribe(impl->rk, topics.get())) {
    return Status::InvalidArgument(std::string("kafka consumer cannot subscribe: ") +
                                   rd_kafka_err2str(err));
  }
  SNOWCAR_LOG(kInfo, "kafka.consumer.created",
              {{"client_id", properties["client.id"]},
               {"group", properties["group.id"]},
               // Read back from the handle: what librdkafka will send in JoinGroup.
               {"group_instance_id", internal::ConfValue(impl->rk, "group.instance.id")},
               {"strategy", properties["partition.assignment.strategy"]},
               {"topics", static_cast<int64_t>(options.topics.size())}});
  return std::unique_ptr<KafkaConsumer>(new KafkaConsumer(std::move(impl)));
}

KafkaConsumer::KafkaConsumer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

KafkaConsumer::~KafkaConsumer() { Close(); }

Result<std::optional<InRecord>> KafkaConsumer::Poll(std::chrono::milliseconds timeout) {
  Impl& s = *impl_;
  if (s.closing) return Status::FailedPrecondition("kafka consumer is closed");
  const auto deadline = SteadyClock::now() + timeout;
  while (true) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now());
    rd_kafka_message_t* m = rd_kafka_consumer_poll(
        s.rk,
        static_cast<int>(std::clamp<int64_t>(left.count(), 0, std::numeric_limits<int>::max())));
    if (m == nullptr) return std::optional<InRecord>();  // timed out or woken
    if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      InRecord record = internal::ToInRecord(m);
      rd_kafka_message_destroy(m);
      ++s.consumed;
      return std::optional<InRecord>(std::move(record));
    }
    const rd_kafka_resp_err_t err = m->err;
    if (err == RD_KAFKA_RESP_ERR__FATAL) {
      rd_kafka_message_destroy(m);
      return s.FatalStatus();
    }
    if (err != RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      ++s.errors;
      const std::string reason = internal::Clean(rd_kafka_message_errstr(m));
      SNOWCAR_LOG(kWarn, "kafka.consumer.error",
                  {{"error", rd_kafka_err2name(err)},
                   {"topic", m->rkt != nullptr ? rd_kafka_topic_name(m->rkt) : ""},
                   {"partition", m->partition},
                   {"reason", reason}});
      if (internal::IsBrokerRefusal(err) && s.listener.on_refused)
        s.listener.on_refused(rd_kafka_err2name(err), reason);
    }
    rd_kafka_message_destroy(m);
    if (Status fatal = s.FatalStatus(); !fatal.ok()) return fatal;
    if (SteadyClock::now() >= deadline) return std::optional<InRecord>();
  }
}

void KafkaConsumer::Wake() {
  std::lock_guard lock(impl_->wake_mu);
  if (impl_->queue != nullptr) rd_kafka_queue_yield(impl_->queue);
}

Status KafkaConsumer::Pause(const std::vector<TopicPartition>& partitions) {
  if (impl_->closed) return Status::FailedPrecondition("kafka consumer is closed");
  internal::PartitionList list = internal::ToPartitionList(partitions);
  if (rd_kafka_resp_err_t err = rd_kafka_pause_partitions(impl_->rk, list.get())) {
    return Status::Unavailable(std::string("pause: ") + rd_kafka_err2str(err));
  }
  return PartitionStatus(list.get(), "pause");
}

Status KafkaConsumer::Resume(const std::vector<TopicPartition>& partitions) {
  if (impl_->closed) return Status::FailedPrecondition("kafka consumer is closed");
  internal::PartitionList list = internal::ToPartitionList(partitions);
  if (rd_kafka_resp_err_t err = rd_kafka_resume_partitions(impl_->rk, list.get())) {
    return Status::Unavailable(std::string("resume: ") + rd_kafka_err2str(err));
  }
  Status status = PartitionStatus(list.get(), "resume");
  if (status.ok()) SeekToPositions(partitions);
  return status;
}

void KafkaConsumer::SeekToPositions(const std::vector<TopicPartition>& partitions) {
  // librdkafka 2.0 applies a resume on its main thread and does not wake the broker thread
  // that fetches the partition: an idle broker thread (nothing else to fetch, no answer
  // due) sleeps up to a second before it sees the partition fetchable again. A seek wakes
  // it. Pausing dropped the records fetched ahead, so the seek goes to the position (the
  // record after the last one Poll returned), where the resume would go anyway; a
  // partition with no position yet is left to the resume's own start.
  internal::PartitionList positions = internal::ToPartitionList(partitions);
  if (rd_kafka_position(impl_->rk, positions.get()) != RD_KAFKA_RESP_ERR_NO_ERROR) return;
  internal::PartitionList seek(rd_kafka_topic_partition_list_new(positions->cnt));
  for (int i = 0; i < positions->cnt; ++i) {
    const rd_kafka_topic_partition_t& p = positions->elems[i];
    if (p.err != RD_KAFKA_RESP_ERR_NO_ERROR || p.offset < 0) continue;
    rd_kafka_topic_partition_list_add(seek.get(), p.topic, p.partition)->offset = p.offset;
  }
  if (seek->cnt == 0) return;
  // Timeout 0: started here, reported nowhere; a failed seek leaves the resume as it was.
  if (rd_kafka_error_t* error = rd_kafka_seek_partitions(impl_->rk, seek.get(), 0)) {
    rd_kafka_error_destroy(error);
  }
}

Status KafkaConsumer::StoreOffset(const TopicPartition& tp, int64_t next_offset) {
  if (impl_->closed) return Status::FailedPrecondition("kafka consumer is closed");
  if (next_offset < 0) {
    return Status::InvalidArgument("store offset for " + tp.ToString() + ": offset " +
                                   std::to_string(next_offset) + " is negative");
  }
  internal::PartitionList list = internal::ToPartitionList({tp});
  list->elems[0].offset = next_offset;
  const rd_kafka_resp_err_t err = rd_kafka_offsets_store(impl_->rk, list.get());
  Status per_partition = PartitionStatus(list.get(), "store offset for");
  if (!per_partition.ok()) return per_partition;
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return Status::FailedPrecondition("store offset for " + tp.ToString() + ": " +
                                      rd_kafka_err2str(err));
  }
  return Status::Ok();
}

Status KafkaConsumer::CommitSync() {
  if (impl_->closed) return Status::FailedPrecondition("kafka consumer is closed");
  return impl_->Commit("commit_sync", /*retry_while_rebalancing=*/false);
}

Status KafkaConsumer::CommitOffsets(const std::map<TopicPartition, OffsetAndMetadata>& offsets,
                                    bool wait) {
  if (impl_->closed) return Status::FailedPrecondition("kafka consumer is closed");
  if (offsets.empty()) return Status::Ok();
  internal::PartitionList list = internal::ToOffsetList(offsets);
  if (wait) return impl_->Commit("commit_offsets", /*retry_while_rebalancing=*/true, list.get());
  const rd_kafka_resp_err_t err = rd_kafka_commit(impl_->rk, list.get(), /*async=*/1);
  if (err == RD_KAFKA_RESP_ERR_NO_ERROR) return Status::Ok();
  return Status::Unavailable(std::string("commit offsets: ") + rd_kafka_err2str(err));
}

Result<std::map<TopicPartition, OffsetAndMetadata>> KafkaConsumer::CommittedWithMetadata(
    const std::vector<TopicPartition>& partitions, std::chrono::milliseconds timeout) {
  if (impl_->closed) return Status::FailedPrecondition("kafka consumer is closed");
  internal::PartitionList list = internal::ToPartitionList(partitions);
  const rd_kafka_resp_err_t err =
      rd_kafka_committed(impl_->rk, list.get(), static_cast<int>(timeout.count()));
  if (err == RD_KAFKA_RESP_ERR__TIMED_OUT) {
    return Status::DeadlineExceeded("committed offsets: no answer from the group coordinator in " +
                                    std::to_string(timeout.count()) + " ms");
  }
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return Status::Unavailable(std::string("committed offsets: ") + rd_kafka_err2str(err));
  }
  return internal::FromOffsetList(list.get());
}

Result<std::map<TopicPartition, int64_t>> KafkaConsumer::Committed(
    const std::vector<TopicPartition>& partitions, std::chrono::milliseconds timeout) {
  auto committed = CommittedWithMetadata(partitions, timeout);
  if (!committed.ok()) return committed.status();
  std::map<TopicPartition, int64_t> out;
  for (const auto& [tp, o] : *committed) out[tp] = o.offset;
  return out;
}

std::map<TopicPartition, int64_t> KafkaConsumer::CachedHighWatermarks(
    const std::vector<TopicPartition>& partitions) const {
  std::map<TopicPartition, int64_t> out;
  if (impl_->closed) return out;
  for (const TopicPartition& tp : partitions) {
    int64_t low = -1;
    int64_t high = -1;
    const rd_kafka_resp_err_t err =
        rd_kafka_get_watermark_offsets(impl_->rk, tp.topic.c_str(), tp.partition, &low, &high);
    if (err == RD_KAFKA_RESP_ERR_NO_ERROR && high >= 0) out[tp] = high;
  }
  return out;
}

std::vector<TopicPartition> KafkaConsumer::Assignment() const {
  if (impl_->closed) return {};
  rd_kafka_topic_partition_list_t* list = nullptr;
  if (rd_kafka_assignment(impl_->rk, &list) != RD_KAFKA_RESP_ERR_NO_ERROR) return {};
  internal::PartitionList owned(list);
  return internal::FromPartitionList(list);
}

KafkaConsumer::Stats KafkaConsumer::stats() const {
  const Impl& s = *impl_;
  return {s.consumed.load(), s.errors.load(), s.assigned.load(),
          s.revoked.load(),  s.lost.load(),   s.commit_failures.load()};
}

void KafkaConsumer::Close() {
  Impl& s = *impl_;
  if (s.closing) return;
  s.closing = true;
  // The asynchronous close runs the revoke path one last time (listener, commit) and leaves
  // the group; serving its queue ourselves lets us stop waiting at close_timeout, where
  // rd_kafka_consumer_close would wait for an unreachable coordinator until the session ends.
  rd_kafka_queue_t* closing_queue = rd_kafka_queue_new(s.rk);
  bool closed_cleanly = false;
  if (rd_kafka_error_t* error = rd_kafka_consumer_close_queue(s.rk, closing_queue)) {
    SNOWCAR_LOG(kWarn, "kafka.consumer.close_failed", {{"error", rd_kafka_error_string(error)}});
    rd_kafka_error_destroy(error);
  } else {
    const auto deadline = SteadyClock::now() + s.close_timeout;
    while (!(closed_cleanly = rd_kafka_consumer_closed(s.rk)) && SteadyClock::now() < deadline) {
      rd_kafka_event_t* event = rd_kafka_queue_poll(closing_queue, 100);
      if (event == nullptr) continue;
      if (rd_kafka_event_type(event) == RD_KAFKA_EVENT_REBALANCE) {
        Impl::OnRebalance(s.rk, rd_kafka_event_error(event),
                          rd_kafka_event_topic_partition_list(event), &s);
      }
      rd_kafka_event_destroy(event);
    }
    if (!closed_cleanly) {
      SNOWCAR_LOG(kWarn, "kafka.consumer.close_timed_out",
                  {{"timeout_ms", static_cast<int64_t>(s.close_timeout.count())}});
    }
  }
  rd_kafka_queue_destroy(closing_queue);
  {
    std::lock_guard lock(s.wake_mu);
    rd_kafka_queue_destroy(s.queue);
    s.queue = nullptr;
  }
  if (s.cooperative && !s.synced && rd_kafka_version() < 0x020300ff) {
    // librdkafka before 2.3.0 aborts destroying a cooperative-sticky member whose JoinGroup was
    // answered but whose first SyncGroup was not: the sticky assignor's state is still null
    // and its destroy asserts on it (librdkafka #4312, fixed by #4381). Nothing here says
    // whether the JoinGroup was answered, so a member that never got an assignment is left
    // undestroyed: it has left the group (or is past the close timeout), holds no partition,
    // and its threads end with the process.
    SNOWCAR_LOG(kWarn, "kafka.consumer.not_destroyed",
                {{"librdkafka", rd_kafka_version_str()},
                 {"why", "closed before its first assignment under cooperative-sticky"}});
  } else if (closed_cleanly) {
    rd_kafka_destroy(s.rk);
  } else {
    // librdkafka's teardown still waits for the commits it has in flight, which wait for the
    // unreachable coordinator until the session times out. Let that happen off the caller's
    // thread: with NO_CONSUMER_CLOSE no consumer callback (none of which may outlive us) runs
    // during it, and the log callback uses no state of ours.
    std::thread([rk = s.rk] {
      rd_kafka_destroy_flags(rk, RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE);
    }).detach();
  }
  s.rk = nullptr;
  s.closed = true;
  SNOWCAR_LOG(kInfo, "kafka.consumer.closed",
              {{"consumed", s.consumed.load()}, {"clean", closed_cleanly}});
}

}  // namespace snowcar::kafka
