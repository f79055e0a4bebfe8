// SPDX-License-Identifier: Apache-2.0
// TablePoller's hooks for deletes from the audit trail (audit_stream.h): the deletes stream is
// a TablePoller reading sys_audit, attached to its table's row poller, started and stopped
// with it. Kept apart from table_poller.cpp so the row path reads as before.
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/post.hpp>

#include "../deletes/typed_deletes.h"
#include "../exactly_once/table_transaction.h"
#include "snowcar/common/log.h"
#include "snowcar/common/time.h"
#include "snowcar/source/rows/record_builder.h"
#include "table_poller.h"

namespace snowcar::source {

std::shared_ptr<TablePoller> TablePoller::Make(Deps deps) {
  const DeleteCapture mode = deps.table->deletes;
  if (mode == DeleteCapture::kNone || deps.deletes) {
    return std::make_shared<TablePoller>(std::move(deps));
  }
  // Both ways of finding deletes hold their DELETEs behind the row stream's acknowledged
  // sweeps (audit_stream.h, reconcile_sweep.h).
  auto watermark = std::make_shared<RowWatermark>();
  deps.watermark = watermark;
  std::shared_ptr<Reconciler> reconciler;
  if (Reconciles(mode)) {
    deps.emitted = std::make_shared<EmittedIds>();
    reconciler = std::make_shared<Reconciler>(Reconciler::Deps{deps.io, deps.client, deps.producer,
                                                               deps.store, deps.source, deps.table,
                                                               watermark, deps.emitted});
  }
  if (!ReadsAudit(mode)) {
    auto rows = std::make_shared<TablePoller>(std::move(deps));
    rows->reconciler_ = std::move(reconciler);
    return rows;
  }
  auto stream = std::make_shared<DeletesStream>();
  stream->rows = deps.table;
  stream->settings = AuditTableSettings(*deps.table);
  stream->watermark = watermark;
  stream->typed = TypedDeletes::MakeIfNeeded(*deps.source, *deps.table);
  Deps deletes_deps = deps;
  deletes_deps.table = &stream->settings;  // lives as long as the poller holds the stream
  deletes_deps.deletes = stream;
  deletes_deps.watermark = nullptr;
  deletes_deps.transaction = std::move(deletes_deps.deletes_transaction);
  if (deletes_deps.transaction) deletes_deps.producer = deletes_deps.transaction->producer();
  auto rows = std::make_shared<TablePoller>(std::move(deps));
  auto deletes = std::make_shared<TablePoller>(std::move(deletes_deps));
  deletes->on_stopped_ = [weak = std::weak_ptr<TablePoller>(rows)] {
    if (auto self = weak.lock()) {
      boost::asio::post(self->strand_, [self] {
        self->deletes_stopped_ = true;
        if (self->own_stopped_) self->SignalStopped(/*force=*/false);
      });
    }
  };
  rows->deletes_poller_ = std::move(deletes);
  rows->deletes_stopped_ = false;
  rows->reconciler_ = std::move(reconciler);
  return rows;
}

void TablePoller::StartAttached() {
  if (reconciler_) reconciler_->Start();
}

void TablePoller::StopAttached() {
  if (reconciler_) reconciler_->Stop();
}

void TablePoller::ApplyNote(const DeliveredNote* note, const kafka::DeliveryReport& report) {
  if (note == nullptr || !report.status.ok()) return;
  if (note->is_delete) audit_deletes_.fetch_add(1);
  if (!deps_.emitted) return;
  const bool due = note->is_delete && !note->row_after ? deps_.emitted->Remove(note->sys_id)
                                                       : deps_.emitted->Add(note->sys_id);
  if (due) FlushEmitted();
}

void TablePoller::NoteDelivered(const state::DedupKey& key) {
  // A deletes stream's entries are audit rows: its records note themselves (ProduceRecords).
  if (!deps_.emitted || deps_.deletes) return;
  if (deps_.emitted->Add(key.sys_id)) FlushEmitted();
}

void TablePoller::FlushEmitted(bool keep_notes) {
  if (!deps_.emitted) return;
  // The id set of the table whose rows these are (a deletes stream notes into its table's).
  const std::string& alias = deps_.deletes ? deps_.deletes->rows->alias : deps_.table->alias;
  if (Status s = deps_.emitted->Flush(*deps_.store, deps_.source->instance, alias, keep_notes);
      !s.ok()) {
    // They stay pending: the reconciler's next page flushes them again before it compares.
    SNOWCAR_LOG(kWarn, "source.idset_flush_failed", {{"table", alias}, {"error", s.message()}});
  }
}

int64_t TablePoller::SweepClockMs() const {
  const int64_t now = deps_.client->ServerNowMillis();
  if (!deps_.deletes) return now;
  return DeletesSweepClock(now, *deps_.deletes->watermark, deps_.source->safety_lag_seconds);
}

void TablePoller::NoteSweepFinished() {
  if (!deps_.watermark) return;
  finished_hi_ = plan_.hi();
  PublishWatermark();
}

void TablePoller::PublishWatermark() {
  // Every row the finished sweep read is in Kafka once none is queued or in flight (rows of
  // a sweep are queued before the sweep finishes, and a failed delivery clears finished_hi_).
  if (!deps_.watermark || finished_hi_ == RowWatermark::kNone) return;
  // A typed table's deletions are written with the types its rows were (typed_deletes.h): none
  // is read before those are published.
  if (typed_ && !deps_.watermark->typed.load()) return;
  if (in_flight_ > 0 || !queued_pages_.empty() || produce_failed_) return;
  // Exactly-once: acknowledged is not yet readable. A deletion committed before its row's
  // transaction could reach a read_committed reader first, or stay alone if that transaction
  // aborts; the commit publishes (poller_transaction.cpp).
  if (deps_.transaction && deps_.transaction->open()) return;
  deps_.watermark->Publish(finished_hi_);
}

void TablePoller::ProduceRecords(std::vector<kafka::OutRecord> records, AckTracker::Ticket ticket,
                                 state::DedupKey dedup) {
  // With a sweep beside the audit stream, one of them emits a deletion both found.
  if (deps_.deletes && deps_.emitted)
    DropDeletionTheSweepEmitted(records, dedup.ts, *deps_.emitted);
  std::shared_ptr<DeliveredNote> note;
  if (deps_.deletes && !records.empty() && records.front().key) {
    // What the entry does to the row, applied once all its records are acknowledged: a
    // DELETE takes the id out of the reconciliation's id set, a RECOVERED row puts it back.
    // A DELETE followed by the row (restored since, MarkPossibleRestores) leaves it live.
    const kafka::Header* op = kafka::FindHeader(records.front().headers, kOperationHeader);
    const kafka::Header* last = kafka::FindHeader(records.back().headers, kOperationHeader);
    const bool row_after = records.size() > 1 && last != nullptr && last->value == "UPSERT";
    note = std::make_shared<DeliveredNote>(
        DeliveredNote{*records.front().key, op != nullptr && op->value == "DELETE", row_after});
  }
  const uint64_t generation = generation_;
  if (records.size() == 1) {
    deps_.producer->Produce(std::move(records.front()), strand_,
                            [self = shared_from_this(), generation, ticket, note,
                             dedup = std::move(dedup)](const kafka::DeliveryReport& report) {
                              self->ApplyNote(note.get(), report);
                              self->OnDelivery(generation, ticket, dedup, report);
                            });
    return;
  }
  if (records.empty()) {
    // An entry that becomes no record (a RECOVERED row gone again): done, as if delivered.
    // Posted, not called: ProduceQueued is still iterating its page.
    boost::asio::post(strand_,
                      [self = shared_from_this(), generation, ticket, dedup = std::move(dedup)] {
                        self->OnDelivery(generation, ticket, dedup, kafka::DeliveryReport{});
                      });
    return;
  }
  // A DELETE and its tombstone: one unit, reported once both are (every callback runs on
  // the strand, so the join needs no lock). Same key, same partition: they stay in order.
  struct Join {
    size_t left = 0;
    kafka::DeliveryReport first_failure;
    bool failed = false;
  };
  auto join = std::make_shared<Join>();
  join->left = records.size();
  auto shared_dedup = std::make_shared<state::DedupKey>(std::move(dedup));
  for (kafka::OutRecord& record : records) {
    deps_.producer->Produce(std::move(record), strand_,
                            [self = shared_from_this(), generation, ticket, join, note,
                             shared_dedup](const kafka::DeliveryReport& report) {
                              if (!report.status.ok() && !join->failed) {
                                join->failed = true;
                                join->first_failure = report;
                              }
                              if (--join->left > 0) return;
                              self->ApplyNote(note.get(),
                                              join->failed ? join->first_failure : report);
                              self->OnDelivery(generation, ticket, *shared_dedup,
                                               join->failed ? join->first_failure : report);
                            });
  }
}

bool TablePoller::FetchAuditReads(const PlannedQuery& query, boost::json::array& rows) {
  if (!deps_.deletes) return false;
  // A drain or keyset page continues a second whose first entries came in the previous page.
  MarkPossibleRestores(rows, ContinuedSecond(query));
  // Two reads a page of audit entries may need before it is accepted, in turn: the rows of
  // its undeletes, then (deletes.last.row) what sys_audit_delete kept of its deletions.
  const boost::json::array unseen = Unseen(rows);
  if (std::string target = RecoveredRowsTarget(*deps_.deletes->rows, unseen); !target.empty()) {
    SendAuditRead(std::move(target), std::move(rows), /*recovered=*/true);
    return true;
  }
  if (std::string target = DeletedRowsTarget(*deps_.deletes->rows, unseen); !target.empty()) {
    SendAuditRead(std::move(target), std::move(rows), /*recovered=*/false);
    return true;
  }
  return false;
}

boost::json::array TablePoller::Unseen(const boost::json::array& entries) const {
  // The overlap re-reads entries already in Kafka; they will be suppressed, so the reads
  // they would need are skipped (one read per page of new deletions, not one per poll).
  boost::json::array out;
  for (const boost::json::value& v : entries) {
    if (const boost::json::object* entry = v.if_object(); entry != nullptr && window_) {
      Result<RowKey> key = ReadRowKey(*entry, *deps_.table);
      if (key.ok() && window_->Contains(key->ts, key->sys_id, key->mod_count)) continue;
    }
    out.push_back(v);
  }
  return out;
}

void TablePoller::SendAuditRead(std::string target, boost::json::array rows, bool recovered) {
  servicenow::InstanceRequest request;
  request.target = std::move(target);
  status_.SetLastRequestAt(SystemClock::Instance().NowMillis());
  CountRequest(RequestPurpose::kAudit);
  http_busy_ = true;
  deps_.client->Send(std::move(request), strand_,
                     [self = shared_from_this(), page = std::move(rows),
                      recovered](const servicenow::CallResult& result) mutable {
                       self->http_busy_ = false;
                       if (self->stopping_) {
                         self->FinishStop();
                         return;
                       }
                       if (self->failed_) return;
                       if (!result.ok()) {
                         // The audit page is dropped; the plan has not moved, so it is read again.
                         self->OnFailedAnswer(result);
                         return;
                       }
                       const TableSettings& table = *self->deps_.deletes->rows;
                       if (recovered) {
                         AttachRecoveredRows(table, result.response.rows, page);
                         if (std::string next = DeletedRowsTarget(table, self->Unseen(page));
                             !next.empty()) {
                           self->SendAuditRead(std::move(next), std::move(page), false);
                           return;
                         }
                       } else {
                         AttachDeletedRows(table, result.response.rows, page);
                       }
                       self->AcceptPage(page);
                       if (self->failed_) return;
                       self->AfterPage();
                       self->ProduceQueued();
                     });
}

void TablePoller::SignalStopped(bool force) {
  own_stopped_ = true;
  if (!force && !deletes_stopped_) return;  // the deletes stream reports through on_stopped_
  if (stop_signalled_) return;
  stop_signalled_ = true;
  stop_promise_.set_value();
  if (on_stopped_) on_stopped_();
}

}  // namespace snowcar::source
