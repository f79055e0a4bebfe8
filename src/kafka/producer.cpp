// SPDX-License-Identifier: Apache-2.0
#include "snowcar/kafka/producer.h"

#include <librdkafka/rdkafka.h>
#include <pthread.h>

#include <atomic>
#include <boost/asio/post.hpp>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <utility>
#include <vector>

#include "client_check.h"
#include "client_config.h"
#include "delivery_error.h"
#include "pending_list.h"
#include "record_convert.h"
#include "snowcar/common/log.h"
#include "transaction_error.h"

namespace snowcar::kafka {
namespace {

using internal::PendingRecord;
using SteadyClock = std::chrono::steady_clock;

// How long Close waits for librdkafka to hand back the reports of purged records before it
// destroys the handle and cancels whatever is left itself.
constexpr std::chrono::seconds kPurgeGrace{5};
// The poll thread's wait for events; also bounds how late it notices a stop request or
// retries the queue-full FIFO when no report frees room.
constexpr int kPollMs = 100;
// Delivery reports taken from one librdkafka event at a time.
constexpr size_t kReportBatch = 512;

void Post(PendingRecord& record, DeliveryReport report) {
  // post() never runs the handler inline, so this is safe under a lock.
  boost::asio::post(record.executor,
                    [done = std::move(record.done), report = std::move(report)]() mutable {
                      done(std::move(report));
                    });
}

}  // namespace

struct KafkaProducer::Impl {
  // A record refused with QUEUE_FULL, waiting for room in librdkafka.
  struct Waiting {
    OutRecord record;
    PendingRecord* pending;
  };

  rd_kafka_t* rk = nullptr;
  rd_kafka_queue_t* events = nullptr;  // the main queue: delivery reports, statistics, errors
  std::thread poller;
  std::atomic<bool> stop_polling{false};
  std::function<void(int)> on_client_error;      // set before the poll thread starts
  std::vector<const rd_kafka_message_t*> batch;  // poll thread only
  struct Finished {
    PendingRecord* record;
    bool ok;
    double seconds;  // from Produce() to the report
  };
  std::vector<Finished> finished_in_batch;  // poll thread only

  // Guards `rk` against destruction while MetadataReachable uses it.
  std::shared_mutex handle_mu;
  // Serialises Close() calls.
  std::mutex close_mu;
  bool closed = false;  // REQUIRES: close_mu held

  mutable std::mutex mu;
  std::condition_variable reported;  // records left `pending`
  // Every record without a report, wherever it is (FIFO or librdkafka). Owns them.
  internal::PendingList pending;  // REQUIRES: mu held
  std::deque<Waiting> waiting;    // REQUIRES: mu held. The queue-full FIFO.
  uint64_t next_seq = 0;          // REQUIRES: mu held
  bool closing = false;           // REQUIRES: mu held. Produce() cancels at once.
  bool draining = true;           // REQUIRES: mu held. The FIFO may still be retried.
  Stats stats;                    // REQUIRES: mu held
  std::string statistics_json;    // REQUIRES: mu held

  ~Impl() {
    if (events != nullptr) rd_kafka_queue_destroy(events);
    if (rk != nullptr) rd_kafka_destroy(rk);
  }

  // Hands one record to librdkafka. REQUIRES: mu held (keeps Produce() order across
  // threads). On success librdkafka carries `record` as the message opaque.
  rd_kafka_resp_err_t HandOver(const OutRecord& r, PendingRecord* record) {
    rd_kafka_headers_t* headers = r.headers.empty() ? nullptr : internal::ToRdHeaders(r.headers);
    rd_kafka_vu_t vu[8];
    size_t n = 0;
    vu[n].vtype = RD_KAFKA_VTYPE_TOPIC;
    vu[n++].u.cstr = r.topic.c_str();
    vu[n].vtype = RD_KAFKA_VTYPE_PARTITION;
    vu[n++].u.i32 = r.partition < 0 ? RD_KAFKA_PARTITION_UA : r.partition;
    vu[n].vtype = RD_KAFKA_VTYPE_MSGFLAGS;
    vu[n++].u.i = RD_KAFKA_MSG_F_COPY;
    if (r.key.has_value()) {
      vu[n].vtype = RD_KAFKA_VTYPE_KEY;
      vu[n].u.mem.ptr = const_cast<char*>(r.key->data());
      vu[n++].u.mem.size = r.key->size();
    }
    if (r.value.has_value()) {
      vu[n].vtype = RD_KAFKA_VTYPE_VALUE;
      vu[n].u.mem.ptr = const_cast<char*>(r.value->data());
      vu[n++].u.mem.size = r.value->size();
    }
    vu[n].vtype = RD_KAFKA_VTYPE_TIMESTAMP;
    vu[n++].u.i64 = r.timestamp_ms;
    vu[n].vtype = RD_KAFKA_VTYPE_OPAQUE;
    vu[n++].u.ptr = record;
    if (headers != nullptr) {
      vu[n].vtype = RD_KAFKA_VTYPE_HEADERS;
      vu[n++].u.headers = headers;
    }
    rd_kafka_error_t* error = rd_kafka_produceva(rk, vu, n);
    if (error == nullptr) return RD_KAFKA_RESP_ERR_NO_ERROR;  // headers now owned by rk
    const rd_kafka_resp_err_t code = rd_kafka_error_code(error);
    rd_kafka_error_destroy(error);
    if (headers != nullptr) rd_kafka_headers_destroy(headers);
    return code;
  }

  // Posts the report, forgets the record and frees it. REQUIRES: mu held.
  void FinishLocked(PendingRecord* record, DeliveryReport report) {
    const bool ok = report.status.ok();
    Post(*record, std::move(report));
    pending.Remove(record);
    ++(ok ? stats.delivered : stats.failed);
    delete record;
    reported.notify_all();
  }

  // Moves records from the queue-full FIFO into librdkafka until it refuses again.
  // Runs on the poll thread after each event, when reports may have freed room.
  void DrainWaiting() {
    std::lock_guard lock(mu);
    while (draining && !waiting.empty()) {
      Waiting& front = waiting.front();
      const rd_kafka_resp_err_t err = HandOver(front.record, front.pending);
      if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) return;
      --stats.queued;
      if (err == RD_KAFKA_RESP_ERR_NO_ERROR) {
        ++stats.in_flight;
      } else {
        FinishLocked(front.pending,
                     {internal::DeliveryStatus(err, front.record.topic, front.record.partition)});
      }
      waiting.pop_front();
    }
  }

  // A batch of delivery reports: post each to its executor without holding `mu` (so Produce
  // is not held up), then settle the books for the whole batch under one lock.
  void OnDeliveryReports(rd_kafka_event_t* event) {
    batch.resize(kReportBatch);
    size_t n;
    while ((n = rd_kafka_event_message_array(event, batch.data(), batch.size())) > 0) {
      finished_in_batch.clear();
      const SteadyClock::time_point now = SteadyClock::now();
      for (size_t i = 0; i < n; ++i) {
        const rd_kafka_message_t* msg = batch[i];
        auto* record = static_cast<PendingRecord*>(msg->_private);
        DeliveryReport report;
        report.status = internal::DeliveryStatus(msg->err, record->topic, msg->partition);
        report.partition = msg->partition;
        report.offset = msg->err == RD_KAFKA_RESP_ERR_NO_ERROR ? msg->offset : -1;
        finished_in_batch.push_back(
            {record, report.status.ok(),
             std::chrono::duration<double>(now - record->produced_at).count()});
        Post(*record, std::move(report));
      }
      {
        std::lock_guard lock(mu);
        for (const Finished& f : finished_in_batch) {
          pending.Remove(f.record);
          --stats.in_flight;
          ++(f.ok ? stats.delivered : stats.failed);
          if (f.ok) stats.produce_seconds.Observe(f.seconds);
        }
        reported.notify_all();
      }
      for (const Finished& f : finished_in_batch) delete f.record;
    }
  }

  void PollLoop() {
    while (!stop_polling.load(std::memory_order_acquire)) {
      rd_kafka_event_t* event = rd_kafka_queue_poll(events, kPollMs);
      if (event != nullptr) {
        switch (rd_kafka_event_type(event)) {
          case RD_KAFKA_EVENT_DR:
            OnDeliveryReports(event);
            break;
          case RD_KAFKA_EVENT_STATS: {
            std::lock_guard lock(mu);
            statistics_json = rd_kafka_event_stats(event);
            break;
          }
          case RD_KAFKA_EVENT_ERROR: {
            const int err = rd_kafka_event_error_is_fatal(event) ? RD_KAFKA_RESP_ERR__FATAL
                                                                 : rd_kafka_event_error(event);
            internal::LogClientError(rk, err, rd_kafka_event_error_string(event));
            if (on_client_error) on_client_error(err);
            break;
          }
          default:
            break;
        }
        rd_kafka_event_destroy(event);
      }
      DrainWaiting();
    }
  }
};

namespace {

// The final properties and the conf built from them: every check Create makes before a
// client exists, shared with CheckOptions.
Result<internal::ConfPtr> PrepareConf(const ProducerOptions& options, internal::Dropped dropped,
                                      std::map<std::string, std::string>& properties) {
  const auto& user = options.properties;
  SNOWCAR_RETURN_IF_ERROR(internal::CheckAliasConflicts(user));
  if (user.contains("transactional.id") && options.transactional_id.empty()) {
    return Status::InvalidArgument(
        "kafka property 'transactional.id' is not supported: snowcar's producer is idempotent, "
        "not transactional");
  }
  // librdkafka's own byte bound is 1 GiB: a sidecar sized for 64 MiB must not be able to
  // queue that much. 32 MiB is six pages of 5000 rows of about 1 KB; what does not fit waits
  // in the queue-full FIFO (docs/kafka-clients.md).
  std::map<std::string, std::string> defaults = {{"partitioner", "murmur2_random"},
                                                 {"queue.buffering.max.kbytes", "32768"}};
  if (options.idempotent) {
    defaults.emplace("enable.idempotence", "true");
    defaults.emplace("acks", "all");
  }
  if (options.statistics_interval_ms > 0) {
    defaults.emplace("statistics.interval.ms", std::to_string(options.statistics_interval_ms));
  }
  properties = internal::MergeProperties(user, defaults, internal::ClientKind::kProducer, dropped);
  properties["client.id"] = internal::ClientId(user, options.client_id);
  if (!options.transactional_id.empty()) {
    properties["transactional.id"] = options.transactional_id;
    properties["enable.idempotence"] = "true";
    properties["acks"] = "all";
  }
  return internal::BuildConf(properties);
}

}  // namespace

Status KafkaProducer::CheckOptions(const ProducerOptions& options) {
  std::map<std::string, std::string> properties;
  SNOWCAR_ASSIGN_OR_RETURN(internal::ConfPtr conf,
                           PrepareConf(options, internal::Dropped::kQuiet, properties));
  return internal::CreateClientOffline(RD_KAFKA_PRODUCER, std::move(conf));
}

Result<std::unique_ptr<KafkaProducer>> KafkaProducer::Create(const ProducerOptions& options) {
  std::map<std::string, std::string> properties;
  SNOWCAR_ASSIGN_OR_RETURN(internal::ConfPtr conf,
                           PrepareConf(options, internal::Dropped::kLog, properties));

  auto impl = std::make_unique<Impl>();
  internal::RouteLogs(conf.get());
  // Reports, statistics and errors arrive as events on the main queue, which the producer
  // thread polls: a whole batch of reports per wake-up instead of one callback per record.
  rd_kafka_conf_set_events(conf.get(),
                           RD_KAFKA_EVENT_DR | RD_KAFKA_EVENT_STATS | RD_KAFKA_EVENT_ERROR);
  impl->on_client_error = options.on_client_error;
  char errstr[512];
  impl->rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf.get(), errstr, sizeof errstr);
  if (impl->rk == nullptr) {
    return Status::InvalidArgument("cannot create the kafka producer: " + internal::Clean(errstr));
  }
  (void)conf.release();  // rd_kafka_new took it
  impl->events = rd_kafka_queue_get_main(impl->rk);
  Impl* raw = impl.get();
  impl->poller = std::thread([raw] {
    pthread_setname_np(pthread_self(), "snowcar-produce");  // see per-thread CPU (top -H)
    raw->PollLoop();
  });
  SNOWCAR_LOG(kInfo, "kafka.producer.created",
              {{"client_id", properties["client.id"]},
               {"idempotent", properties["enable.idempotence"] == "true"},
               {"partitioner", properties["partitioner"]}});
  return std::unique_ptr<KafkaProducer>(new KafkaProducer(std::move(impl)));
}

KafkaProducer::KafkaProducer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

KafkaProducer::~KafkaProducer() { Close(std::chrono::milliseconds(0)); }

void KafkaProducer::Produce(OutRecord record, boost::asio::any_io_executor executor,
                            DeliveryCallback done) {
  auto* pending = new PendingRecord;
  pending->produced_at = SteadyClock::now();
  pending->topic = record.topic;
  pending->executor = std::move(executor);
  pending->done = std::move(done);

  Impl& s = *impl_;
  std::lock_guard lock(s.mu);
  ++s.stats.produced;
  pending->seq = s.next_seq++;
  s.pending.PushBack(pending);
  if (s.closing) {
    s.FinishLocked(pending, {Status::Cancelled("produce to " + record.topic +
                                               " cancelled: the producer is closed")});
    return;
  }
  // Records behind a queue-full refusal wait their turn, so per-partition order holds.
  if (s.waiting.empty()) {
    const rd_kafka_resp_err_t err = s.HandOver(record, pending);
    if (err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      ++s.stats.in_flight;
      return;
    }
    if (err != RD_KAFKA_RESP_ERR__QUEUE_FULL) {
      s.FinishLocked(pending, {internal::DeliveryStatus(err, record.topic, record.partition)});
      return;
    }
  }
  ++s.stats.queued;
  s.waiting.push_back({std::move(record), pending});
}

TransactionResult KafkaProducer::InitTransactions(std::chrono::milliseconds timeout) {
  return internal::Classify(
      rd_kafka_init_transactions(impl_->rk, static_cast<int>(timeout.count())), "init");
}

TransactionResult KafkaProducer::BeginTransaction() {
  return internal::Classify(rd_kafka_begin_transaction(impl_->rk), "begin");
}

TransactionResult KafkaProducer::CommitTransaction(std::chrono::milliseconds timeout) {
  return internal::Classify(
      rd_kafka_commit_transaction(impl_->rk, static_cast<int>(timeout.count())), "commit");
}

TransactionResult KafkaProducer::AbortTransaction(std::chrono::milliseconds timeout) {
  return internal::Classify(
      rd_kafka_abort_transaction(impl_->rk, static_cast<int>(timeout.count())), "abort");
}

std::string KafkaProducer::ClusterId(std::chrono::milliseconds timeout) {
  char* id = rd_kafka_clusterid(impl_->rk, static_cast<int>(timeout.count()));
  std::string out = id != nullptr ? id : "";
  if (id != nullptr) rd_kafka_mem_free(impl_->rk, id);
  return out;
}

Status KafkaProducer::Flush(std::chrono::milliseconds timeout) {
  Impl& s = *impl_;
  std::unique_lock lock(s.mu);
  const uint64_t limit = s.next_seq;
  if (s.reported.wait_until(lock, SteadyClock::now() + timeout,
                            [&] { return s.pending.DoneBelow(limit); })) {
    return Status::Ok();
  }
  return Status::DeadlineExceeded(std::to_string(s.pending.CountBelow(limit)) +
                                  " record(s) still without a delivery report after " +
                                  std::to_string(timeout.count()) + " ms");
}

void KafkaProducer::Close(std::chrono::milliseconds timeout) {
  Impl& s = *impl_;
  std::lock_guard close_lock(s.close_mu);
  if (s.closed) return;
  {
    std::unique_lock lock(s.mu);
    s.closing = true;
    const uint64_t limit = s.next_seq;
    s.reported.wait_until(lock, SteadyClock::now() + timeout,
                          [&] { return s.pending.DoneBelow(limit); });
    // What never reached librdkafka is cancelled here, in Produce() order.
    s.draining = false;
    while (!s.waiting.empty()) {
      Impl::Waiting w = std::move(s.waiting.front());
      s.waiting.pop_front();
      --s.stats.queued;
      s.FinishLocked(w.pending, {internal::DeliveryStatus(RD_KAFKA_RESP_ERR__PURGE_QUEUE,
                                                          w.record.topic, w.record.partition)});
    }
  }
  // What librdkafka holds comes back through the poll thread as _PURGE_* reports.
  rd_kafka_purge(s.rk, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
  {
    std::unique_lock lock(s.mu);
    s.reported.wait_until(lock, SteadyClock::now() + kPurgeGrace,
                          [&] { return s.pending.empty(); });
  }
  s.stop_polling.store(true, std::memory_order_release);
  rd_kafka_queue_yield(s.events);
  if (s.poller.joinable()) s.poller.join();
  {
    std::unique_lock handle_lock(s.handle_mu);
    rd_kafka_queue_destroy(s.events);
    s.events = nullptr;
    rd_kafka_destroy(s.rk);
    s.rk = nullptr;
  }
  // Reports librdkafka never returned: after destroy it never will, so cancel them here.
  std::lock_guard lock(s.mu);
  while (!s.pending.empty()) {
    PendingRecord* record = s.pending.front();
    --s.stats.in_flight;
    s.FinishLocked(record, {internal::DeliveryStatus(RD_KAFKA_RESP_ERR__PURGE_INFLIGHT,
                                                     std::string(record->topic), -1)});
  }
  s.closed = true;
  SNOWCAR_LOG(kInfo, "kafka.producer.closed",
              {{"delivered", s.stats.delivered}, {"failed", s.stats.failed}});
}

bool KafkaProducer::MetadataReachable(std::chrono::milliseconds timeout) {
  Impl& s = *impl_;
  std::shared_lock lock(s.handle_mu);
  if (s.rk == nullptr) return false;
  const rd_kafka_metadata_t* md = nullptr;
  const rd_kafka_resp_err_t err =
      rd_kafka_metadata(s.rk, /*all_topics=*/0, nullptr, &md, static_cast<int>(timeout.count()));
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) return false;
  const bool any = md->broker_cnt > 0;
  rd_kafka_metadata_destroy(md);
  return any;
}

void KafkaProducer::PrepareTopics(const std::vector<std::string>& topics) {
  Impl& s = *impl_;
  std::shared_lock lock(s.handle_mu);
  if (s.rk == nullptr) return;
  for (const std::string& topic : topics) {
    // A new topic handle sends the metadata request (asynchronously); librdkafka keeps the
    // topic after the handle is released, so the first record finds its partitions known.
    if (rd_kafka_topic_t* rkt = rd_kafka_topic_new(s.rk, topic.c_str(), nullptr)) {
      rd_kafka_topic_destroy(rkt);
    }
  }
}

KafkaProducer::Stats KafkaProducer::stats() const {
  std::lock_guard lock(impl_->mu);
  return impl_->stats;
}

std::string KafkaProducer::LastStatisticsJson() const {
  std::lock_guard lock(impl_->mu);
  return impl_->statistics_json;
}

}  // namespace snowcar::kafka
