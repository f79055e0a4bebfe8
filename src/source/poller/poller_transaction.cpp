// SPDX-License-Identifier: Apache-2.0
// The table poller's commit under exactly-once: the open Kafka transaction (a page's records)
// commits with the table's new state as its last record, and only then is the state store
// written (docs/semantics.md, "Exactly-once").
#include <boost/asio/bind_executor.hpp>

#include "../exactly_once/table_transaction.h"
#include "poller_detail.h"
#include "snowcar/common/log.h"
#include "table_poller.h"

namespace snowcar::source {

using poller_detail::SortsAfter;

void TablePoller::MaybeCommitTransaction(bool force) {
  exactly_once::TableTransaction& txn = *deps_.transaction;
  if (txn.fenced()) return;
  if (auto prefix = tracker_.TakeCommittable()) {
    if (SortsAfter(*prefix, committable_)) {
      committable_ = std::move(*prefix);
      cursor_dirty_ = true;
    }
  }
  // A record without its report may still fail: the transaction waits for every one. At a
  // stop past its deadline (ForceFinish) they are given up: the abort hides them and the
  // next start reads them again.
  if (in_flight_ > 0) {
    if (force && stopping_) {
      const kafka::TransactionResult aborted = txn.Abort();
      SNOWCAR_LOG(kWarn, "source.transaction_aborted_at_stop",
                  {{"table", deps_.table->alias},
                   {"in_flight", static_cast<int64_t>(in_flight_)},
                   {"error", aborted.status.message()}});
    }
    return;
  }
  if (produce_failed_) {
    // A record of the transaction failed: Kafka would refuse the commit; abort at once.
    const kafka::TransactionResult aborted = txn.Abort();
    OnTransactionFailed(
        txn.fenced() ? aborted.status : Status::Unavailable("a record of the transaction failed"),
        txn.fenced());
    return;
  }
  if (!cursor_dirty_ && window_->pending() == 0 && !txn.open()) return;
  const auto now = std::chrono::steady_clock::now();
  const bool full = window_->pending() >= ProduceWindow();
  const bool drained = queued_pages_.empty();
  if (!force && !full) {
    if (!drained) return;  // more of the page is produced before the commit
    const int64_t interval = deps_.source->transaction_interval_ms;
    const auto due = last_commit_ + std::chrono::milliseconds(interval);
    if (interval > 0 && now < due) {
      // transaction.boundary=interval: the transaction stays open until it is due.
      if (!commit_retry_armed_ && !stopping_ && !failed_) {
        commit_retry_armed_ = true;
        commit_retry_.expires_at(due);
        commit_retry_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
          self->commit_retry_armed_ = false;
          if (ec || self->stopping_ || self->failed_) return;
          self->MaybeCommit(true);
          self->ProduceQueued();
          self->Pump();
        });
      }
      return;
    }
  }
  state::Cursor cursor = committable_;
  cursor.phase = plan_.phase();
  const kafka::TransactionResult committed = txn.Commit(cursor, strand_);
  if (!committed.ok()) {
    OnTransactionFailed(committed.status, txn.fenced());
    return;
  }
  // Kafka holds the page and its state: the store follows. A store that cannot be written
  // is behind the state topic, which the next start restores from.
  CommitToStore(cursor, now);
  PublishWatermark();  // the finished sweep's rows are readable now (audit_poller.cpp)
}

void TablePoller::OnTransactionFailed(const Status& status, bool stop) {
  status_.retries.fetch_add(1);
  if (stop) {
    // Fenced (another process took the table's transactional id) or a producer that cannot
    // go on: a new producer would fence whoever holds the id now, so the table stops here.
    Fail(Label() +
         ": exactly-once producer stopped for good (fenced or fatal); this process "
         "never produces for the table again: " +
         status.message());
    return;
  }
  // Nothing of the transaction is visible to read_committed readers: forget what it
  // acknowledged (the window and the tracker) and read again from the committed cursor.
  auto window = deps_.store->LoadDedupWindow(identity_, deps_.source->dedup_policy());
  if (!window.ok()) {
    Fail(Label() +
         ": reloading the dedup window after an aborted transaction: " + window.status().message());
    return;
  }
  window_ = std::move(window).value();
  tracker_.Reset();
  ++generation_;
  cursor_dirty_ = false;
  committable_ = committed_;
  finished_hi_ = RowWatermark::kNone;  // that sweep's rows are not in Kafka after all
  status_.SetLastError(Label() + ": Kafka transaction aborted: " + status.message());
  SNOWCAR_LOG(kWarn, "source.transaction_aborted",
              {{"table", deps_.table->alias}, {"error", status.message()}});
  // Pump re-reads from the committed cursor after a back-off (RecoverFromProduceFailure).
  if (!stopping_ && !failed_) produce_failed_ = true;
}

}  // namespace snowcar::source
