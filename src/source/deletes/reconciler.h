// SPDX-License-Identifier: Apache-2.0
// Runs a table's reconciliation sweeps (reconcile_sweep.h says what a sweep does and why it
// cannot mistake a changed row for a deleted one) on its own strand, next to the table's row
// poller, which starts and stops it.
//
// Cost and fairness: one request at a time, through the table's client, so the sweep shares
// the instance's request limit with the rows and waits its turn like any table; a page reads
// only sys_ids (`reconcile.batch.size` of them).
//
// Durability: a page's DELETE and UPSERT records are acknowledged by Kafka before the id set
// and the sweep's position move past the page (one state write each). A crash in between
// repeats the page: its records may repeat, none is lost. The position is kept in the store
// (survives restarts) and in the table's changelog snapshot (moves with the table).
#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "audit_stream.h"
#include "reconcile_sweep.h"
#include "snowcar/common/mutex.h"
#include "snowcar/kafka/producer.h"
#include "snowcar/servicenow/table_client.h"
#include "snowcar/source/source_settings.h"
#include "snowcar/state/state_store.h"

namespace snowcar::source {

class TypedDeletes;

// The ids a table's pollers emitted (added) or deleted (removed) since the last flush into
// the store's id set. Any thread.
class EmittedIds {
 public:
  // Pending notes past which the pollers flush them themselves (FlushDue), rather than wait
  // for the reconciler's next page: a backfill acknowledges every row of the table before
  // the first sweep may start, and a million pending ids held about 200 MiB.
  static constexpr size_t kFlushAt = 10000;

  // Each returns FlushDue() as it stands after the note, under the same lock (one lock a row).
  bool Add(std::string_view sys_id) { return Note(sys_id, true); }
  bool Remove(std::string_view sys_id) { return Note(sys_id, false); }
  bool FlushDue() const;
  // True when a poller acknowledged a record of this id (a row version or a DELETE) since the
  // last flush: its version is maybe not in the dedup index yet.
  bool Noted(std::string_view sys_id) const;
  // Writes what is pending into the id set of (instance, table); on failure it stays pending.
  // `keep_notes`: Noted() still answers for the ids written (the row stream's commits, which
  // make the ids durable with the cursor, while a sweep may be checking a held row against
  // what was acknowledged since its compare); otherwise the notes go too (the sweep's own
  // flush before it compares, a stop, and FlushDue, which bounds their memory).
  Status Flush(state::StateStore& store, std::string_view instance, std::string_view table,
               bool keep_notes = false);

  // deletes=audit+reconcile: the audit stream and a sweep can both find one deletion, and
  // both wait for the same row-stream gate, so neither can ask the id set whether the other
  // emitted it (the id leaves the set only once a DELETE is acknowledged). The first to
  // produce a DELETE of an id claims it, under this lock, before producing it; the other then
  // drops its copy (docs/semantics.md, Reconciliation).
  //
  // The audit stream's DELETE of an entry of second `deleted_s`: false, claiming nothing, when
  // a sweep produced a DELETE of the id it found gone at second `deleted_s` or later (that is
  // this deletion), else claims it for the audit stream.
  bool ClaimAuditDelete(std::string_view sys_id, int64_t deleted_s);
  // A sweep's DELETE of an id found gone at second `gone_s`: false when the audit stream
  // produced a DELETE of the id (in flight or acknowledged), else claims it for the sweep.
  bool ClaimSweepDelete(std::string_view sys_id, int64_t gone_s);
  // An UPSERT of the id was produced (a restore the audit stream or a sweep emits): the row
  // is back, so its next deletion is a new one. Add() does the same for acknowledged rows.
  void ReleaseClaim(std::string_view sys_id);
  // Keeps at most this many claims: past it the oldest half is forgotten, which can only
  // repeat a deletion (at least once), never lose one.
  static constexpr size_t kClaimsKept = 100000;

 private:
  bool Note(std::string_view sys_id, bool add);
  mutable Mutex mu_;
  // id -> added (true) or removed (false), not yet written into the id set
  std::unordered_map<std::string, bool> pending_ SNOWCAR_GUARDED_BY(mu_);
  // Every id noted since the last flush that dropped the notes (Noted, FlushDue).
  std::unordered_set<std::string> noted_ SNOWCAR_GUARDED_BY(mu_);
  struct Claim {
    bool by_sweep = false;
    int64_t second = 0;  // the audit entry's, or when the sweep saw the row gone
    uint64_t order = 0;  // when claimed, for forgetting the oldest
  };
  void ForgetOldestClaims() SNOWCAR_REQUIRES(mu_);
  std::unordered_map<std::string, Claim> claims_ SNOWCAR_GUARDED_BY(mu_);
  uint64_t claims_made_ SNOWCAR_GUARDED_BY(mu_) = 0;
};

class Reconciler : public std::enable_shared_from_this<Reconciler> {
 public:
  struct Deps {
    boost::asio::io_context* io = nullptr;
    servicenow::TableClient* client = nullptr;
    std::shared_ptr<kafka::RecordProducer> producer;
    state::StateStore* store = nullptr;
    const SourceSettings* source = nullptr;
    const TableSettings* table = nullptr;
    std::shared_ptr<RowWatermark> watermark;  // the row stream's acknowledged sweeps
    std::shared_ptr<EmittedIds> emitted;
  };
  explicit Reconciler(Deps deps);

  void Start();
  // Stops issuing requests. Records in flight still complete; the page they belong to is
  // swept again next time (the position moves only after a whole batch of pages is
  // acknowledged).
  void Stop();

  struct View {
    SweepState state;
    int64_t deletes_emitted = 0;  // since start
    int64_t rows_emitted = 0;     // rows found never emitted, since start
    int64_t requests = 0;
    // Batches whose DELETEs had to wait for the row stream (WaitForGate), since start: one a
    // batch at most, however many of its pages found deletions.
    int64_t gate_waits = 0;
    std::string last_error;
  };
  View Read() const;

 private:
  using Strand = boost::asio::strand<boost::asio::io_context::executor_type>;

  void Begin();
  void Arm(int64_t delay_ms);
  void Tick();
  void StartBatch();   // pages from the stored position on
  void RequestPage();  // the next page of the batch
  void OnPage(const servicenow::CallResult& result);
  void ConfirmNext();
  void ReadUnknownNext();
  void WaitForGate();
  // Drops the held rows the row stream emitted a version of, as new or newer, since they were
  // read; false when the batch is retried instead (the dedup index could not be read).
  bool DropSuperseded();
  // Drops the gone ids the audit stream emitted a DELETE of since they were compared
  // (deletes=audit+reconcile); false when the batch is retried instead.
  bool DropDeletedMeanwhile();
  void ProducePage();
  void OnPageDelivered();
  void Retry(const std::string& why);
  void Persist();
  void SetError(std::string message);

  Deps deps_;
  Strand strand_;
  boost::asio::steady_timer timer_;

  // Strand-only.
  SweepState state_;
  bool stopping_ = false;
  bool loaded_ = false;
  // The pages of one batch (kPagesPerBatch in reconciler.cpp), compared one by one and their
  // differences confirmed and produced together.
  struct Page {
    std::string read_after;  // where the next page read starts (state_.after at first)
    int pages = 0;           // compared so far
    size_t compared = 0;     // ids compared so far
    std::string end;         // last id of the last page; "" on the sweep's last page
    std::vector<std::string> gone;
    std::vector<std::string> unknown;
    size_t next = 0;  // next id (of gone, then unknown) to read
    std::set<std::string> still_there;
    int64_t gone_seen_at_ms = 0;  // instance clock when the last confirmation answered
    int64_t rows_hi = 0;          // the row stream's watermark read before the id set was
    // Rows read as never emitted, produced with the batch's DELETEs unless the row stream
    // emitted them meanwhile (DropSuperseded).
    struct HeldRow {
      std::string sys_id;
      RowVersion version;
      kafka::OutRecord record;
    };
    std::vector<HeldRow> held;
    std::vector<kafka::OutRecord> records;
    std::vector<std::string> add;     // ids emitted as UPSERTs
    std::vector<std::string> remove;  // ids emitted as DELETEs
    size_t in_flight = 0;
    bool failed = false;
    bool waited = false;  // counted in gate_waits_
  };
  Page page_;
  std::shared_ptr<TypedDeletes> typed_;  // a typed table's (typed_deletes.h), made by Begin

  mutable std::mutex view_mu_;
  View view_;
  std::atomic<int64_t> deletes_emitted_{0};
  std::atomic<int64_t> rows_emitted_{0};
  std::atomic<int64_t> requests_{0};
  std::atomic<int64_t> gate_waits_{0};
};

}  // namespace snowcar::source
