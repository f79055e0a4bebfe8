// SPDX-License-Identifier: Apache-2.0
// Conversions between snowcar's plain record values and librdkafka's C structures.
#pragma once

#include <librdkafka/rdkafka.h>

#include <map>
#include <memory>
#include <vector>

#include "snowcar/kafka/record.h"

namespace snowcar::kafka::internal {

// A new librdkafka header list (caller owns it until rd_kafka_producev takes it). A null
// header value stays null, an empty one stays empty.
rd_kafka_headers_t* ToRdHeaders(const Headers& headers);

// Copies a consumed message (which must carry no error) into an InRecord.
InRecord ToInRecord(const rd_kafka_message_t* message);

struct PartitionListDeleter {
  void operator()(rd_kafka_topic_partition_list_t* list) const {
    rd_kafka_topic_partition_list_destroy(list);
  }
};
using PartitionList = std::unique_ptr<rd_kafka_topic_partition_list_t, PartitionListDeleter>;

PartitionList ToPartitionList(const std::vector<TopicPartition>& partitions);
std::vector<TopicPartition> FromPartitionList(const rd_kafka_topic_partition_list_t* list);
// With offsets and metadata, both ways.
PartitionList ToOffsetList(const std::map<TopicPartition, OffsetAndMetadata>& offsets);
std::map<TopicPartition, OffsetAndMetadata> FromOffsetList(
    const rd_kafka_topic_partition_list_t* list);

}  // namespace snowcar::kafka::internal
