// SPDX-License-Identifier: Apache-2.0
// One table's poller: the keyset plan (poll_plan.h) driven on its own strand of the shared
// io_context. It reads pages through the TableClient, produces each new row version through
// the RecordProducer, records acknowledged versions in the table's DedupWindow, and commits
// the acknowledged prefix (cursor + dedup entries, one WriteBatch). No handler ever waits on
// the network or on Kafka: every step is a completion posted back to the strand.
//
// Failure handling, per table (other tables are unaffected):
//   - permanent (credentials, ACL, no such table, bad query, out-of-order rows, bad rows
//     under bad.row.behavior=fail, cursor identity mismatch): the table stops, shows
//     state "failed" and the cause on the socket and in health, logs it once;
//   - retryable (the client's retries ran out) and Kafka delivery errors: back off (doubling
//     up to a cap) and try again; a delivery error first lets the in-flight reports arrive,
//     then re-reads from the committed cursor (acknowledged rows are suppressed by dedup).
#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <chrono>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>

#include "../deletes/audit_stream.h"
#include "../deletes/reconciler.h"
#include "../echo/echo_marker.h"
#include "../rows/poll_plan.h"
#include "../typed/typed_table.h"
#include "snowcar/kafka/producer.h"
#include "snowcar/servicenow/table_client.h"
#include "snowcar/source/rows/ack_tracker.h"
#include "snowcar/source/rows/row.h"
#include "snowcar/source/source_settings.h"
#include "snowcar/source/typed/typed_record.h"
#include "snowcar/state/state_store.h"
#include "table_status.h"
#include "topic_preparer.h"

namespace snowcar::api {
class HealthRegistry;
}

namespace snowcar::source {

namespace exactly_once {
class TableTransaction;
}

struct PollerOptions {
  int64_t initial_backoff_ms = 500;
  int64_t max_backoff_ms = 30000;
  // Commit the acknowledged prefix when this many acknowledged row versions wait in the
  // window, when nothing is in flight any more, or when this long passed since the last
  // commit: the kill -9 duplicate bound (docs/semantics.md).
  size_t commit_every_rows = 128;
  int64_t commit_interval_ms = 50;
  // The user whose time zone the probe checks (once per process); empty: no check.
  std::string username;
  // Set when a schema registry is configured: typed records are framed with its ids.
  SchemaRegistrar registrar;
  // What to do with the row versions the sink of this process wrote (echo_marker.h).
  EchoMode echo = EchoMode::kOff;
  // Set when topic.creation is on: the table's topic is made before its first produce.
  std::shared_ptr<TopicPreparer> topics;
};

// Shared by every poller of a process: the time-zone warning is checked once, not per table.
struct ProcessOnce {
  std::atomic<bool> time_zone_checked{false};
};

class TablePoller : public std::enable_shared_from_this<TablePoller> {
 public:
  struct Deps {
    boost::asio::io_context* io = nullptr;
    servicenow::TableClient* client = nullptr;
    std::shared_ptr<kafka::RecordProducer> producer;
    state::StateStore* store = nullptr;
    api::HealthRegistry* health = nullptr;  // may be null
    const SourceSettings* source = nullptr;
    const TableSettings* table = nullptr;
    PollerOptions options;
    ProcessOnce* once = nullptr;  // may be null
    // Set on a table's deletes stream (audit_stream.h): `table` is then its sys_audit settings.
    std::shared_ptr<DeletesStream> deletes;
    // Set on a row stream whose table has a deletes stream: the gate it publishes.
    std::shared_ptr<RowWatermark> watermark;
    // Set on both streams of a table with reconciliation: the ids they emit and delete.
    std::shared_ptr<EmittedIds> emitted;
    // Exactly-once (exactly_once/table_transaction.h): `producer` is its producer, and each
    // commit is a Kafka transaction before it is a store commit. Null: at-least-once.
    std::shared_ptr<exactly_once::TableTransaction> transaction;
    // Exactly-once with deletes=audit: the deletes stream's own transaction (Make gives it
    // to the stream, whose cursor commits apart from the rows').
    std::shared_ptr<exactly_once::TableTransaction> deletes_transaction;
  };

  // The poller of deps.table, with its deletes stream attached when the table has
  // deletes=audit (audit_poller.cpp). Use this rather than the constructor.
  static std::shared_ptr<TablePoller> Make(Deps deps);

  explicit TablePoller(Deps deps);
  ~TablePoller();

  // Loads the cursor and dedup window, probes (if enabled) and starts polling, all on the
  // strand. Returns at once.
  void Start();
  // Stops issuing requests; the future is ready once every in-flight produce was reported
  // and the acknowledged prefix committed (or the table had already failed or stopped).
  std::future<void> Stop();
  // After Stop's deadline passed: commit whatever is acknowledged now and finish.
  std::future<void> ForceFinish();
  // Drops the dedup window; only once nothing runs any more (the pool is joined).
  void ReleaseWindow();

  // True once the table finished its startup probe (or needed none) or failed with a cause.
  bool started() const {
    return started_.load() && (deletes_poller_ == nullptr || deletes_poller_->started());
  }
  bool failed() const { return failed_flag_.load(); }
  const TableSettings& table() const { return *deps_.table; }
  const TableStatus& status() const { return status_; }
  // The table's deletes stream (deletes=audit), or null. Started and stopped with this one.
  const std::shared_ptr<TablePoller>& deletes_poller() const { return deletes_poller_; }
  // The table's reconciliation (deletes=reconcile, audit+reconcile), or null.
  const std::shared_ptr<Reconciler>& reconciler() const { return reconciler_; }
  // Deletes emitted by the audit stream since start (0 without one).
  uint64_t audit_deletes_emitted() const {
    return deletes_poller_ ? deletes_poller_->audit_deletes_.load() : 0;
  }

 private:
  using Strand = boost::asio::strand<boost::asio::io_context::executor_type>;

  void Begin();
  // With topic.creation on, makes sure the table's topic exists before anything is read
  // for it (table_poller_topic.cpp); a refusal backs off and asks again, holding the rows.
  void PrepareTopic();
  void OnTopicPrepared(const Status& status);
  // After the topic: the probe, or straight to the first sweep.
  void StartReading();
  void SendProbe();
  void OnProbe(const servicenow::CallResult& result);
  void CheckTimeZone();
  void MarkStarted();

  void Pump();
  void Issue(const PlannedQuery& query);
  // Probe off and no answer yet: one cheap request, so the instance's clock is known before
  // the first sweep fixes its high-water mark.
  void SendClockRequest();
  void AnswerWasGood();
  // A failed page, count or clock request: back off (retryable, instance unusable) or fail.
  void OnFailedAnswer(const servicenow::CallResult& result);
  void OnAnswer(const PlannedQuery& query, int64_t sent_at_ms, servicenow::CallResult result);
  // Checks a fetched page row by row, moves the plan over it and queues its rows.
  void AcceptPage(const boost::json::array& rows);
  // A count answer handed to `plan` (the table's or a range's); false when the table failed.
  bool ApplyCount(PollPlan& plan, const PlannedQuery& query, const servicenow::CallResult& result);
  // Produces queued rows while the produced-but-not-durable count stays under the window.
  void ProduceQueued();
  size_t ProduceWindow() const;
  // Marks the sink's own version in `records` (the row's), or says to suppress it
  // (echo_marker.h).
  struct QueuedRow;
  EchoVerdict Echo(const QueuedRow& row, std::vector<kafka::OutRecord>& records);
  // What follows a processed page or count: end the sweep when the plan says so, then Pump.
  void AfterPage();
  void OnDelivery(uint64_t generation, AckTracker::Ticket ticket, const state::DedupKey& key,
                  const kafka::DeliveryReport& report);
  void RecoverFromProduceFailure();
  // Waits the table's own growing backoff, or `at_least_ms` (the instance's Retry-After) when
  // that is longer.
  // `pause`: the instance itself cannot be used; with a gate the wait ends when it opens.
  void BackOff(std::string why, bool retry_probe, std::optional<int64_t> at_least_ms = std::nullopt,
               bool pause = false);
  void MaybeCommit(bool force);
  // exactly_once/poller_transaction.cpp: MaybeCommit under exactly-once. Commits the open
  // transaction (the page's records and the state record) once every record has its report,
  // then writes the store; a failed transaction is forgotten (window reloaded, rows re-read).
  void MaybeCommitTransaction(bool force);
  void OnTransactionFailed(const Status& status, bool stop);
  void OnCommitFailed(const Status& status);
  // The store commit and the status after it, shared by both commit paths.
  void CommitToStore(const state::Cursor& cursor, std::chrono::steady_clock::time_point now);
  void Fail(std::string message);
  void FinishStop();
  void ReportHealth();
  std::string Label() const;
  // Counts a request on the table's status (a deletes stream's all count as audit).
  void CountRequest(RequestPurpose purpose) {
    status_.CountRequest(deps_.deletes ? RequestPurpose::kAudit : purpose);
  }

  // ---- parallel backfill (table_poller_backfill.cpp, backfill_ranges.h) ----
  struct BackfillRun;  // backfill_run.h
  // At the start of a sweep in the backfill phase: cut a large backlog into ranges read by
  // concurrent sweeps. True when that began (the split's counts are under way).
  bool MaybeStartBackfill();
  // Resumes the ranges stored beside `cursor` (a restart during a parallel backfill).
  void ResumeBackfill(const state::Cursor& cursor);
  void SendSplitCounts();
  void OnSplitCount(uint64_t run, int64_t t, std::chrono::steady_clock::time_point sent,
                    servicenow::CallResult result);
  // `counted_rows`: the cut's count of each range, empty when resumed from the store.
  void StartRanges(std::vector<state::BackfillRange> ranges,
                   const std::vector<int64_t>& counted_rows);
  void PumpBackfill();
  void IssueRange(size_t index);
  void OnRangeAnswer(uint64_t run, size_t index, const PlannedQuery& query, int64_t sent_at_ms,
                     servicenow::CallResult result);
  void AcceptRangePage(size_t index, const servicenow::TableResponse& page);
  // A range's page that waited for the table's column types (HoldForTypes), unless its run
  // was abandoned meanwhile.
  void AcceptHeldRangePage(size_t index, uint64_t run, const boost::json::array& rows);
  void ProduceBackfillQueued();
  void MaybeCommitBackfill(bool force);
  void FinishBackfill();
  void ResetRangesAfterFailure();
  // A delivery report's ticket: the main tracker's, or a range's (its index in the top bits).
  void AckTicket(AckTracker::Ticket ticket);
  void FailTicket(AckTracker::Ticket ticket);

  // ---- hooks for the deletes stream (audit_poller.cpp) ----
  // The server clock a sweep begins with: held back for a deletes stream (the gate).
  int64_t SweepClockMs() const;
  // A sweep ended: remember its HI; publish it once every row it read is acknowledged.
  void NoteSweepFinished();
  // A sweep of a caught-up table ended: sets the wait before the next one
  // (table_poller_interval.cpp): the poll interval, or with adaptive polling twice the last
  // wait after a sweep that saw no change, up to the table's maximum.
  void AdaptInterval();
  void PublishWatermark();
  // The records one accepted row becomes: the row's UPSERT, or a deletes stream's records.
  // InvalidArgument: a typed value that does not parse (the bad-row policy decides).
  Status RecordsFor(const boost::json::object& row, const RowKey& key, int64_t extracted_at,
                    std::vector<kafka::OutRecord>& out);

  // ---- typed records (typed_poller.cpp) ----
  // A fetched page of a typed table, the table's own (`range` empty) or a backfill range's:
  // true when it waits for its column types (the page is kept and accepted once the types are
  // read; a range stays busy meanwhile) or was dropped for a back-off (a registry that cannot
  // take the schema; the page is read again). A page that comes while the types are being
  // read waits with the one that asked for them.
  bool HoldForTypes(boost::json::array& rows, std::optional<size_t> range = std::nullopt);
  // One read of the column types (sys_db_object for the chain, then sys_dictionary) and its
  // answer, which sends the next read until the types are complete.
  void SendTypesRead();
  void OnTypesAnswer(const servicenow::CallResult& result);
  // The waiting pages were dropped (a back-off): their ranges read them again.
  void DropTypedWaits();
  // Builds the encoder and registers the schemas; false when the table backs off (or
  // stopped) instead, as the outcome table's kRegisterSchema column says for a registry error.
  bool TypedReady();
  // Backs off for an encoder or a schema that is not ready, doubling across pages.
  void TypedBackOff(const Status& why);
  // The accepted-page path after the page's types are settled.
  void AcceptAndContinue(const boost::json::array& rows);
  // Produces them as one unit: one delivery report, OK only when every record's is.
  void ProduceRecords(std::vector<kafka::OutRecord> records, AckTracker::Ticket ticket,
                      state::DedupKey dedup);
  // A deletes stream's page with RECOVERED entries (or DELETED ones that may have been
  // restored within their second: MarkPossibleRestores): re-read their rows first; with
  // deletes.last.row, then read what sys_audit_delete kept of its DELETED ones. False when the
  // page needs neither (accept it at once).
  bool FetchAuditReads(const PlannedQuery& query, boost::json::array& rows);
  // One of those reads (`recovered`: the first kind); accepts the page after the last one.
  void SendAuditRead(std::string target, boost::json::array rows, bool recovered);
  // The entries of a deletes stream's page not yet in the dedup window.
  boost::json::array Unseen(const boost::json::array& entries) const;
  // Completes Stop's future once this poller and its deletes stream both stopped (`force`:
  // at once).
  void SignalStopped(bool force);
  // A record was acknowledged: note the row's id for reconciliation (row stream).
  void NoteDelivered(const state::DedupKey& key);
  // Writes the emitted ids into the store's id set: when enough are pending (EmittedIds), and
  // on stop, so the set a handoff copies has every acknowledged row; before each cursor
  // commit with `keep_notes` (EmittedIds::Flush), so they are durable no later than the
  // dedup entries the commit may prune.
  void FlushEmitted(bool keep_notes = false);
  // A deletes stream's entry was acknowledged: count its DELETE, note its id.
  struct DeliveredNote {
    std::string sys_id;
    bool is_delete = false;
    bool row_after = false;  // the DELETE is followed by the row (MarkPossibleRestores)
  };
  void ApplyNote(const DeliveredNote* note, const kafka::DeliveryReport& report);
  // Starts and stops what is attached to the row stream besides its deletes stream.
  void StartAttached();
  void StopAttached();

  Deps deps_;
  Strand strand_;
  boost::asio::steady_timer timer_;
  boost::asio::steady_timer commit_retry_;  // armed while a state commit keeps failing
  state::CursorIdentity identity_;
  PollPlan plan_;
  AckTracker tracker_;
  std::unique_ptr<state::DedupWindow> window_;
  TableStatus status_;
  // Typed records (typed_poller.cpp); null for untyped tables and deletes streams.
  std::unique_ptr<TypedTable> typed_;
  // The pages waiting for sys_dictionary, in the order they came; `run` tells a range's page
  // of an abandoned backfill run (backfill_runs_) apart.
  struct TypedWait {
    boost::json::array rows;
    std::optional<size_t> range;
    uint64_t run = 0;
  };
  std::vector<TypedWait> typed_waits_;
  int typed_failures_ = 0;  // typed failures in a row (TypedBackOff)

  // Strand-only state.
  bool loaded_ = false;
  bool topic_ready_ = false;  // the table's topic exists (or topic.creation is off)
  bool http_busy_ = false;
  bool timer_armed_ = false;
  bool gate_woke_ = false;         // the instance's gate opened: the cancelled wait goes on
  bool idle_wait_ = false;         // the next sweep waits for the poll interval
  bool rewind_pending_ = false;    // rewind before the next sweep (idle wake)
  int64_t idle_interval_ms_ = 0;   // the current wait between sweeps (AdaptInterval)
  state::Cursor interval_row_;     // the last row read when the previous sweep ended
  int64_t interval_emitted_ = -1;  // rows_emitted then
  bool produce_failed_ = false;
  bool stopping_ = false;
  bool stop_done_ = false;
  bool failed_ = false;
  CountReading count_reading_ = CountReading::kUnknown;  // as last logged
  bool clock_assumed_ = false;  // the instance sends no Date header: go by this host's clock
  uint64_t generation_ = 0;
  size_t in_flight_ = 0;  // produced rows without a delivery report
  int consecutive_failures_ = 0;
  state::Cursor committed_;    // last cursor written (or loaded)
  state::Cursor committable_;  // newest acknowledged prefix position, maybe not yet written
  bool cursor_dirty_ = false;
  bool commit_retry_armed_ = false;
  std::string commit_error_;  // the failing commit's message; empty while commits succeed
  // Fetched pages whose rows are checked and planned but not all produced yet, oldest first.
  // At most two: the next page is fetched while the previous one is being produced (Pump).
  // A queued row holds its records, not its parsed JSON: a parsed row takes about three and
  // a half times its text, its records about its text (docs/performance.md).
  struct QueuedRow {
    int64_t ts = 0;
    std::string sys_id;
    uint32_t mod_count = 0;
    bool carries_mod_count = false;  // for the echo lookup (echo_marker.h)
    state::Phase phase = state::Phase::kBackfill;
    Status built;  // not OK: a typed value that does not parse (the bad-row policy decides)
    std::vector<kafka::OutRecord> records;

    RowKey key() const { return RowKey{ts, sys_id, mod_count}; }
  };
  struct QueuedPage {
    std::vector<QueuedRow> accepted;
    size_t next = 0;  // first accepted row not produced yet
  };
  // Checks a page's rows and moves `plan` over them, queueing the good ones in `page` with
  // their records (the table's own plan, or a backfill range's). Rows come parsed, or as text
  // parsed one at a time (servicenow::RowTexts). `total`: the page's X-Total-Count, when its
  // query asked for one (PlannedQuery::with_total).
  void AcceptInto(PollPlan& plan, bool backfill_range, QueuedPage& page,
                  const boost::json::array& rows, std::optional<int64_t> total = std::nullopt);
  void AcceptInto(PollPlan& plan, bool backfill_range, QueuedPage& page,
                  const servicenow::RowTexts& rows, std::optional<int64_t> total);
  // A page answer: its text rows, or its parsed ones when the client parsed it whole.
  void AcceptInto(PollPlan& plan, bool backfill_range, QueuedPage& page,
                  const servicenow::TableResponse& answer, std::optional<int64_t> total);
  // One row of it; false when the table failed.
  bool AcceptRow(PollPlan& plan, bool backfill_range, QueuedPage& page,
                 const boost::json::value& row, int64_t extracted_at);
  // Produces a queued row's records under `ticket`, or settles it at once (a bad typed value
  // under bad-row policy `log`, the sink's own version under echo suppression). False when
  // the table failed (bad-row policy `fail`).
  bool ProduceRow(QueuedRow& row, AckTracker::Ticket ticket);
  // Asks for a page's rows as text when every row becomes records the same way (not for a
  // typed table, whose page waits for its types, nor a deletes stream, which re-reads rows).
  bool RowsAsText() const { return !typed_ && !deps_.deletes; }
  std::deque<QueuedPage> queued_pages_;
  std::chrono::steady_clock::time_point last_commit_;
  std::promise<void> stop_promise_;

  // Parallel backfill: set while a backlog is being cut or read by ranges (strand-only).
  std::unique_ptr<BackfillRun> backfill_;
  uint64_t backfill_runs_ = 0;  // tells answers of an abandoned run apart
  bool try_parallel_ = true;    // cleared when a backlog was too small to cut
  // The rows per second of the backlog the last ranges read, until the next backlog is
  // considered (-1: none): what was left after them is cut only if that rate could fill it.
  double recut_rows_per_s_ = -1;

  // Deletes stream (audit_poller.cpp).
  std::shared_ptr<TablePoller> deletes_poller_;  // set before Start, never changed after
  std::function<void()> on_stopped_;             // a deletes stream tells its row stream
  int64_t finished_hi_ = RowWatermark::kNone;    // strand-only
  bool own_stopped_ = false;
  bool deletes_stopped_ = true;
  bool stop_signalled_ = false;
  std::shared_ptr<Reconciler> reconciler_;  // set before Start, never changed after
  std::atomic<uint64_t> audit_deletes_{0};  // a deletes stream's acknowledged DELETEs

  std::atomic<bool> started_{false};
  std::atomic<bool> failed_flag_{false};
};

}  // namespace snowcar::source
