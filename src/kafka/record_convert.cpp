// SPDX-License-Identifier: Apache-2.0
#include "record_convert.h"

#include <sys/types.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace snowcar::kafka::internal {

rd_kafka_headers_t* ToRdHeaders(const Headers& headers) {
  rd_kafka_headers_t* out = rd_kafka_headers_new(headers.size());
  for (const Header& h : headers) {
    if (h.value.has_value()) {
      rd_kafka_header_add(out, h.key.data(), static_cast<ssize_t>(h.key.size()), h.value->data(),
                          static_cast<ssize_t>(h.value->size()));
    } else {
      rd_kafka_header_add(out, h.key.data(), static_cast<ssize_t>(h.key.size()), nullptr, 0);
    }
  }
  return out;
}

InRecord ToInRecord(const rd_kafka_message_t* m) {
  InRecord out;
  out.topic = rd_kafka_topic_name(m->rkt);
  out.partition = m->partition;
  out.offset = m->offset;
  if (m->key != nullptr) out.key.emplace(static_cast<const char*>(m->key), m->key_len);
  if (m->payload != nullptr) out.value.emplace(static_cast<const char*>(m->payload), m->len);
  rd_kafka_headers_t* headers = nullptr;
  if (rd_kafka_message_headers(m, &headers) == RD_KAFKA_RESP_ERR_NO_ERROR) {
    const char* name = nullptr;
    const void* value = nullptr;
    size_t size = 0;
    for (size_t i = 0;
         rd_kafka_header_get_all(headers, i, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR;
         ++i) {
      Header h{name, std::nullopt};
      if (value != nullptr) h.value.emplace(static_cast<const char*>(value), size);
      out.headers.push_back(std::move(h));
    }
  }
  rd_kafka_timestamp_type_t type = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE;
  const int64_t ts = rd_kafka_message_timestamp(m, &type);
  out.timestamp_ms = type == RD_KAFKA_TIMESTAMP_NOT_AVAILABLE ? -1 : ts;
  return out;
}

PartitionList ToPartitionList(const std::vector<TopicPartition>& partitions) {
  PartitionList list(rd_kafka_topic_partition_list_new(static_cast<int>(partitions.size())));
  for (const TopicPartition& tp : partitions) {
    rd_kafka_topic_partition_list_add(list.get(), tp.topic.c_str(), tp.partition);
  }
  return list;
}

std::vector<TopicPartition> FromPartitionList(const rd_kafka_topic_partition_list_t* list) {
  std::vector<TopicPartition> out;
  if (list == nullptr) return out;
  out.reserve(static_cast<size_t>(list->cnt));
  for (int i = 0; i < list->cnt; ++i) {
    out.push_back({list->elems[i].topic, list->elems[i].partition});
  }
  return out;
}

PartitionList ToOffsetList(const std::map<TopicPartition, OffsetAndMetadata>& offsets) {
  PartitionList list(rd_kafka_topic_partition_list_new(static_cast<int>(offsets.size())));
  for (const auto& [tp, o] : offsets) {
    rd_kafka_topic_partition_t* e =
        rd_kafka_topic_partition_list_add(list.get(), tp.topic.c_str(), tp.partition);
    e->offset = o.offset;
    if (!o.metadata.empty()) {  // freed with the list, by librdkafka's free()
      e->metadata = std::malloc(o.metadata.size());
      std::memcpy(e->metadata, o.metadata.data(), o.metadata.size());
      e->metadata_size = o.metadata.size();
    }
  }
  return list;
}

std::map<TopicPartition, OffsetAndMetadata> FromOffsetList(
    const rd_kafka_topic_partition_list_t* list) {
  std::map<TopicPartition, OffsetAndMetadata> out;
  for (int i = 0; list != nullptr && i < list->cnt; ++i) {
    const auto& e = list->elems[i];
    OffsetAndMetadata& o = out[{e.topic, e.partition}];
    o.offset = e.offset;
    if (e.metadata != nullptr) {
      o.metadata.assign(static_cast<const char*>(e.metadata), e.metadata_size);
    }
  }
  return out;
}

}  // namespace snowcar::kafka::internal
