// SPDX-License-Identifier: Apache-2.0
// The producer's book of records that have no delivery report yet, in Produce() order.
//
// An intrusive doubly linked list: adding and removing a record costs no allocation and no
// search, which matters on the producer's hot path (one insert per Produce, one removal per
// report). Produce() order gives Flush its answer in O(1): every record produced before a
// given point has its report once the oldest record left is younger than that point.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include "snowcar/kafka/producer.h"

namespace snowcar::kafka::internal {

struct PendingRecord {
  uint64_t seq = 0;                                   // Produce() order
  std::chrono::steady_clock::time_point produced_at;  // Produce() call: the produce latency
  std::string topic;
  boost::asio::any_io_executor executor;
  DeliveryCallback done;
  PendingRecord* prev = nullptr;  // owned by PendingList
  PendingRecord* next = nullptr;
};

// Does not own its records. Not thread-safe: the producer guards it with its mutex.
class PendingList {
 public:
  void PushBack(PendingRecord* record);
  void Remove(PendingRecord* record);

  bool empty() const { return head_ == nullptr; }
  size_t size() const { return size_; }
  PendingRecord* front() const { return head_; }
  // True when no record with seq < limit is left.
  bool DoneBelow(uint64_t limit) const { return head_ == nullptr || head_->seq >= limit; }
  // How many records with seq < limit are left (walks them: for error messages only).
  size_t CountBelow(uint64_t limit) const;

 private:
  PendingRecord* head_ = nullptr;
  PendingRecord* tail_ = nullptr;
  size_t size_ = 0;
};

}  // namespace snowcar::kafka::internal
