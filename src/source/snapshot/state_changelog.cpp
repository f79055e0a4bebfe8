// SPDX-License-Identifier: Apache-2.0
#include "state_changelog.h"

#include <librdkafka/rdkafka.h>

#include <thread>

#include "../../kafka/client_config.h"
#include "../../kafka/record_convert.h"
#include "snowcar/common/log.h"

namespace snowcar::source {
namespace {

using SteadyClock = std::chrono::steady_clock;

int Ms(std::chrono::milliseconds d) {
  return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(d.count(), INT32_MAX)));
}

std::chrono::milliseconds Left(SteadyClock::time_point deadline) {
  return std::max(
      std::chrono::milliseconds(0),
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now()));
}

// One end-offset request's budget: a leader answers in milliseconds; a request that has no
// answer by then went to a broker that is gone, and is sent again to the leader the
// refreshed metadata names.
constexpr std::chrono::milliseconds kAttempt{2000};
// One metadata request's: one that goes unanswered (sent to a broker just stopping) costs
// this and leaves the cache as it was; the end-offset request then finds out.
constexpr std::chrono::milliseconds kRefresh{1000};
// How long a read may see nothing before it asks where the leader is now.
constexpr std::chrono::milliseconds kQuiet{1000};

// Errors no leader change explains: asking again cannot help (a missing ACL, a partition
// the topic does not have). Everything else (not leader, leader not available, an offset a
// new leader cannot give yet, no answer from a stopped broker) is asked again.
bool Permanent(rd_kafka_resp_err_t err) {
  switch (err) {
    case RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED:
    case RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED:
    case RD_KAFKA_RESP_ERR_GROUP_AUTHORIZATION_FAILED:
    case RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION:
    case RD_KAFKA_RESP_ERR__INVALID_ARG:
      return true;
    default:
      return false;
  }
}

}  // namespace

struct StateChangelog::Impl {
  rd_kafka_t* rk = nullptr;
  ~Impl() {
    if (rk != nullptr) {
      rd_kafka_consumer_close(rk);
      rd_kafka_destroy(rk);
    }
  }

  // Partition count of `topic`, 0 when the cluster does not know it. Asks for every topic
  // rather than this one: naming it would let the broker auto-create it with its default
  // partition count, which is the one thing that must not happen here.
  Result<int32_t> PartitionCount(const std::string& topic, std::chrono::milliseconds timeout) {
    const rd_kafka_metadata_t* md = nullptr;
    rd_kafka_resp_err_t err = rd_kafka_metadata(rk, 1, nullptr, &md, Ms(timeout));
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      return Status::Unavailable("kafka metadata for topic '" + topic +
                                 "': " + rd_kafka_err2str(err));
    }
    int32_t count = 0;
    for (int i = 0; i < md->topic_cnt; ++i) {
      if (topic == md->topics[i].topic && md->topics[i].err == RD_KAFKA_RESP_ERR_NO_ERROR) {
        count = md->topics[i].partition_cnt;
      }
    }
    rd_kafka_metadata_destroy(md);
    return count;
  }

  // Asks a broker that is up for the topic's metadata now. librdkafka caches partition
  // leaders and refreshes them on its own only after some errors or every
  // topic.metadata.refresh.interval.ms (5 min): after a broker stopped (or came back and
  // leads again) this idle reader would keep asking the old leader. The answer updates the
  // cache, which moves this consumer's fetches to the new leader too.
  void RefreshLeaders(const std::string& topic, std::chrono::milliseconds timeout) {
    rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk, topic.c_str(), nullptr);
    if (rkt == nullptr) return;
    const rd_kafka_metadata_t* md = nullptr;
    if (rd_kafka_metadata(rk, 0, rkt, &md, Ms(timeout)) == RD_KAFKA_RESP_ERR_NO_ERROR) {
      rd_kafka_metadata_destroy(md);
    }
    rd_kafka_topic_destroy(rkt);
  }

  // The partition's end offset (the offset the next record gets), asked of its leader with
  // fresh metadata and asked again until `deadline` while the error is one a leader change
  // explains. Not rd_kafka_query_watermark_offsets: librdkafka 2.0.2's gives up at the first
  // "not leader" (a restore then fell back to older local state and re-emitted rows), and
  // towards a stopped broker it resends to that same broker without end, past its own
  // timeout (a restore that never finished). rd_kafka_offsets_for_times keeps its timeout.
  Result<int64_t> EndOffset(const std::string& topic, int32_t partition,
                            SteadyClock::time_point deadline) {
    const std::string where = topic + "/" + std::to_string(partition);
    auto backoff = std::chrono::milliseconds(100);
    for (int attempt = 1;; ++attempt) {
      RefreshLeaders(topic, std::min(Left(deadline), kRefresh));
      kafka::internal::PartitionList list(rd_kafka_topic_partition_list_new(1));
      rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), partition)->offset =
          RD_KAFKA_OFFSET_END;  // as a ListOffsets timestamp: the latest offset
      rd_kafka_resp_err_t err =
          rd_kafka_offsets_for_times(rk, list.get(), Ms(std::min(Left(deadline), kAttempt)));
      if (err == RD_KAFKA_RESP_ERR_NO_ERROR) err = list->elems[0].err;
      if (err == RD_KAFKA_RESP_ERR_NO_ERROR) {
        if (attempt > 1) {
          SNOWCAR_LOG(kInfo, "source.group.restore_leader_found",
                      {{"partition", where}, {"attempts", attempt}});
        }
        return list->elems[0].offset;
      }
      if (Permanent(err) || Left(deadline) <= backoff) {
        return Status::Unavailable("end offset of " + where + ": " + rd_kafka_err2str(err) + " (" +
                                   std::to_string(attempt) + " attempts)");
      }
      SNOWCAR_LOG(kDebug, "source.group.restore_retry",
                  {{"partition", where}, {"attempt", attempt}, {"error", rd_kafka_err2name(err)}});
      std::this_thread::sleep_for(backoff);
      backoff = std::min(backoff * 2, std::chrono::milliseconds(1000));
    }
  }

  Status Create(const TopicRequirement& topic, std::chrono::milliseconds timeout) {
    char errstr[512];
    rd_kafka_NewTopic_t* nt =
        rd_kafka_NewTopic_new(topic.name.c_str(), topic.partitions, -1, errstr, sizeof errstr);
    if (nt == nullptr) return Status::InvalidArgument("topic '" + topic.name + "': " + errstr);
    if (topic.compacted) (void)rd_kafka_NewTopic_set_config(nt, "cleanup.policy", "compact");
    rd_kafka_AdminOptions_t* options = rd_kafka_AdminOptions_new(rk, RD_KAFKA_ADMIN_OP_ANY);
    (void)rd_kafka_AdminOptions_set_request_timeout(options, Ms(timeout), errstr, sizeof errstr);
    rd_kafka_queue_t* answers = rd_kafka_queue_new(rk);
    rd_kafka_CreateTopics(rk, &nt, 1, options, answers);
    rd_kafka_event_t* event = rd_kafka_queue_poll(answers, Ms(timeout) + 1000);
    Status result = Status::Ok();
    if (event == nullptr) {
      result = Status::DeadlineExceeded("no answer");
    } else if (rd_kafka_event_error(event) != RD_KAFKA_RESP_ERR_NO_ERROR) {
      result = Status::Unavailable(kafka::internal::Clean(rd_kafka_event_error_string(event)));
    } else if (const rd_kafka_CreateTopics_result_t* r =
                   rd_kafka_event_CreateTopics_result(event)) {
      size_t n = 0;
      const rd_kafka_topic_result_t** topics = rd_kafka_CreateTopics_result_topics(r, &n);
      for (size_t i = 0; i < n; ++i) {
        rd_kafka_resp_err_t err = rd_kafka_topic_result_error(topics[i]);
        if (err != RD_KAFKA_RESP_ERR_NO_ERROR && err != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) {
          const char* why = rd_kafka_topic_result_error_string(topics[i]);
          result = Status::Unavailable(why != nullptr ? why : rd_kafka_err2str(err));
        }
      }
    }
    if (event != nullptr) rd_kafka_event_destroy(event);
    rd_kafka_queue_destroy(answers);
    rd_kafka_AdminOptions_destroy(options);
    rd_kafka_NewTopic_destroy(nt);
    return result;
  }
};

Result<std::unique_ptr<StateChangelog>> StateChangelog::Create(
    const std::map<std::string, std::string>& kafka_properties, std::string restore_group) {
  // A group.id is needed for assign() and consumer_poll, but this consumer never subscribes,
  // so it never joins (or disturbs) any group, and it never commits.
  auto properties = kafka::internal::MergeProperties(kafka_properties, {},
                                                     kafka::internal::ClientKind::kConsumer);
  properties["group.id"] = std::move(restore_group);
  properties["enable.auto.commit"] = "false";
  properties["enable.partition.eof"] = "true";
  properties["auto.offset.reset"] = "earliest";
  // Restores read one partition after another. The broker holds a fetch with nothing new for
  // up to fetch.wait.max.ms (500 ms by default), and the next partition's first fetch waits
  // behind it: a short wait keeps a many-table restore from costing half a second per table.
  properties["fetch.wait.max.ms"] = "10";
  properties["client.id"] = kafka::internal::ClientId(kafka_properties, "snowcar-source-restore");
  properties.erase("partition.assignment.strategy");
  properties.erase("group.instance.id");
  SNOWCAR_ASSIGN_OR_RETURN(kafka::internal::ConfPtr conf, kafka::internal::BuildConf(properties));
  kafka::internal::RouteLogs(conf.get());
  auto impl = std::make_unique<Impl>();
  char errstr[512];
  impl->rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf.get(), errstr, sizeof errstr);
  if (impl->rk == nullptr) {
    return Status::InvalidArgument("cannot create the source state reader: " +
                                   kafka::internal::Clean(errstr));
  }
  (void)conf.release();
  rd_kafka_poll_set_consumer(impl->rk);
  return std::unique_ptr<StateChangelog>(new StateChangelog(std::move(impl)));
}

StateChangelog::StateChangelog(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
StateChangelog::~StateChangelog() = default;

Status StateChangelog::EnsureTopic(const TopicRequirement& topic,
                                   std::chrono::milliseconds timeout) {
  const auto deadline = SteadyClock::now() + timeout;
  SNOWCAR_ASSIGN_OR_RETURN(int32_t count, impl_->PartitionCount(topic.name, Left(deadline)));
  if (count == 0) {
    Status created = impl_->Create(topic, Left(deadline));
    if (!created.ok()) {
      return Status::FailedPrecondition(
          "topic '" + topic.name + "' does not exist and could not be created (" +
          created.message() + "); create it with " + std::to_string(topic.partitions) +
          " partitions" + (topic.compacted ? " and cleanup.policy=compact" : ""));
    }
    SNOWCAR_LOG(kInfo, "source.group.topic_created",
                {{"topic", topic.name}, {"partitions", topic.partitions}});
    // The new topic reaches every broker's metadata shortly after the answer.
    while (count == 0 && SteadyClock::now() < deadline) {
      SNOWCAR_ASSIGN_OR_RETURN(count, impl_->PartitionCount(topic.name, Left(deadline)));
    }
  }
  if (count < topic.partitions) {
    return Status::FailedPrecondition(
        "topic '" + topic.name + "' has " + std::to_string(count) + " partitions but " +
        std::to_string(topic.partitions) +
        " tables need one each (partition i = i-th alias in sorted order); add partitions "
        "or use a new source.group.id");
  }
  return Status::Ok();
}

Status StateChangelog::Scan(const std::string& topic, int32_t partition,
                            std::chrono::milliseconds timeout, const Visitor& visit,
                            int64_t* records_read) {
  rd_kafka_t* rk = impl_->rk;
  const auto deadline = SteadyClock::now() + timeout;
  const std::string where = topic + "/" + std::to_string(partition);
  SNOWCAR_ASSIGN_OR_RETURN(const int64_t high, impl_->EndOffset(topic, partition, deadline));
  if (high <= 0) return Status::Ok();
  // From the partition's first offset, which the consumer asks of the leader itself.
  kafka::internal::PartitionList list(rd_kafka_topic_partition_list_new(1));
  rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), partition)->offset =
      RD_KAFKA_OFFSET_BEGINNING;
  rd_kafka_resp_err_t err = rd_kafka_assign(rk, list.get());
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return Status::Unavailable("reading " + where + ": " + rd_kafka_err2str(err));
  }
  int64_t read = 0;
  bool done = false;
  auto last_seen = SteadyClock::now();
  Status status = Status::Ok();
  while (!done) {
    if (SteadyClock::now() >= deadline) {
      status = Status::DeadlineExceeded("reading " + where + " to offset " + std::to_string(high) +
                                        ": still short after " + std::to_string(timeout.count()) +
                                        " ms");
      break;
    }
    rd_kafka_message_t* m = rd_kafka_consumer_poll(rk, 100);
    if (m == nullptr) {
      // Nothing for a while: the leader may have moved since the end offset was asked.
      if (SteadyClock::now() - last_seen >= kQuiet) {
        impl_->RefreshLeaders(topic, std::min(Left(deadline), kRefresh));
        last_seen = SteadyClock::now();
      }
      continue;
    }
    last_seen = SteadyClock::now();
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      done = m->offset >= high - 1 || m->offset >= high;
    } else if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      SNOWCAR_LOG(kWarn, "source.group.restore_read_error",
                  {{"partition", where}, {"error", rd_kafka_err2name(m->err)}});
    } else {
      ++read;
      const std::string_view k(static_cast<const char*>(m->key), m->key_len);
      if (m->payload == nullptr) {
        visit(k, nullptr);
      } else {
        const std::string_view v(static_cast<const char*>(m->payload), m->len);
        visit(k, &v);
      }
      done = m->offset >= high - 1;
    }
    rd_kafka_message_destroy(m);
  }
  (void)rd_kafka_assign(rk, nullptr);
  if (records_read != nullptr) *records_read += read;
  return status;
}

Result<std::optional<std::string>> StateChangelog::ReadLatest(const std::string& topic,
                                                              int32_t partition,
                                                              const std::string& key,
                                                              std::chrono::milliseconds timeout,
                                                              int64_t* records_read) {
  std::optional<std::string> latest;
  SNOWCAR_RETURN_IF_ERROR(Scan(
      topic, partition, timeout,
      [&](std::string_view k, const std::string_view* value) {
        if (k != key) return;
        if (value == nullptr) {
          latest.reset();
        } else {
          latest.emplace(*value);
        }
      },
      records_read));
  return latest;
}

}  // namespace snowcar::source
