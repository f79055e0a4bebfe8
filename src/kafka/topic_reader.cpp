// SPDX-License-Identifier: Apache-2.0
#include "snowcar/kafka/topic_reader.h"

#include <librdkafka/rdkafka.h>

#include <algorithm>

#include "client_config.h"
#include "record_convert.h"

namespace snowcar::kafka {
namespace {

using Clock = std::chrono::steady_clock;

struct HandleDeleter {
  void operator()(rd_kafka_t* rk) const {
    rd_kafka_consumer_close(rk);
    rd_kafka_destroy(rk);
  }
};
struct MetadataDeleter {
  void operator()(const rd_kafka_metadata_t* md) const { rd_kafka_metadata_destroy(md); }
};
struct TopicDeleter {
  void operator()(rd_kafka_topic_t* rkt) const { rd_kafka_topic_destroy(rkt); }
};

}  // namespace

Result<std::map<TopicPartition, int64_t>> ReadToEnd(
    const TopicReadOptions& options, const std::function<void(const InRecord&)>& on_record) {
  const auto deadline = Clock::now() + options.timeout;
  const auto left_ms = [&] {
    return static_cast<int>(std::max<int64_t>(
        1, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count()));
  };
  const auto properties = internal::MergeProperties(
      options.properties,
      {{"group.id", options.client_id},
       {"client.id", internal::ClientId(options.properties, options.client_id)},
       {"enable.auto.commit", "false"},
       {"enable.partition.eof", "false"}},
      internal::ClientKind::kConsumer);
  SNOWCAR_ASSIGN_OR_RETURN(internal::ConfPtr conf, internal::BuildConf(properties));
  internal::RouteLogs(conf.get());
  char err[512];
  rd_kafka_t* raw = rd_kafka_new(RD_KAFKA_CONSUMER, conf.get(), err, sizeof err);
  if (raw == nullptr) return Status::Internal("kafka reader: " + internal::Clean(err));
  (void)conf.release();  // rd_kafka_new took it
  const std::unique_ptr<rd_kafka_t, HandleDeleter> rk(raw);
  rd_kafka_poll_set_consumer(rk.get());

  std::map<TopicPartition, int64_t> ends;  // where each partition's read is now
  std::map<TopicPartition, int64_t> high;  // where each unfinished partition ends
  internal::PartitionList assign(rd_kafka_topic_partition_list_new(16));
  for (const auto& topic : options.topics) {
    const std::unique_ptr<rd_kafka_topic_t, TopicDeleter> rkt(
        rd_kafka_topic_new(rk.get(), topic.c_str(), nullptr));
    const rd_kafka_metadata_t* raw_md = nullptr;
    const rd_kafka_resp_err_t merr = rd_kafka_metadata(rk.get(), 0, rkt.get(), &raw_md, left_ms());
    const std::unique_ptr<const rd_kafka_metadata_t, MetadataDeleter> md(raw_md);
    if (merr != RD_KAFKA_RESP_ERR_NO_ERROR || md->topic_cnt != 1 || md->topics[0].err != 0) {
      return Status::Unavailable("no metadata for topic " + topic + ": " + rd_kafka_err2str(merr));
    }
    for (int i = 0; i < md->topics[0].partition_cnt; ++i) {
      const TopicPartition tp{topic, md->topics[0].partitions[i].id};
      int64_t low = 0;
      int64_t hi = 0;
      const rd_kafka_resp_err_t werr = rd_kafka_query_watermark_offsets(
          rk.get(), topic.c_str(), tp.partition, &low, &hi, left_ms());
      if (werr != RD_KAFKA_RESP_ERR_NO_ERROR) {
        return Status::Unavailable("no offsets for " + tp.ToString() + ": " +
                                   rd_kafka_err2str(werr));
      }
      const auto it = options.from.find(tp);
      const int64_t start = it != options.from.end() ? it->second : low;
      ends[tp] = start;
      if (start < hi) {
        high[tp] = hi;
        rd_kafka_topic_partition_list_add(assign.get(), topic.c_str(), tp.partition)->offset =
            start;
      }
    }
  }
  const rd_kafka_resp_err_t aerr = rd_kafka_assign(rk.get(), assign.get());
  if (aerr != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return Status::Unavailable(std::string("assign: ") + rd_kafka_err2str(aerr));
  }

  size_t remaining = high.size();
  while (remaining > 0) {
    if (Clock::now() >= deadline) {
      return Status::DeadlineExceeded("reading the topics took longer than " +
                                      std::to_string(options.timeout.count()) + " ms; " +
                                      std::to_string(remaining) + " partition(s) unfinished");
    }
    rd_kafka_message_t* m = rd_kafka_consumer_poll(rk.get(), 100);
    if (m == nullptr) continue;
    if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      InRecord record = internal::ToInRecord(m);
      const TopicPartition tp{record.topic, record.partition};
      const auto hit = high.find(tp);
      int64_t& end = ends[tp];
      if (hit != high.end() && record.offset >= end && record.offset < hit->second) {
        end = record.offset + 1;
        on_record(record);
        if (end >= hit->second) --remaining;
      }
    }
    rd_kafka_message_destroy(m);
  }
  return ends;
}

}  // namespace snowcar::kafka
