// SPDX-License-Identifier: Apache-2.0
#include "pending_list.h"

namespace snowcar::kafka::internal {

void PendingList::PushBack(PendingRecord* record) {
  record->prev = tail_;
  record->next = nullptr;
  if (tail_ != nullptr) {
    tail_->next = record;
  } else {
    head_ = record;
  }
  tail_ = record;
  ++size_;
}

void PendingList::Remove(PendingRecord* record) {
  if (record->prev != nullptr) {
    record->prev->next = record->next;
  } else {
    head_ = record->next;
  }
  if (record->next != nullptr) {
    record->next->prev = record->prev;
  } else {
    tail_ = record->prev;
  }
  record->prev = record->next = nullptr;
  --size_;
}

size_t PendingList::CountBelow(uint64_t limit) const {
  size_t n = 0;
  for (const PendingRecord* r = head_; r != nullptr && r->seq < limit; r = r->next) ++n;
  return n;
}

}  // namespace snowcar::kafka::internal
