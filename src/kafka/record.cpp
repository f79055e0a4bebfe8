// SPDX-License-Identifier: Apache-2.0
#include "snowcar/kafka/record.h"

namespace snowcar::kafka {

const Header* FindHeader(const Headers& headers, std::string_view key) {
  for (const auto& h : headers) {
    if (h.key == key) return &h;
  }
  return nullptr;
}

std::string TopicPartition::ToString() const { return topic + "/" + std::to_string(partition); }

}  // namespace snowcar::kafka
