// SPDX-License-Identifier: Apache-2.0
// The table poller's parallel backfill (docs/source.md, "Parallel backfill"). At the start of
// a sweep in the backfill phase, the backlog up to the high-water mark minus a margin is
// counted and cut into ranges of about equal rows (RangeSplitter). Each range is read by its
// own keyset plan, all at once; their rows share the table's produce window and dedup window.
// Each range's acknowledged position is committed with the cursor, which is the contiguous
// prefix of the ranges (MergedCursor). Once every range is in Kafka, the single plan goes on
// from the end of the last range.
#include <algorithm>
#include <boost/json.hpp>
#include <utility>

#include "../rows/page_request.h"
#include "backfill_run.h"
#include "poller_detail.h"
#include "snowcar/common/log.h"
#include "snowcar/common/time.h"
#include "snowcar/source/rows/row.h"
#include "table_poller.h"

namespace snowcar::source {

using namespace poller_detail;

namespace {

int64_t FloorSeconds(int64_t ms) { return ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000); }

// A range's plan: its own start point, no rewind (rows ahead of the parallel part's end are
// never re-stamped into it), the range's end as its high-water mark. A range still at its
// start knows its rows from the cut (`counted_rows` >= 0), so its last page can prove its end.
std::unique_ptr<PollPlan> RangePlan(const PollPlan& main, const state::BackfillRange& range,
                                    CountReading reading, int64_t counted_rows) {
  PlanSettings settings = main.settings();
  settings.start_ts = range.lo + 1;
  settings.overlap_seconds = 0;
  auto plan = std::make_unique<PollPlan>(settings);
  plan->set_count_reading(reading);
  const bool at_start = range.position.ts == range.lo + 1 && range.position.sys_id.empty();
  plan->Restore(at_start ? std::nullopt : std::optional<state::Cursor>(range.position));
  plan->BeginSweepTo(range.hi);
  if (at_start && counted_rows >= 0) plan->ExpectRows(counted_rows);
  return plan;
}

}  // namespace

bool TablePoller::MaybeStartBackfill() {
  // Good for the first backlog after ranges only: a later one (after an outage, an import)
  // is counted as usual.
  const double recut_rate = std::exchange(recut_rows_per_s_, -1);
  if (!try_parallel_ || deps_.source->backfill_parallelism < 2 || deps_.deletes ||
      plan_.phase() != state::Phase::kBackfill || !deps_.store->KeepsBackfillProgress()) {
    return false;
  }
  const PlannedQuery next = plan_.Next();
  if (next.shape != QueryShape::kMoveOn) return false;  // a second to finish first: one sweep
  // Every row read before must be handed to Kafka first (a later version of one of them may
  // be in the backlog) and acknowledged, so the ranges start from a clean tracker. Queued
  // pages and records in flight call Pump again when they are done.
  if (!queued_pages_.empty() || in_flight_ > 0) return true;
  // Rows acknowledged without a delivery report (duplicates the dedup window suppressed, echo
  // suppressions, skipped rows) stay in the tracker until a commit takes them, and no report
  // will come to call Pump: take them here. Waiting on them instead stalled the table for good
  // after a restart whose re-read overlap ended a sweep that fell behind (health stayed ok).
  MaybeCommit(/*force=*/false);
  if (tracker_.outstanding() > 0) return false;  // a failed row: the single sweep recovers it
  const int64_t hi = FloorSeconds(SweepClockMs() - deps_.source->safety_lag_seconds * 1000) -
                     kParallelMarginSeconds;
  try_parallel_ = false;  // one attempt per backlog; FinishBackfill allows the next
  if (hi - next.after_ts < 2) return false;
  // Right after ranges: what is left is their margin and the rows written while they ran. At
  // the rate of the backlog they read, too few to cut: no count of it, the sweep reads on.
  const double left = recut_rate * static_cast<double>(hi - next.after_ts);
  if (recut_rate >= 0 &&
      !RangeSplitter::Cuttable(static_cast<int64_t>(left), deps_.table->batch_size)) {
    return false;
  }
  backfill_ = std::make_unique<BackfillRun>();
  backfill_->id = ++backfill_runs_;
  backfill_->split_lo = next.after_ts;
  backfill_->split_hi = hi;
  backfill_->splitter.emplace(next.after_ts, hi, deps_.source->backfill_parallelism,
                              deps_.table->batch_size);
  SendSplitCounts();
  return true;
}

void TablePoller::SendSplitCounts() {
  BackfillRun& run = *backfill_;
  const std::vector<int64_t> probes = run.splitter->NextProbes();  // may settle the cuts
  if (run.splitter->done()) {
    std::vector<state::BackfillRange> ranges = run.splitter->Ranges();
    SNOWCAR_LOG(kInfo, "source.backfill_split",
                {{"table", deps_.table->alias},
                 {"from", FormatSnowTimestamp(run.split_lo)},
                 {"to", FormatSnowTimestamp(run.split_hi)},
                 {"rows", run.splitter->total()},
                 {"rounds", run.splitter->rounds()},
                 {"ranges", static_cast<int64_t>(ranges.size())}});
    if (ranges.empty()) {
      backfill_.reset();  // too small to cut: the single sweep reads it
      Pump();
      return;
    }
    run.rows_per_s = run.splitter->RowsPerSecond();
    StartRanges(std::move(ranges), run.splitter->RangeRows());
    return;
  }
  for (int64_t t : probes) {
    PlannedQuery count;
    count.shape = QueryShape::kMoveOn;
    count.after_ts = run.split_lo;
    count.hi_ts = t;
    count.count = true;
    servicenow::InstanceRequest request;
    request.target = PageTargetFor(*deps_.table, count);
    status_.SetLastRequestAt(NowMs());
    CountRequest(RequestPurpose::kCount);
    deps_.client->Send(
        std::move(request), strand_,
        [self = shared_from_this(), id = run.id, t, sent = std::chrono::steady_clock::now()](
            servicenow::CallResult result) { self->OnSplitCount(id, t, sent, std::move(result)); });
  }
}

void TablePoller::OnSplitCount(uint64_t run, int64_t t, std::chrono::steady_clock::time_point sent,
                               servicenow::CallResult result) {
  if (stopping_) {
    FinishStop();
    return;
  }
  if (failed_ || !backfill_ || backfill_->id != run || !backfill_->splitter) return;
  if (!result.ok() || !result.response.total_count) {
    // Cutting is an optimisation: on any trouble the single sweep reads the backlog (and
    // meets the trouble itself, with the table's usual handling).
    SNOWCAR_LOG(kWarn, "source.backfill_split_abandoned",
                {{"table", deps_.table->alias},
                 {"why", result.ok() ? std::string("a count came back without X-Total-Count")
                                     : result.ToStatus().message()}});
    backfill_.reset();
    Pump();
    return;
  }
  AnswerWasGood();
  const int64_t took_ms = std::max<int64_t>(
      1,
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - sent)
          .count());
  if (backfill_->fastest_count_ms == 0 || took_ms < backfill_->fastest_count_ms) {
    backfill_->fastest_count_ms = took_ms;
  }
  backfill_->splitter->OnCount(t, *result.response.total_count);
  if (t == backfill_->split_hi && !result.response.rows.empty()) {
    if (const boost::json::object* row = result.response.rows[0].if_object()) {
      if (Result<RowKey> key = ReadRowKey(*row, *deps_.table); key.ok()) {
        backfill_->splitter->OnFirstRow(key->ts);
      }
    }
  }
  SendSplitCounts();
}

void TablePoller::StartRanges(std::vector<state::BackfillRange> ranges,
                              const std::vector<int64_t>& counted_rows) {
  BackfillRun& run = *backfill_;
  run.splitter.reset();
  run.ranges.clear();
  run.ranges.resize(ranges.size());
  run.concurrency = BackfillConcurrency(ranges.size(), run.fastest_count_ms);
  for (size_t i = 0; i < ranges.size(); ++i) {
    BackfillRun::Range& r = run.ranges[i];
    r.committed = ranges[i];
    r.acked = ranges[i].position;
    r.read_done = ranges[i].done;
    r.counted_rows = i < counted_rows.size() ? counted_rows[i] : -1;
    r.plan = RangePlan(plan_, r.committed, plan_.count_reading(), r.counted_rows);
    if (!r.plan->in_sweep()) r.read_done = true;
  }
  run.dirty = true;
  MaybeCommitBackfill(/*force=*/true);  // the ranges are durable before any row is read
  Pump();
}

void TablePoller::ResumeBackfill(const state::Cursor& cursor) {
  if (deps_.source->backfill_parallelism < 2 || deps_.deletes ||
      !deps_.store->KeepsBackfillProgress()) {
    return;  // the cursor alone resumes it with one sweep, without a gap
  }
  auto stored = deps_.store->LoadBackfill(identity_);
  if (!stored.ok() || !stored->has_value()) return;
  const state::BackfillProgress& progress = **stored;
  const state::Cursor merged = MergedCursor(progress);
  if (!CheckProgress(progress).ok() || merged.ts != cursor.ts || merged.sys_id != cursor.sys_id) {
    SNOWCAR_LOG(kWarn, "source.backfill_progress_ignored",
                {{"table", deps_.table->alias},
                 {"why", "it does not match the stored cursor; the cursor alone is resumed"}});
    return;
  }
  backfill_ = std::make_unique<BackfillRun>();
  backfill_->id = ++backfill_runs_;
  SNOWCAR_LOG(
      kInfo, "source.backfill_resumed",
      {{"table", deps_.table->alias}, {"ranges", static_cast<int64_t>(progress.ranges.size())}});
  StartRanges(progress.ranges, {});
}

void TablePoller::PumpBackfill() {
  BackfillRun& run = *backfill_;
  if (run.splitter) return;  // counts under way
  // Earlier ranges first, and a later range only beside earlier ones that are fetching: one
  // that waits on its own pages (two fetched, not produced) means the table, not the instance,
  // is the limit, and opening another range would only interleave their rows.
  size_t busy = 0;
  for (const BackfillRun::Range& r : run.ranges) busy += r.http_busy ? 1 : 0;
  for (size_t i = 0; i < run.ranges.size(); ++i) {
    BackfillRun::Range& r = run.ranges[i];
    if (r.read_done || !r.plan->in_sweep()) continue;
    if (!r.http_busy && r.pages.size() < 2 && busy < run.concurrency.ranges()) {
      IssueRange(i);
      ++busy;
    }
    if (!r.http_busy) break;
  }
  MaybeCommitBackfill(false);
}

void TablePoller::IssueRange(size_t index) {
  BackfillRun::Range& r = backfill_->ranges[index];
  const PlannedQuery query = r.plan->Next();
  servicenow::InstanceRequest request;
  request.target = PageTargetFor(*deps_.table, query);
  request.rows_as_text = !query.count && RowsAsText();
  const int64_t now = NowMs();
  status_.SetLastRequestAt(now);
  CountRequest(query.count ? RequestPurpose::kCount : RequestPurpose::kPage);
  r.http_busy = true;
  deps_.client->Send(std::move(request), strand_,
                     [self = shared_from_this(), id = backfill_->id, index, query,
                      now](servicenow::CallResult result) {
                       self->OnRangeAnswer(id, index, query, now, std::move(result));
                     });
}

void TablePoller::OnRangeAnswer(uint64_t run, size_t index, const PlannedQuery& query,
                                int64_t sent_at_ms, servicenow::CallResult result) {
  if (stopping_) {
    FinishStop();
    return;
  }
  if (failed_ || !backfill_ || backfill_->id != run || index >= backfill_->ranges.size()) return;
  BackfillRun::Range& r = backfill_->ranges[index];
  r.http_busy = false;
  if (result.attempts > 1) {
    status_.retries.fetch_add(result.attempts - 1);
    status_.throttled_ms.fetch_add(std::max<int64_t>(0, NowMs() - sent_at_ms));
  }
  if (produce_failed_ || !(r.plan->Next() == query)) {
    Pump();  // dropped: re-read after recovery
    return;
  }
  if (!result.ok()) {
    // One back-off for the table: a second failure while it waits adds nothing.
    if (!timer_armed_) OnFailedAnswer(result);
    return;
  }
  AnswerWasGood();
  if (query.count) {
    if (!ApplyCount(*r.plan, query, result)) return;
  } else {
    status_.pages_fetched.fetch_add(1);
    const size_t before = backfill_->concurrency.ranges();
    backfill_->concurrency.OnPage(backfill_->Waiting(), in_flight_);
    if (backfill_->concurrency.ranges() != before) {
      SNOWCAR_LOG(kDebug, "source.backfill_concurrency",
                  {{"table", deps_.table->alias},
                   {"ranges", static_cast<int64_t>(backfill_->concurrency.ranges())},
                   {"waiting_pages", static_cast<int64_t>(backfill_->Waiting())}});
    }
    // A typed table's range page takes the same path as the single sweep's: the column types
    // read (or read again), the encoder built and the schemas registered before any row of it
    // becomes a record.
    if (HoldForTypes(result.response.rows, index)) return;
    AcceptRangePage(index, result.response);
    if (failed_) return;
  }
  if (!r.plan->in_sweep()) r.read_done = true;
  ProduceQueued();
  Pump();
}

void TablePoller::AcceptRangePage(size_t index, const servicenow::TableResponse& page) {
  BackfillRun::Range& r = backfill_->ranges[index];
  // A range's plan is in phase backfill: only a drained second's page and the last pages of a
  // counted range ask for their own count, and only such pages carry X-Total-Count.
  AcceptInto(*r.plan, /*backfill_range=*/true, r.pages.emplace_back(), page, page.total_count);
}

void TablePoller::AcceptHeldRangePage(size_t index, uint64_t run, const boost::json::array& rows) {
  if (!backfill_ || backfill_->id != run || index >= backfill_->ranges.size()) return;
  BackfillRun::Range& r = backfill_->ranges[index];
  r.http_busy = false;
  AcceptInto(*r.plan, /*backfill_range=*/true, r.pages.emplace_back(), rows);
  if (failed_) return;
  if (!r.plan->in_sweep()) r.read_done = true;
}

void TablePoller::ProduceBackfillQueued() {
  // The ranges share the table's produce window (in flight + acknowledged but not durable <
  // batch.size), so a kill -9 still repeats at most one page of the table. They take turns,
  // a slice of rows each, so no range starves the others.
  constexpr size_t kSlice = 256;
  BackfillRun& run = *backfill_;
  if (run.ranges.empty()) return;
  const size_t window = ProduceWindow();
  bool room_for_pages = false;
  bool moved = true;
  while (moved && !stopping_ && !failed_ && !produce_failed_ && window_) {
    moved = false;
    for (size_t n = 0; n < run.ranges.size(); ++n) {
      const size_t index = (run.next_produce + n) % run.ranges.size();
      BackfillRun::Range& r = run.ranges[index];
      size_t slice = 0;
      while (!r.pages.empty() && slice < kSlice && in_flight_ + window_->pending() < window) {
        QueuedPage& page = r.pages.front();
        if (page.next < page.accepted.size()) {
          QueuedRow& q = page.accepted[page.next++];
          ++slice;
          moved = true;
          state::Cursor position{q.ts, q.sys_id, state::Phase::kBackfill};
          const AckTracker::Ticket ticket =
              r.tracker.Add(std::move(position)) |
              (static_cast<AckTracker::Ticket>(index + 1) << kRangeTicketShift);
          if (window_->Contains(q.ts, q.sys_id, q.mod_count)) {
            status_.duplicates_suppressed.fetch_add(1);
            AckTicket(ticket);
            q.records = {};  // give the records' memory back early
          } else if (!ProduceRow(q, ticket)) {
            return;
          }
        }
        if (page.next >= page.accepted.size()) {
          r.pages.pop_front();
          room_for_pages = true;
        }
      }
    }
    run.next_produce = (run.next_produce + 1) % run.ranges.size();
  }
  if (room_for_pages) boost::asio::post(strand_, [self = shared_from_this()] { self->Pump(); });
}

void TablePoller::AckTicket(AckTracker::Ticket ticket) {
  const AckTracker::Ticket range = ticket >> kRangeTicketShift;
  if (range == 0) {
    tracker_.Ack(ticket);
  } else if (backfill_ && range <= backfill_->ranges.size()) {
    backfill_->ranges[range - 1].tracker.Ack(ticket & kTicketMask);
  }
}

void TablePoller::FailTicket(AckTracker::Ticket ticket) {
  const AckTracker::Ticket range = ticket >> kRangeTicketShift;
  if (range == 0) {
    tracker_.Fail(ticket);
  } else if (backfill_ && range <= backfill_->ranges.size()) {
    backfill_->ranges[range - 1].tracker.Fail(ticket & kTicketMask);
  }
}

void TablePoller::MaybeCommitBackfill(bool force) {
  if (!window_ || !backfill_ || backfill_->ranges.empty()) return;
  BackfillRun& run = *backfill_;
  bool all_done = true;
  for (BackfillRun::Range& r : run.ranges) {
    if (auto prefix = r.tracker.TakeCommittable()) {
      if (SortsAfter(*prefix, r.acked)) {
        r.acked = std::move(*prefix);
        run.dirty = true;
      }
    }
    const bool done = r.read_done && r.pages.empty() && r.tracker.outstanding() == 0;
    if (done != r.committed.done) run.dirty = true;
    all_done = all_done && done;
  }
  if (!run.dirty && window_->pending() == 0) return;
  const auto now = std::chrono::steady_clock::now();
  const size_t every =
      std::min(deps_.options.commit_every_rows, std::max<size_t>(1, ProduceWindow() / 4));
  if (!force && !all_done && in_flight_ > 0 && window_->pending() < every &&
      now - last_commit_ < std::chrono::milliseconds(deps_.options.commit_interval_ms)) {
    return;
  }
  state::BackfillProgress progress;
  for (const BackfillRun::Range& r : run.ranges) {
    state::BackfillRange range = r.committed;
    range.position = r.acked;
    range.done = r.read_done && r.pages.empty() && r.tracker.outstanding() == 0;
    progress.ranges.push_back(std::move(range));
  }
  state::Cursor cursor = MergedCursor(progress);
  cursor.phase = state::Phase::kBackfill;
  const std::optional<state::BackfillProgress> stored =
      all_done ? std::nullopt : std::optional<state::BackfillProgress>(progress);
  FlushEmitted(/*keep_notes=*/true);  // before the commit prunes entries: see CommitToStore
  if (Status s = deps_.store->CommitBackfill(identity_, cursor, *window_, stored); !s.ok()) {
    OnCommitFailed(s);
    return;
  }
  if (!commit_error_.empty()) {
    SNOWCAR_LOG(kInfo, "source.commit_resumed", {{"table", deps_.table->alias}});
    commit_error_.clear();
  }
  for (size_t i = 0; i < run.ranges.size(); ++i) run.ranges[i].committed = progress.ranges[i];
  run.dirty = false;
  committed_ = cursor;
  committable_ = cursor;
  cursor_dirty_ = false;
  last_commit_ = now;
  status_.commits.fetch_add(1);
  status_.SetCursor(committed_);
  if (all_done) FinishBackfill();
}

void TablePoller::FinishBackfill() {
  SNOWCAR_LOG(kInfo, "source.backfill_ranges_done",
              {{"table", deps_.table->alias},
               {"ranges", static_cast<int64_t>(backfill_->ranges.size())},
               {"cursor_ts", FormatSnowTimestamp(committed_.ts)}});
  recut_rows_per_s_ = backfill_->rows_per_s;
  backfill_.reset();
  tracker_.Reset();
  // The single sweep goes on after the last range (re-reading the overlap before it, which
  // the dedup index suppresses); a backlog that grew meanwhile may be cut again.
  plan_.Restore(committed_);
  try_parallel_ = true;
  if (!stopping_) boost::asio::post(strand_, [self = shared_from_this()] { self->Pump(); });
}

void TablePoller::ResetRangesAfterFailure() {
  if (!backfill_) return;
  if (backfill_->splitter) {
    backfill_.reset();
    try_parallel_ = true;
    return;
  }
  // Every range reads again from its committed position; rows acknowledged after it are in
  // the dedup window and are suppressed.
  for (BackfillRun::Range& r : backfill_->ranges) {
    r.pages.clear();
    r.tracker.Reset();
    r.acked = r.committed.position;
    r.read_done = r.committed.done;
    r.http_busy = false;
    r.plan = RangePlan(plan_, r.committed, plan_.count_reading(), r.counted_rows);
    if (!r.plan->in_sweep()) r.read_done = true;
  }
  ++backfill_->id;  // answers still under way belong to the abandoned reads
  ++backfill_runs_;
  backfill_->id = backfill_runs_;
}

}  // namespace snowcar::source
