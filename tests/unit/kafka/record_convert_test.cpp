// SPDX-License-Identifier: Apache-2.0
#include "kafka/record_convert.h"

#include <gtest/gtest.h>

namespace snowcar::kafka::internal {
namespace {

TEST(ToRdHeaders, KeepsOrderRepeatsEmptyAndNullValues) {
  const Headers in = {{"k", "v"}, {"empty", ""}, {"null", std::nullopt}, {"k", "v2"}};
  rd_kafka_headers_t* h = ToRdHeaders(in);
  ASSERT_EQ(rd_kafka_header_cnt(h), in.size());
  const char* name = nullptr;
  const void* value = nullptr;
  size_t size = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    ASSERT_EQ(rd_kafka_header_get_all(h, i, &name, &value, &size), RD_KAFKA_RESP_ERR_NO_ERROR);
    EXPECT_EQ(name, in[i].key);
    if (in[i].value.has_value()) {
      ASSERT_NE(value, nullptr) << in[i].key;
      EXPECT_EQ(std::string(static_cast<const char*>(value), size), *in[i].value);
    } else {
      EXPECT_EQ(value, nullptr) << in[i].key;
    }
  }
  rd_kafka_headers_destroy(h);
}

TEST(PartitionList, RoundTrips) {
  const std::vector<TopicPartition> in = {{"a", 0}, {"b", 7}};
  PartitionList list = ToPartitionList(in);
  ASSERT_EQ(list->cnt, 2);
  EXPECT_EQ(FromPartitionList(list.get()), in);
  EXPECT_TRUE(FromPartitionList(nullptr).empty());
}

}  // namespace
}  // namespace snowcar::kafka::internal
