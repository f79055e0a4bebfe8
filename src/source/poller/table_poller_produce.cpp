// SPDX-License-Identifier: Apache-2.0
// The table poller's produce side: a page's rows become records in the produce window, Kafka's
// acknowledgements move the committable cursor, and the cursor commits with its dedup entries.
#include <algorithm>
#include <array>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/post.hpp>
#include <boost/json.hpp>
#include <boost/json/monotonic_resource.hpp>
#include <utility>

#include "../exactly_once/table_transaction.h"
#include "../rows/page_request.h"
#include "backfill_run.h"
#include "poller_detail.h"
#include "snowcar/api/readiness.h"
#include "snowcar/common/log.h"
#include "snowcar/common/time.h"
#include "snowcar/servicenow/instance_gate.h"
#include "snowcar/servicenow/outcome_table.h"
#include "snowcar/source/rows/keyset_query.h"
#include "snowcar/source/rows/record_builder.h"
#include "snowcar/source/rows/row.h"
#include "startup_probe.h"
#include "table_poller.h"

namespace snowcar::source {

using namespace poller_detail;  // the helpers the poller's files share

namespace {
// How often a failing state commit is tried again (OnCommitFailed). A full disk is freed by a
// person or a cleanup job, not in milliseconds; a second keeps the log and the disk quiet.
constexpr std::chrono::milliseconds kCommitRetry{1000};
}  // namespace

void TablePoller::AcceptPage(const boost::json::array& rows) {
  AcceptInto(plan_, /*backfill_range=*/false, queued_pages_.emplace_back(), rows);
}

void TablePoller::AcceptInto(PollPlan& plan, bool backfill_range, QueuedPage& page,
                             const servicenow::TableResponse& answer,
                             std::optional<int64_t> total) {
  // The rows come as text when the request asked for it and the body had the plain list
  // shape; any other list answer the client parsed whole.
  if (answer.rows.empty()) {
    AcceptInto(plan, backfill_range, page, answer.row_texts, total);
  } else {
    AcceptInto(plan, backfill_range, page, answer.rows, total);
  }
}

// Every row is checked, built into its records and the plan moved over the whole page before
// any of it is produced, so the next page can be requested at once (Pump).
void TablePoller::AcceptInto(PollPlan& plan, bool backfill_range, QueuedPage& page,
                             const boost::json::array& rows, std::optional<int64_t> total) {
  const int64_t extracted_at = NowMs();
  page.accepted.reserve(rows.size());
  for (const boost::json::value& row : rows) {
    if (!AcceptRow(plan, backfill_range, page, row, extracted_at)) return;
  }
  if (Status s = plan.OnPage(rows.size(), total); !s.ok()) Fail(Label() + ": " + s.message());
}

void TablePoller::AcceptInto(PollPlan& plan, bool backfill_range, QueuedPage& page,
                             const servicenow::RowTexts& rows, std::optional<int64_t> total) {
  const int64_t extracted_at = NowMs();
  page.accepted.reserve(rows.size());
  // One row parsed at a time into a buffer that is used again for the next, so a page never
  // exists as one parsed tree and a row's parse allocates nothing (a row larger than the
  // buffer takes the rest from the heap, for that row only).
  std::array<unsigned char, 16384> buffer{};
  for (size_t i = 0; i < rows.size(); ++i) {
    boost::json::monotonic_resource memory(buffer.data(), buffer.size());
    boost::json::error_code ec;
    boost::json::value row = boost::json::parse(rows[i], ec, &memory);
    // The client checked the whole body; a row that does not parse here is a bad row all the
    // same, never a crash.
    if (ec) row = nullptr;
    if (!AcceptRow(plan, backfill_range, page, row, extracted_at)) return;
  }
  if (Status s = plan.OnPage(rows.size(), total); !s.ok()) Fail(Label() + ": " + s.message());
}

bool TablePoller::AcceptRow(PollPlan& plan, bool backfill_range, QueuedPage& page,
                            const boost::json::value& value, int64_t extracted_at) {
  const boost::json::object* row = value.if_object();
  Result<RowKey> key = row != nullptr ? ReadRowKey(*row, *deps_.table)
                                      : Result<RowKey>(Status::InvalidArgument(
                                            Label() + ": a row of the page is not a JSON object"));
  if (!key.ok()) {
    if (deps_.source->bad_row == BadRowBehavior::kFail) {
      Fail(key.status().message());
      return false;
    }
    status_.rows_skipped.fetch_add(1);
    SNOWCAR_LOG(kWarn, "source.bad_row_skipped",
                {{"table", deps_.table->alias}, {"error", key.status().message()}});
    return true;
  }
  if (Status s = plan.Accept(key->ts, key->sys_id); !s.ok()) {
    Fail(Label() + " (" + deps_.table->name + "): " + s.message());
    return false;
  }
  QueuedRow& q = page.accepted.emplace_back();
  q.ts = key->ts;
  q.sys_id = std::string(key->sys_id);
  q.mod_count = key->mod_count;
  // Only the echo lookup reads it (Echo): no field lookup per row when it never runs.
  q.carries_mod_count =
      deps_.options.echo != EchoMode::kOff && !deps_.deletes && CarriesModCount(*row);
  // A backfill range's plan reads only backfill rows; the table's own plan says per row.
  q.phase = backfill_range ? state::Phase::kBackfill : plan.phase();
  q.built = RecordsFor(*row, *key, extracted_at, q.records);
  return true;
}

EchoVerdict TablePoller::Echo(const QueuedRow& row, std::vector<kafka::OutRecord>& records) {
  // A deletes stream's records are not row versions the sink wrote.
  if (deps_.options.echo == EchoMode::kOff || deps_.deletes) return EchoVerdict::kForeign;
  Status error;
  const EchoVerdict verdict =
      ApplyEcho(*deps_.store, deps_.options.echo, deps_.source->instance, *deps_.table,
                row.carries_mod_count, row.key(), records, &error);
  if (!error.ok()) {
    SNOWCAR_LOG(kWarn, "source.echo.lookup_failed",
                {{"table", deps_.table->alias}, {"error", error.message()}});
  }
  if (verdict == EchoVerdict::kMarked) status_.echo_marked.fetch_add(1);
  if (verdict == EchoVerdict::kSuppressed) status_.echo_suppressed.fetch_add(1);
  return verdict;
}

bool TablePoller::ProduceRow(QueuedRow& row, AckTracker::Ticket ticket) {
  std::vector<kafka::OutRecord> records = std::move(row.records);
  if (!row.built.ok()) {
    // A typed value that does not parse: the bad-row policy, as for a row without a usable id
    // or timestamp. A skipped row still moves the cursor, and its version enters the dedup
    // index so the overlap's re-reads do not skip it again.
    if (deps_.source->bad_row == BadRowBehavior::kFail) {
      Fail(row.built.message());
      return false;
    }
    status_.rows_skipped.fetch_add(1);
    SNOWCAR_LOG(kWarn, "source.bad_row_skipped",
                {{"table", deps_.table->alias}, {"error", row.built.message()}});
    window_->Insert(row.ts, row.sys_id, row.mod_count);
    AckTicket(ticket);
    return true;
  }
  if (Echo(row, records) == EchoVerdict::kSuppressed) {
    // The sink's own version stays out of the topic, but counts as read: its dedup entry and
    // the cursor move on as if it had been delivered.
    window_->Insert(row.ts, row.sys_id, row.mod_count);
    AckTicket(ticket);
    return true;
  }
  state::DedupKey dedup{row.ts, row.sys_id, row.mod_count};
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
      state::Cursor position{q.ts, q.sys_id, q.phase};
      if (window_->Contains(q.ts, q.sys_id, q.mod_count)) {
        status_.duplicates_suppressed.fetch_add(1);
        tracker_.Ack(tracker_.Add(std::move(position)));
        q.records = {};  // give the records' memory back early
      } else if (!ProduceRow(q, tracker_.Add(std::move(position)))) {
        return;
      }
    }
    if (page.next < page.accepted.size()) break;  // the window is full: OnDelivery resumes
    queued_pages_.pop_front();
    Pump();  // room for the next page
  }
  if (backfill_) ProduceBackfillQueued();
  MaybeCommit(false);
  // A sweep can end on a page that is still queued (its own count finished the range), and a
  // page of re-read rows settles here without any delivery report: publish once it is gone.
  PublishWatermark();
}

void TablePoller::OnDelivery(uint64_t generation, AckTracker::Ticket ticket,
                             const state::DedupKey& key, const kafka::DeliveryReport& report) {
  if (in_flight_ > 0) --in_flight_;
  if (report.status.ok()) {
    // Only now is the row in Kafka: from here on a re-read of it is a duplicate.
    if (window_) window_->Insert(key);
    if (deps_.transaction) deps_.transaction->NoteEntry(key);
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
  if (deps_.transaction) {
    MaybeCommitTransaction(force);
    return;
  }
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
  CommitToStore(cursor, now);
}

// Both commit paths end here (MaybeCommit, and MaybeCommitTransaction once Kafka holds the
// page): the cursor and the dedup entries into the store, then the table's status.
void TablePoller::CommitToStore(const state::Cursor& cursor,
                                std::chrono::steady_clock::time_point now) {
  // The ids of the acknowledged rows go into the reconciliation's id set first. The commit
  // prunes dedup entries older than cursor - overlap, and after a kill -9 a sweep takes an id
  // that is in neither the set nor the dedup index for a row never emitted and emits it
  // again: every row acknowledged since the last flush, not one page. Ids in the set before
  // their entries are committed only say what the row stream re-emits anyway. The notes
  // stay: a sweep checks a held row against them until its own next flush (DropSuperseded),
  // and between this write and the commit the entries are not in the store yet.
  FlushEmitted(/*keep_notes=*/true);
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
