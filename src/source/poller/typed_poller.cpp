// SPDX-License-Identifier: Apache-2.0
// TablePoller's hooks for typed records (typed_table.h): a page of a typed table waits for
// the table's column types when they are missing, stale or lack one of its fields, and its
// rows become typed records. Kept apart from table_poller.cpp so the untyped path reads as
// before.
#include "../deletes/typed_deletes.h"
#include "backfill_run.h"
#include "snowcar/common/log.h"
#include "snowcar/common/time.h"
#include "snowcar/schema_registry/outcomes.h"
#include "snowcar/servicenow/outcome_table.h"
#include "snowcar/source/rows/record_builder.h"
#include "table_poller.h"

namespace snowcar::source {

Status TablePoller::RecordsFor(const boost::json::object& row, const RowKey& key,
                               int64_t extracted_at, std::vector<kafka::OutRecord>& out) {
  if (deps_.deletes) {
    if (deps_.deletes->typed) {
      auto records = TypedAuditRecords(row, key, *deps_.deletes, *deps_.source, extracted_at,
                                       *deps_.deletes->typed);
      if (!records.ok()) return records.status();
      out = std::move(records).value();
      return Status::Ok();
    }
    out = AuditRecords(row, key, *deps_.deletes, *deps_.source, extracted_at);
    return Status::Ok();
  }
  if (typed_) {
    auto record = typed_->Build(row, key, extracted_at);
    if (!record.ok()) return record.status();
    out.push_back(std::move(record).value());
    return Status::Ok();
  }
  out.push_back(BuildRecord(row, key, *deps_.table, *deps_.source, extracted_at));
  return Status::Ok();
}

bool TablePoller::HoldForTypes(boost::json::array& rows, std::optional<size_t> range) {
  if (!typed_) return false;
  const int64_t now = SystemClock::Instance().NowMillis();
  // A page that comes while the types are being read waits for them too: the read may change
  // them (and the encoder), and this page may carry a field the one that asked lacks.
  const bool reading = !typed_waits_.empty();
  if (reading || typed_->NeedsDictionary(rows, now)) {
    typed_waits_.push_back({std::move(rows), range, backfill_runs_});
    if (range) backfill_->ranges[*range].http_busy = true;  // its page is not read again
    if (reading) return true;
    SendTypesRead();
    return true;
  }
  return !TypedReady();
}

void TablePoller::SendTypesRead() {
  servicenow::InstanceRequest request;
  request.target = typed_->TypesTarget();
  status_.SetLastRequestAt(SystemClock::Instance().NowMillis());
  CountRequest(RequestPurpose::kDictionary);  // sys_db_object and sys_dictionary alike
  http_busy_ = true;
  SNOWCAR_LOG(kDebug, "source.column_types_request",
              {{"table", deps_.table->alias}, {"reading", typed_->TypesSource()}});
  deps_.client->Send(std::move(request), strand_,
                     [self = shared_from_this()](const servicenow::CallResult& result) {
                       self->OnTypesAnswer(result);
                     });
}

void TablePoller::DropTypedWaits() {
  for (const TypedWait& wait : typed_waits_) {
    if (wait.range && backfill_ && wait.run == backfill_runs_ &&
        *wait.range < backfill_->ranges.size()) {
      backfill_->ranges[*wait.range].http_busy = false;
    }
  }
  typed_waits_.clear();
}

bool TablePoller::TypedReady() {
  // Not about the page: the encoder cannot be built. The page is read again after the
  // back-off; nothing is dropped.
  if (Status s = typed_->Ready(); !s.ok()) {
    TypedBackOff(s);
    return false;
  }
  // The registry's answer: its cell in the outcome table (column kRegisterSchema) says what
  // the table does; nothing else decides it.
  if (Status s = typed_->RegisterSchemas(); !s.ok()) {
    switch (schema_registry::DecideRegistryCall(s, servicenow::CallPurpose::kRegisterSchema)) {
      case servicenow::Action::kStopTable:
        Fail(Label() + ": " + s.message());
        return false;
      case servicenow::Action::kHold:
      default:
        // The page is dropped and read again after the back-off: no row is produced or
        // skipped and the cursor stays.
        TypedBackOff(s);
        return false;
    }
  }
  typed_failures_ = 0;
  // The deletes stream and reconciliation write with what the rows are written with.
  if (deps_.watermark) deps_.watermark->PublishTypes(typed_->Snapshot());
  return true;
}

void TablePoller::TypedBackOff(const Status& why) {
  // The page's good answer reset the failure count; a failure that lasts must still back off
  // longer each time, not ask the registry at the initial pace forever.
  consecutive_failures_ = typed_failures_++;
  BackOff(Label() + ": " + why.message(), /*retry_probe=*/false);
}

void TablePoller::OnTypesAnswer(const servicenow::CallResult& result) {
  http_busy_ = false;
  if (stopping_) {
    typed_waits_.clear();
    FinishStop();
    return;
  }
  if (failed_) return;
  if (produce_failed_) {
    DropTypedWaits();
    Pump();  // the pages are dropped and re-read after recovery
    return;
  }
  const std::string source(typed_->TypesSource());
  const std::string what = Label() + ": reading the column types of " + deps_.table->name +
                           (source == "sys_db_object" ? " (its super-class chain)" : "") +
                           " from " + source;
  if (!result.ok()) {
    DropTypedWaits();
    switch (servicenow::Decide(result, servicenow::CallPurpose::kGetPage)) {
      case servicenow::Action::kHold:
        BackOff(what + ": " + result.ToStatus().message(), false, result.response.retry_after_ms);
        return;
      case servicenow::Action::kPauseInstance:
        BackOff(what + ": " + result.ToStatus().message(), false, result.response.retry_after_ms,
                /*pause=*/true);
        return;
      default:
        // The same cell as a page's (a refused read stops the table), naming the right.
        Fail(what + " failed (typed records need read access to " + source +
             "): " + result.ToStatus().message());
        return;
    }
  }
  AnswerWasGood();
  // Every field of every waiting page, once: what the types must cover.
  boost::json::object fields;
  for (const TypedWait& wait : typed_waits_) {
    for (const boost::json::value& v : wait.rows) {
      if (const boost::json::object* row = v.if_object()) {
        for (const auto& field : *row) fields[field.key()] = nullptr;
      }
    }
  }
  auto done = typed_->OnTypesAnswer(result.response.rows, boost::json::array{std::move(fields)},
                                    SystemClock::Instance().NowMillis());
  if (done.ok() && !*done) {
    SendTypesRead();  // the next table of the chain, or the dictionary: the pages keep waiting
    return;
  }
  if (Status s = done.status(); !s.ok()) {
    DropTypedWaits();
    if (s.retriable() || s.code() == StatusCode::kResourceExhausted) {
      BackOff(what + ": " + s.message(), false);
    } else {
      Fail(what + ": " + s.message());
    }
    return;
  }
  if (!TypedReady()) {
    DropTypedWaits();
    return;
  }
  std::vector<TypedWait> waits = std::move(typed_waits_);
  typed_waits_.clear();
  std::optional<boost::json::array> own;
  for (TypedWait& wait : waits) {
    if (!wait.range) {
      own = std::move(wait.rows);
      continue;
    }
    AcceptHeldRangePage(*wait.range, wait.run, wait.rows);
    if (failed_) return;
  }
  if (own) {
    AcceptAndContinue(*own);
    return;
  }
  ProduceQueued();
  Pump();
}

void TablePoller::AcceptAndContinue(const boost::json::array& rows) {
  AcceptPage(rows);
  if (failed_) return;
  AfterPage();
  ProduceQueued();
}

}  // namespace snowcar::source
