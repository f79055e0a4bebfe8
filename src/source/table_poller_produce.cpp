// SPDX-License-Identifier: Apache-2.0
// The table poller's produce side: a page's rows become records in the produce window, Kafka's
// acknowledgements move the committable cursor, and the cursor commits with its dedup entries.
#include <algorithm>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/post.hpp>
#include <boost/json.hpp>
#include <utility>

#include "backfill_run.h"
#include "page_request.h"
#include "poller_detail.h"
#include "snowcar/api/readiness.h"
#include "snowcar/common/log.h"
#include "snowcar/common/time.h"
#include "snowcar/servicenow/instance_gate.h"
#include "snowcar/servicenow/outcome_table.h"
#include "snowcar/source/keyset_query.h"
#include "snowcar/source/record_builder.h"
#include "snowcar/source/row.h"
#include "startup_probe.h"
#include "table_poller.h"

namespace snowcar::source {

using namespace poller_detail;  // the helpers the poller's files share

namespace {
// How often a failing state commit is tried again (OnCommitFailed). A full disk is freed by a
// person or a cleanup job, not in milliseconds; a second keeps the log and the disk quiet.
constexpr std::chrono::milliseconds kCommitRetry{1000};
}  // namespace

void TablePoller::AcceptPage(boost::json::array rows) {
  AcceptInto(plan_, /*backfill_range=*/false, queued_pages_.emplace_back(), std::move(rows));
}

void TablePoller::AcceptInto(PollPlan& plan, bool backfill_range, QueuedPage& page,
                             boost::json::array rows) {
  // Every row is checked and the plan moves over the whole page before any of it is
  // produced, so the next page can be requested at once (Pump). The queued keys view into
  // the page's rows, which stay in place (deque elements do not move) until produced.
  page.rows = std::move(rows);
  page.extracted_at = NowMs();
  page.accepted.reserve(page.rows.size());
  for (size_t i = 0; i < page.rows.size(); ++i) {
    const boost::json::object* row = page.rows[i].if_object();
    Result<RowKey> key = row != nullptr
                             ? ReadRowKey(*row, *deps_.table)
                             : Result<RowKey>(Status::InvalidArgument(
                                   Label() + ": a row of the page is not a JSON object"));
    if (!key.ok()) {
      if (deps_.source->bad_row == BadRowBehavior::kFail) {
        Fail(key.status().message());
        return;
      }
      status_.rows_skipped.fetch_add(1);
      SNOWCAR_LOG(kWarn, "source.bad_row_skipped",
                  {{"table", deps_.table->alias}, {"error", key.status().message()}});
      continue;
    }
    if (Status s = plan.Accept(key->ts, key->sys_id); !s.ok()) {
      Fail(Label() + " (" + deps_.table->name + "): " + s.message());
      return;
    }
    // A backfill range's plan reads only backfill rows; the table's own plan says per row.
    page.accepted.push_back(
        QueuedRow{i, *key, backfill_range ? state::Phase::kBackfill : plan.phase()});
  }
  if (Status s = plan.OnPage(page.rows.size()); !s.ok()) Fail(Label() + ": " + s.message());
}

EchoVerdict TablePoller::Echo(const boost::json::object& row, const RowKey& key,
                              std::vector<kafka::OutRecord>& records) {
  // A deletes stream's records are not row versions the sink wrote.
  if (deps_.options.echo == EchoMode::kOff || deps_.deletes) return EchoVerdict::kForeign;
  Status error;
  const EchoVerdict verdict = ApplyEcho(*deps_.store, deps_.options.echo, deps_.source->instance,
                                        *deps_.table, row, key, records, &error);
  if (!error.ok()) {
    SNOWCAR_LOG(kWarn, "source.echo.lookup_failed",
                {{"table", deps_.table->alias}, {"error", error.message()}});
  }
  if (verdict == EchoVerdict::kMarked) status_.echo_marked.fetch_add(1);
  if (verdict == EchoVerdict::kSuppressed) status_.echo_suppressed.fetch_add(1);
  return verdict;
}

bool TablePoller::ProduceRow(const boost::json::object& row, const RowKey& key,
                             int64_t extracted_at, AckTracker::Ticket ticket) {
  std::vector<kafka::OutRecord> records;
  if (Status s = RecordsFor(row, key, extracted_at, records); !s.ok()) {
    // A typed value that does not parse: the bad-row policy, as for a row without a usable id
    // or timestamp. A skipped row still moves the cursor, and its version enters the dedup
    // index so the overlap's re-reads do not skip it again.
    if (deps_.source->bad_row == BadRowBehavior::kFail) {
      Fail(s.message());
      return false;
    }
    status_.rows_skipped.fetch_add(1);
    SNOWCAR_LOG(kWarn, "source.bad_row_skipped",
                {{"table", deps_.table->alias}, {"error", s.message()}});
    window_->Insert(key.ts, key.sys_id, key.mod_count);
    AckTicket(ticket);
    return true;
  }
  if (Echo(row, key, records) == EchoVerdict::kSuppressed) {
    // The sink's own version stays out of the topic, but counts as read: its dedup entry and
    // the cursor move on as if it had been delivered.
    window_->Insert(key.ts, key.sys_id, key.mod_count);
    AckTicket(ticket);
    return true;
  }
  state::DedupKey dedup{key.ts, std::string(key.sys_id), key.mod_count};
  ++in_flight_;
  ProduceRecords(std::move(records), ticket, std::move(dedup));
  return true;
}

size_t TablePoller::ProduceWindow() const {
  return static_cast<size_t>(std::max(1, deps_.table->batch_size));
}

void TablePoller::ProduceQueued() {
  // The sliding window: rows produced but not yet durable in RocksDB (in flight, or
  // acknowledged with their dedup entries still pending) never exceed one page's worth. Those
  // are exactly the rows a kill -9 can re-emit, so the crash bound stays one page per table
  // (docs/semantics.md), while the pipeline never drains at a page boundary.
  const size_t window = ProduceWindow();
  while (!queued_pages_.empty() && !stopping_ && !failed_ && !produce_failed_ && window_) {
    QueuedPage& page = queued_pages_.front();
    while (page.next < page.accepted.size() && in_flight_ + window_->pending() < window) {
      QueuedRow& q = page.accepted[page.next++];
      state::Cursor position{q.key.ts, std::string(q.key.sys_id), q.phase};
      if (window_->Contains(q.key.ts, q.key.sys_id, q.key.mod_count)) {
        status_.duplicates_suppressed.fetch_add(1);
        tracker_.Ack(tracker_.Add(std::move(position)));
      } else if (!ProduceRow(page.rows[q.index].get_object(), q.key, page.extracted_at,
                             tracker_.Add(std::move(position)))) {
        return;
      }
      // The record holds its own copy now: give the parsed row's memory back early.
      page.rows[q.index].emplace_null();
    }
    if (page.next < page.accepted.size()) break;  // the window is full: OnDelivery resumes
    queued_pages_.pop_front();
    Pump();  // room for the next page
  }
  if (backfill_) ProduceBackfillQueued();
  MaybeCommit(false);
}

void TablePoller::OnDelivery(uint64_t generation, AckTracker::Ticket ticket,
                             const state::DedupKey& key, const kafka::DeliveryReport& report) {
  if (in_flight_ > 0) --in_flight_;
  if (report.status.ok()) {
    // Only now is the row in Kafka: from here on a re-read of it is a duplicate.
    if (window_) window_->Insert(key);
    NoteDelivered(key);
    status_.rows_emitted.fetch_add(1);
    if (generation == generation_) AckTicket(ticket);
  } else {
    if (generation == generation_) FailTicket(ticket);
    // The decision table's Kafka produce failure row (docs/outcomes.md).
    const servicenow::Action action =
        servicenow::DecideProduceFailure(servicenow::CallPurpose::kGetPage);
    if (action == servicenow::Action::kStopTable && !stopping_ && !failed_) {
      Fail(Label() + ": Kafka delivery failed: " + report.status.message());
    } else if (!produce_failed_ && !stopping_ && !failed_) {
      // kHold: back off and re-read from the committed cursor (RecoverFromProduceFailure).
      produce_failed_ = true;
      status_.retries.fetch_add(1);
      status_.SetLastError(Label() + ": Kafka delivery failed: " + report.status.message());
      SNOWCAR_LOG(kWarn, "source.produce_failed",
                  {{"table", deps_.table->alias}, {"error", report.status.message()}});
    }
  }
  if (window_) MaybeCommit(false);
  if (stopping_) {
    if (in_flight_ == 0) FinishStop();
    return;
  }
  ProduceQueued();
  PublishWatermark();
  Pump();
}

void TablePoller::RecoverFromProduceFailure() {
  MaybeCommit(true);      // the prefix acknowledged before the failed row
  queued_pages_.clear();  // re-read after the back-off, from the committed cursor
  tracker_.Reset();
  ++generation_;
  produce_failed_ = false;
  finished_hi_ = RowWatermark::kNone;  // that sweep's rows are not all in Kafka
  cursor_dirty_ = false;
  committable_ = committed_;
  plan_.Restore(committed_);  // rows acknowledged after it are in the window: suppressed
  ResetRangesAfterFailure();
  rewind_pending_ = false;
  idle_wait_ = false;
  BackOff(status_.Read().last_error, /*retry_probe=*/false);
}

void TablePoller::MaybeCommit(bool force) {
  if (!window_) return;
  if (backfill_ && !backfill_->ranges.empty()) {
    MaybeCommitBackfill(force);
    return;
  }
  if (auto prefix = tracker_.TakeCommittable()) {
    // After a rewind the re-read rows stand before the cursor already committed: the
    // cursor never moves back.
    if (SortsAfter(*prefix, committable_)) {
      committable_ = std::move(*prefix);
      cursor_dirty_ = true;
    }
  }
  if (!cursor_dirty_ && window_->pending() == 0) return;
  const auto now = std::chrono::steady_clock::now();
  // Commit well before the produce window fills, so ProduceQueued never waits for a commit.
  const size_t every =
      std::min(deps_.options.commit_every_rows, std::max<size_t>(1, ProduceWindow() / 4));
  if (!force && in_flight_ > 0 && window_->pending() < every &&
      now - last_commit_ < std::chrono::milliseconds(deps_.options.commit_interval_ms)) {
    return;
  }
  state::Cursor cursor = committable_;
  cursor.phase = plan_.phase();
  if (Status s = deps_.store->Commit(identity_, cursor, *window_); !s.ok()) {
    OnCommitFailed(s);
    return;  // the entries stay pending; the next commit retries
  }
  if (!commit_error_.empty()) {
    SNOWCAR_LOG(kInfo, "source.commit_resumed", {{"table", deps_.table->alias}});
    commit_error_.clear();
  }
  committed_ = cursor;
  cursor_dirty_ = false;
  last_commit_ = now;
  status_.commits.fetch_add(1);
  status_.SetCursor(committed_);
}

// A failed commit (a full state.dir, a disk error) leaves the cursor and the dedup entries of
// the acknowledged rows pending in memory. Producing goes on until the window holds batch.size rows
// that are not durable, then the table waits: the kill -9 bound stays one page. Nothing else
// would call MaybeCommit once the produce window is full and every report is in, so a timer
// retries until a commit goes through, then produce and fetch resume.
void TablePoller::OnCommitFailed(const Status& status) {
  if (status.message() != commit_error_) {
    SNOWCAR_LOG(kWarn, "source.commit_failed",
                {{"table", deps_.table->alias},
                 {"pending_rows", static_cast<int64_t>(window_->pending())},
                 {"error", status.message()}});
  }
  commit_error_ = status.message();
  status_.SetLastError(Label() + ": state commit failed, retrying every " +
                       std::to_string(kCommitRetry.count()) + " ms: " + status.message());
  if (commit_retry_armed_ || stopping_ || failed_) return;
  commit_retry_armed_ = true;
  commit_retry_.expires_after(kCommitRetry);
  commit_retry_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    self->commit_retry_armed_ = false;
    if (ec || self->stopping_ || self->failed_) return;
    self->MaybeCommit(true);
    if (!self->commit_error_.empty()) return;  // failed again: re-armed
    self->ProduceQueued();
    self->Pump();
  });
}

}  // namespace snowcar::source
