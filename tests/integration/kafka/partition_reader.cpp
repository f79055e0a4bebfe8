// SPDX-License-Identifier: Apache-2.0
#include "partition_reader.h"

#include <librdkafka/rdkafka.h>

#include "kafka/record_convert.h"

namespace snowcar::kafka::testing {

Result<std::vector<InRecord>> ReadFromStart(const std::string& bootstrap, const std::string& topic,
                                            int partitions, size_t count,
                                            std::chrono::milliseconds timeout) {
  char errstr[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), errstr, sizeof errstr);
  rd_kafka_conf_set(conf, "enable.partition.eof", "false", errstr, sizeof errstr);
  // The consumer queue needs a group id, but assign() never joins the group: no 3 s wait.
  const std::string group = "reader-" + topic;
  rd_kafka_conf_set(conf, "group.id", group.c_str(), errstr, sizeof errstr);
  rd_kafka_conf_set(conf, "enable.auto.commit", "false", errstr, sizeof errstr);
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof errstr);
  if (rk == nullptr) {
    rd_kafka_conf_destroy(conf);
    return Status::Internal(std::string("test reader: ") + errstr);
  }
  rd_kafka_poll_set_consumer(rk);
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(partitions);
  for (int p = 0; p < partitions; ++p) {
    rd_kafka_topic_partition_list_add(list, topic.c_str(), p)->offset = RD_KAFKA_OFFSET_BEGINNING;
  }
  rd_kafka_assign(rk, list);
  rd_kafka_topic_partition_list_destroy(list);

  std::vector<InRecord> out;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  // Once `count` arrived, keep reading a short while so a duplicate would show up too.
  std::chrono::steady_clock::time_point extra_until{};
  while (true) {
    const auto now = std::chrono::steady_clock::now();
    if (out.size() >= count) {
      if (extra_until == std::chrono::steady_clock::time_point{}) {
        extra_until = now + std::chrono::milliseconds(300);
      }
      if (now >= extra_until) break;
    } else if (now >= deadline) {
      break;
    }
    rd_kafka_message_t* m = rd_kafka_consumer_poll(rk, 50);
    if (m == nullptr) continue;
    if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) out.push_back(internal::ToInRecord(m));
    rd_kafka_message_destroy(m);
  }
  rd_kafka_consumer_close(rk);
  rd_kafka_destroy(rk);
  if (out.size() < count) {
    return Status::DeadlineExceeded("read " + std::to_string(out.size()) + " of " +
                                    std::to_string(count) + " records of " + topic);
  }
  return out;
}

}  // namespace snowcar::kafka::testing
