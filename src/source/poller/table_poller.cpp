// SPDX-License-Identifier: Apache-2.0
#include "table_poller.h"

#include <algorithm>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/post.hpp>
#include <boost/json.hpp>
#include <utility>

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

namespace snowcar::source {

using namespace poller_detail;  // the helpers the poller's files share

namespace {

PlanSettings PlanSettingsFor(const SourceSettings& source, const TableSettings& table) {
  PlanSettings p;
  p.start_ts = table.start_ts;
  p.overlap_seconds = source.overlap_seconds;
  p.safety_lag_seconds = source.safety_lag_seconds;
  p.limit = table.batch_size;
  p.poll_interval_ms = table.poll_interval_ms;
  return p;
}

}  // namespace

TablePoller::TablePoller(Deps deps)
    : deps_(std::move(deps)),
      strand_(boost::asio::make_strand(*deps_.io)),
      timer_(strand_),
      commit_retry_(strand_),
      identity_(IdentityFor(*deps_.source, *deps_.table)),
      plan_(PlanSettingsFor(*deps_.source, *deps_.table)),
      typed_(deps_.deletes ? nullptr
                           : TypedTable::MakeIfNeeded(*deps_.source, *deps_.table, deps_.store,
                                                      deps_.options.registrar)) {
  committed_ = plan_.StartPoint();
  committable_ = committed_;
  status_.SetCursor(committed_);
}

TablePoller::~TablePoller() = default;

std::string TablePoller::Label() const { return "table " + deps_.table->alias; }

void TablePoller::Start() {
  boost::asio::post(strand_, [self = shared_from_this()] { self->Begin(); });
  if (deletes_poller_) deletes_poller_->Start();
  StartAttached();
}

void TablePoller::Begin() {
  if (stopping_) return;
  status_.SetState(TableState::kStarting);
  auto cursor = deps_.store->LoadCursor(identity_);
  if (!cursor.ok()) {
    Fail(Label() + ": " + cursor.status().message());
    return;
  }
  auto window = deps_.store->LoadDedupWindow(identity_, deps_.source->dedup_policy());
  if (!window.ok()) {
    Fail(Label() + ": loading the dedup window: " + window.status().message());
    return;
  }
  window_ = std::move(window).value();
  if (typed_) {
    if (Status s = typed_->Load(); !s.ok()) {
      Fail(Label() + ": loading the column types: " + s.message());
      return;
    }
  }
  plan_.Restore(*cursor);
  if (cursor->has_value()) committed_ = **cursor;
  if (cursor->has_value()) ResumeBackfill(**cursor);
  committable_ = committed_;
  status_.SetCursor(committed_);
  status_.SetPhase(plan_.phase());
  last_commit_ = std::chrono::steady_clock::now();
  loaded_ = true;
  SNOWCAR_LOG(kInfo, "source.table_starting",
              {{"table", deps_.table->alias},
               {"name", deps_.table->name},
               {"topic", deps_.table->topic},
               {"cursor_ts", FormatSnowTimestamp(committed_.ts)},
               {"cursor_sys_id", committed_.sys_id},
               {"stored_cursor", cursor->has_value()},
               {"dedup_entries", static_cast<int64_t>(window_->size())}});
  PrepareTopic();
}

void TablePoller::MarkStarted() { started_.store(true); }

// ---- the poll loop ---------------------------------------------------------------------

void TablePoller::Pump() {
  if (stopping_ || failed_ || !loaded_ || http_busy_ || timer_armed_) return;
  if (produce_failed_) {
    if (in_flight_ == 0) RecoverFromProduceFailure();
    return;
  }
  // The instance cannot be used: ask it nothing, wait with everyone else at its gate.
  if (servicenow::InstanceGate* gate = deps_.client->gate(); gate != nullptr && !gate->IsOpen()) {
    BackOff(Label() + ": waiting for the instance: " + gate->Read().reason,
            /*retry_probe=*/false, std::nullopt, /*pause=*/true);
    return;
  }
  if (backfill_) {
    PumpBackfill();
    return;
  }
  if (!plan_.in_sweep()) {
    if (idle_wait_) {
      idle_wait_ = false;
      timer_armed_ = true;
      timer_.expires_after(std::chrono::milliseconds(idle_interval_ms_));
      timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
        self->timer_armed_ = false;
        if (ec) return;
        self->rewind_pending_ = true;
        self->Pump();
      });
      return;
    }
    if (rewind_pending_) {
      // Re-reading the overlap is only safe once every earlier row has its delivery
      // report: an unacknowledged row is not in the dedup window yet.
      if (in_flight_ > 0 || !queued_pages_.empty()) return;
      plan_.RewindForIdleWake();
      rewind_pending_ = false;
    }
    if (!deps_.client->ServerClockKnown() && !clock_assumed_) {
      // The high-water mark is the instance's second, not ours: until an answer's Date
      // header told the client the instance's time, its clock is this host's, and rows
      // the instance is still writing could be read (startup probe off, first sweep).
      SendClockRequest();
      return;
    }
    if (MaybeStartBackfill()) return;
    plan_.BeginSweep(SweepClockMs());
    if (!plan_.in_sweep()) {
      const state::Phase phase = plan_.FinishSweep(deps_.client->ServerNowMillis());
      NoteSweepFinished();
      status_.SetPhase(phase);
      status_.sweeps.fetch_add(1);
      AdaptInterval();
      idle_wait_ = true;  // nothing to read: caught up by definition
      Pump();
      return;
    }
  }
  // Pipelining: the next page is fetched while the previous one is still being produced,
  // so at most two fetched pages wait in memory. How many of their rows go out at once is
  // ProduceQueued's business (the sliding window).
  if (queued_pages_.size() >= 2) return;
  Issue(plan_.Next());
}

void TablePoller::SendClockRequest() {
  servicenow::InstanceRequest request;
  request.target = ProbeTarget(*deps_.table);  // one row of three fields: the cheapest read
  status_.SetLastRequestAt(NowMs());
  CountRequest(RequestPurpose::kProbe);
  http_busy_ = true;
  deps_.client->Send(std::move(request), strand_,
                     [self = shared_from_this()](const servicenow::CallResult& result) {
                       self->http_busy_ = false;
                       if (self->stopping_) {
                         self->FinishStop();
                         return;
                       }
                       if (self->failed_) return;
                       if (!result.ok()) {
                         self->OnFailedAnswer(result);
                         return;
                       }
                       if (!result.response.server_date_ms) {
                         // Nothing better to go by: this host's clock it is.
                         SNOWCAR_LOG(kWarn, "source.instance_clock_unknown",
                                     {{"table", self->deps_.table->alias},
                                      {"why", "the instance's answer had no Date header"}});
                         self->clock_assumed_ = true;
                       }
                       self->AnswerWasGood();
                       self->Pump();
                     });
}

void TablePoller::Issue(const PlannedQuery& query) {
  servicenow::InstanceRequest request;
  request.target = PageTargetFor(*deps_.table, query);
  request.rows_as_text = !query.count && RowsAsText();
  const int64_t now = NowMs();
  status_.SetLastRequestAt(now);
  CountRequest(query.count ? RequestPurpose::kCount : RequestPurpose::kPage);
  http_busy_ = true;
  SNOWCAR_LOG(kTrace, "source.request",
              {{"table", deps_.table->alias}, {"query", DescribeQuery(query)}});
  deps_.client->Send(std::move(request), strand_,
                     [self = shared_from_this(), query, now](servicenow::CallResult result) {
                       self->OnAnswer(query, now, std::move(result));
                     });
}

bool TablePoller::ApplyCount(PollPlan& plan, const PlannedQuery& query,
                             const servicenow::CallResult& result) {
  if (!result.response.total_count) {
    Fail(Label() + ": the count request (" + DescribeQuery(query) +
         ") came back without X-Total-Count, so hidden rows cannot be told from no rows; "
         "a proxy between snowcar and the instance may strip the header");
    return false;
  }
  if (Status s = plan.OnCount(*result.response.total_count); !s.ok()) {
    Fail(Label() + ": " + s.message());
    return false;
  }
  return true;
}

void TablePoller::AnswerWasGood() {
  consecutive_failures_ = 0;
  if (status_.Read().state == TableState::kBackingOff) {
    status_.SetState(TableState::kRunning);
    ReportHealth();
  }
}

void TablePoller::OnFailedAnswer(const servicenow::CallResult& result) {
  switch (Decision(result)) {
    case servicenow::Action::kHold:
      BackOff(Label() + ": " + result.ToStatus().message(), /*retry_probe=*/false,
              result.response.retry_after_ms);
      return;
    case servicenow::Action::kPauseInstance:
      BackOff(Label() + ": " + PauseCause(result) + ": " + result.ToStatus().message(),
              /*retry_probe=*/false, result.response.retry_after_ms, /*pause=*/true);
      return;
    default:
      break;  // the table stops
  }
  std::string cause;
  switch (result.klass) {
    case servicenow::OutcomeClass::kPermission:
      cause = "the integration user may not read this table (HTTP 403); grant read access";
      break;
    case servicenow::OutcomeClass::kNotFound:
      cause = "the table or view was not found (HTTP 404)";
      break;
    default:
      cause = "the instance refused the query";
      break;
  }
  Fail(Label() + " (" + deps_.table->name + "): " + cause + ": " + result.ToStatus().message());
}

void TablePoller::OnAnswer(const PlannedQuery& query, int64_t sent_at_ms,
                           servicenow::CallResult result) {
  http_busy_ = false;
  if (stopping_) {
    FinishStop();
    return;
  }
  if (failed_) return;
  if (result.attempts > 1) {
    // Time the client spent retrying (waits included) is what this table lost to throttling
    // and errors, as far as the poller can see it.
    status_.retries.fetch_add(result.attempts - 1);
    status_.throttled_ms.fetch_add(std::max<int64_t>(0, NowMs() - sent_at_ms));
  }
  if (produce_failed_) {
    Pump();  // stop reading: the page is dropped and re-read after recovery
    return;
  }
  if (!result.ok()) {
    OnFailedAnswer(result);
    return;
  }
  AnswerWasGood();
  if (query.count) {
    if (!ApplyCount(plan_, query, result)) return;
    if (*result.response.total_count > 0) {
      SNOWCAR_LOG(kDebug, "source.range_count",
                  {{"table", deps_.table->alias},
                   {"query", DescribeQuery(query)},
                   {"count", *result.response.total_count}});
    }
  } else {
    status_.pages_fetched.fetch_add(1);
    if (FetchAuditReads(query, result.response.rows)) return;  // a deletes stream; accepts later
    if (HoldForTypes(result.response.rows)) return;            // typed: types first
    // The page's own count, when its query asked for one (phase stream).
    const std::optional<int64_t> total =
        query.with_total ? result.response.total_count : std::nullopt;
    AcceptInto(plan_, /*backfill_range=*/false, queued_pages_.emplace_back(), result.response,
               total);
    if (failed_) return;
  }
  AfterPage();
  ProduceQueued();
}

void TablePoller::AfterPage() {
  if (plan_.count_reading() != count_reading_) {
    count_reading_ = plan_.count_reading();
    status_.SetCountReading(std::string(CountReadingName(count_reading_)));
    SNOWCAR_LOG(kInfo, "source.count_reading_learned",
                {{"table", deps_.table->alias},
                 {"x_total_count", CountReadingName(count_reading_)},
                 {"why",
                  "rows hidden by ACLs: what the instance's count covers decides how empty "
                  "pages are read (docs/source.md, hidden rows)"}});
  }
  if (!plan_.in_sweep()) {
    const state::Phase phase = plan_.FinishSweep(deps_.client->ServerNowMillis());
    NoteSweepFinished();
    status_.SetPhase(phase);
    status_.sweeps.fetch_add(1);
    idle_wait_ = phase == state::Phase::kStream;
    if (idle_wait_) AdaptInterval();
    SNOWCAR_LOG(kDebug, "source.sweep_done",
                {{"table", deps_.table->alias},
                 {"hi", FormatSnowTimestamp(plan_.hi())},
                 {"phase", state::PhaseName(phase)}});
  }
  Pump();
}

void TablePoller::BackOff(std::string why, bool retry_probe, std::optional<int64_t> at_least_ms,
                          bool pause) {
  ++consecutive_failures_;
  int64_t wait = deps_.options.initial_backoff_ms;
  for (int i = 1; i < consecutive_failures_ && wait < deps_.options.max_backoff_ms; ++i) wait *= 2;
  wait = std::min(wait, deps_.options.max_backoff_ms);
  // The instance said how long (Retry-After): never sooner, even past the own cap.
  if (at_least_ms) wait = std::max(wait, *at_least_ms);
  status_.backoff_ms.store(wait);
  status_.retries.fetch_add(1);
  status_.throttled_ms.fetch_add(wait);
  status_.SetLastError(why);
  status_.SetState(TableState::kBackingOff);
  ReportHealth();
  SNOWCAR_LOG(kWarn, "source.backing_off",
              {{"table", deps_.table->alias}, {"wait_ms", wait}, {"error", why}});
  timer_armed_ = true;
  gate_woke_ = false;
  // Paused with the whole instance: its gate's probe decides when to go on (the timer only
  // keeps Stop() able to end the wait).
  servicenow::InstanceGate* gate = pause ? deps_.client->gate() : nullptr;
  timer_.expires_after(gate != nullptr ? std::chrono::milliseconds(std::chrono::hours(24))
                                       : std::chrono::milliseconds(wait));
  timer_.async_wait([self = shared_from_this(), retry_probe](const boost::system::error_code& ec) {
    self->timer_armed_ = false;
    self->status_.backoff_ms.store(0);
    if ((ec && !self->gate_woke_) || self->stopping_ || self->failed_) return;
    self->gate_woke_ = false;
    if (retry_probe) {
      if (!self->topic_ready_) {
        self->PrepareTopic();
        return;
      }
      self->status_.SetState(TableState::kProbing);
      self->SendProbe();
      return;
    }
    // The state turns back to running (and health says so) with the next good answer.
    self->Pump();
  });
  if (gate != nullptr) {
    std::weak_ptr<TablePoller> weak = shared_from_this();
    gate->WhenOpen(strand_, [weak] {
      auto self = weak.lock();
      if (!self || !self->timer_armed_) return;
      self->gate_woke_ = true;
      self->timer_.cancel();
    });
  }
}

void TablePoller::Fail(std::string message) {
  if (failed_) return;
  failed_ = true;
  failed_flag_.store(true);
  timer_.cancel();
  commit_retry_.cancel();
  // Error, health and start-up done first: whoever sees the state turn to failed also sees
  // why, and that the table no longer holds readiness back (tests under ThreadSanitizer and
  // ASan caught the health report, then started(), lagging the state).
  status_.SetLastError(message);
  if (deps_.health != nullptr) deps_.health->Report("source." + deps_.table->alias, false, message);
  MarkStarted();
  status_.SetState(TableState::kFailed);
  SNOWCAR_LOG(kError, "source.table_failed", {{"table", deps_.table->alias}, {"error", message}});
  MaybeCommit(true);
}

void TablePoller::ReportHealth() {
  if (deps_.health == nullptr || failed_) return;
  // Backing off is not ok: the table has stopped moving (its call gave up after the
  // client's retries, or Kafka or the state store refused), and an operator alerting on
  // health must see that. It is no reason to restart the process, and /v1/health stays
  // HTTP 200 whatever a component says. The table turns ok again with its next good answer.
  const TableStatus::View view = status_.Read();
  std::string detail(TableStateName(view.state));
  const bool backing_off = view.state == TableState::kBackingOff;
  if (backing_off) detail += ": " + view.last_error;
  deps_.health->Report("source." + deps_.table->alias, !backing_off, std::move(detail));
}

// ---- stopping --------------------------------------------------------------------------

std::future<void> TablePoller::Stop() {
  std::future<void> done = stop_promise_.get_future();
  boost::asio::post(strand_, [self = shared_from_this()] {
    if (self->stopping_) return;
    self->stopping_ = true;
    self->timer_.cancel();
    self->commit_retry_.cancel();
    if (self->in_flight_ == 0) self->FinishStop();
  });
  if (deletes_poller_) deletes_poller_->Stop();  // reports through on_stopped_
  StopAttached();
  return done;
}

std::future<void> TablePoller::ForceFinish() {
  auto promise = std::make_shared<std::promise<void>>();
  std::future<void> done = promise->get_future();
  boost::asio::post(strand_, [self = shared_from_this(), promise] {
    self->stopping_ = true;
    self->MaybeCommit(true);
    self->FlushEmitted();
    if (!self->stop_done_) {
      self->stop_done_ = true;
      if (!self->failed_) self->status_.SetState(TableState::kStopped);
      SNOWCAR_LOG(kWarn, "source.table_stop_deadline",
                  {{"table", self->deps_.table->alias},
                   {"in_flight", static_cast<int64_t>(self->in_flight_)}});
    }
    self->SignalStopped(/*force=*/true);
    promise->set_value();
  });
  if (deletes_poller_) deletes_poller_->ForceFinish();
  return done;
}

void TablePoller::FinishStop() {
  if (stop_done_) return;
  if (in_flight_ > 0) return;
  stop_done_ = true;
  queued_pages_.clear();  // not produced: re-read from the committed cursor next time
  MaybeCommit(true);
  FlushEmitted();
  if (!failed_) status_.SetState(TableState::kStopped);
  SNOWCAR_LOG(kInfo, "source.table_stopped",
              {{"table", deps_.table->alias},
               {"cursor_ts", FormatSnowTimestamp(committed_.ts)},
               {"cursor_sys_id", committed_.sys_id},
               {"in_flight", static_cast<int64_t>(in_flight_)}});
  SignalStopped(/*force=*/false);
}

void TablePoller::ReleaseWindow() {
  window_.reset();
  if (deletes_poller_) deletes_poller_->ReleaseWindow();
}

}  // namespace snowcar::source
