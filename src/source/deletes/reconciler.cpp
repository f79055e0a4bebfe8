// SPDX-License-Identifier: Apache-2.0
// A table's reconciliation sweeps (reconciler.h, reconcile_sweep.h).
#include "reconciler.h"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <boost/json.hpp>
#include <map>
#include <optional>

#include "snowcar/common/log.h"
#include "snowcar/common/time.h"
#include "snowcar/source/rows/keyset_query.h"
#include "snowcar/source/rows/row.h"
#include "typed_deletes.h"

namespace snowcar::source {
namespace {

constexpr int64_t kGateRecheckMs = 250;
constexpr int64_t kRetryMs = 5000;
constexpr int64_t kNotCaughtUpMs = 1000;
// Pages compared before their differences are confirmed and produced together. A page with
// deletions waits for the row stream's next acknowledged poll (WaitForGate: up to a poll
// interval plus the safety lag); paying that once per page made a sweep whose deletions were
// spread over every page a hundred times slower than one with none. The position is stored
// after a batch, so a crash re-reads at most one batch of pages.
constexpr int kPagesPerBatch = 16;
constexpr size_t kGonePerBatch = 1000;

int64_t WallMs() { return SystemClock::Instance().NowMillis(); }

bool IsHexId(std::string_view id) {
  return id.size() == 32 && std::all_of(id.begin(), id.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

std::string IdOf(const boost::json::value& row, const std::string& field) {
  const boost::json::object* o = row.if_object();
  if (o == nullptr) return {};
  const boost::json::value* v = o->if_contains(field);
  if (v != nullptr && v->is_object()) v = v->get_object().if_contains("value");
  if (v == nullptr || !v->is_string()) return {};
  return std::string(v->get_string());
}

// A list read answered 2xx whose body is no list (a single record, another object) has no
// rows to go by: read as an empty page, every id it should have shown would become a DELETE.
// It fails the batch instead, which is read again.
std::optional<std::string> NotAList(const servicenow::CallResult& result) {
  if (result.response.kind == servicenow::BodyKind::kList) return std::nullopt;
  return "the instance answered HTTP " + std::to_string(result.http_status) +
         " with a body that is not a list of rows (" +
         std::string(servicenow::BodyKindName(result.response.kind)) + ")";
}

}  // namespace

Reconciler::Reconciler(Deps deps)
    : deps_(std::move(deps)), strand_(boost::asio::make_strand(*deps_.io)), timer_(strand_) {}

void Reconciler::Start() {
  boost::asio::post(strand_, [self = shared_from_this()] { self->Begin(); });
}

void Reconciler::Stop() {
  boost::asio::post(strand_, [self = shared_from_this()] {
    self->stopping_ = true;
    self->timer_.cancel();
  });
}

Reconciler::View Reconciler::Read() const {
  std::lock_guard lock(view_mu_);
  View v = view_;
  v.deletes_emitted = deletes_emitted_.load();
  v.rows_emitted = rows_emitted_.load();
  v.requests = requests_.load();
  v.gate_waits = gate_waits_.load();
  return v;
}

void Reconciler::SetError(std::string message) {
  SNOWCAR_LOG(kWarn, "source.reconcile_error", {{"table", deps_.table->alias}, {"error", message}});
  std::lock_guard lock(view_mu_);
  view_.last_error = std::move(message);
}

void Reconciler::Begin() {
  if (stopping_) return;
  auto stored = deps_.store->GetSweepState(deps_.source->instance, deps_.table->alias);
  if (stored.ok() && stored->has_value()) {
    auto decoded = DecodeSweepState(**stored);
    if (decoded.ok()) {
      state_ = *decoded;
    } else {
      SetError(decoded.status().message() + "; the next sweep starts from the beginning");
    }
  } else if (!stored.ok()) {
    SetError(stored.status().message());
  }
  loaded_ = true;
  typed_ = TypedDeletes::MakeIfNeeded(*deps_.source, *deps_.table);
  {
    std::lock_guard lock(view_mu_);
    view_.state = state_;
  }
  if (state_.in_sweep) {
    SNOWCAR_LOG(kInfo, "source.reconcile_resumed",
                {{"table", deps_.table->alias}, {"after", state_.after}});
    Arm(0);
    return;
  }
  const int64_t due = state_.last_started_at_ms == 0
                          ? 0
                          : state_.last_started_at_ms + deps_.table->reconcile_interval_ms;
  Arm(std::max<int64_t>(0, due - WallMs()));
}

void Reconciler::Arm(int64_t delay_ms) {
  if (stopping_) return;
  timer_.expires_after(std::chrono::milliseconds(delay_ms));
  timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    if (ec || self->stopping_) return;
    self->Tick();
  });
}

void Reconciler::Tick() {
  // Only once the row stream has acknowledged a sweep: before that the id set is still being
  // filled by the backfill, every row would look unknown, and a batch would have no watermark
  // to leave newer rows to the row stream by. A sweep resumed after a restart waits too.
  if (deps_.watermark->swept_hi.load() == RowWatermark::kNone) {
    Arm(kNotCaughtUpMs);
    return;
  }
  if (!state_.in_sweep) {
    state_.in_sweep = true;
    state_.after.clear();
    state_.started_at_ms = WallMs();
    state_.compared = state_.deleted = state_.emitted = 0;
    SNOWCAR_LOG(kInfo, "source.reconcile_started",
                {{"table", deps_.table->alias}, {"seeded", state_.seeded}});
    Persist();
  }
  StartBatch();
}

void Reconciler::StartBatch() {
  page_ = Page{};
  page_.read_after = state_.after;
  RequestPage();
}

void Reconciler::Retry(const std::string& why) {
  SetError(deps_.table->alias + ": reconciliation: " + why +
           "; the batch of pages is read again in " + std::to_string(kRetryMs) + " ms");
  page_ = Page{};
  Arm(kRetryMs);
}

void Reconciler::RequestPage() {
  if (stopping_) return;
  servicenow::InstanceRequest request;
  request.target =
      SweepPageTarget(*deps_.table, page_.read_after, deps_.table->reconcile_batch_size);
  requests_.fetch_add(1);
  deps_.client->Send(
      std::move(request), strand_,
      [self = shared_from_this()](const servicenow::CallResult& result) { self->OnPage(result); });
}

void Reconciler::OnPage(const servicenow::CallResult& result) {
  if (stopping_) return;
  if (!result.ok()) {
    Retry(result.ToStatus().message());
    return;
  }
  if (auto why = NotAList(result)) {
    Retry("a page of sys_ids: " + *why);
    return;
  }
  std::vector<std::string> ids;
  ids.reserve(result.response.rows.size());
  for (const boost::json::value& row : result.response.rows) {
    std::string id = IdOf(row, deps_.table->sys_id_field);
    if (!IsHexId(id)) continue;  // not tracked (docs/state-store.md, Id sets)
    if (!ids.empty() && id <= ids.back()) {
      Retry("the instance did not answer in sys_id order");
      return;
    }
    ids.push_back(std::move(id));
  }
  // Only an empty page ends the sweep: a short one may be short because the instance hid rows
  // of it (ACLs apply after the limit), and rows may follow.
  const bool last = result.response.rows.empty();
  if (!last && ids.empty()) {
    // The position is a tracked id; without one the sweep cannot go on after this page.
    Retry("a page of " + std::to_string(result.response.rows.size()) +
          " rows named no 32-hex sys_id to go on after");
    return;
  }
  page_.end = last ? "" : ids.back();
  // Before the flush (see ReadUnknownNext); the batch's first page's, the lowest.
  if (page_.pages == 0) page_.rows_hi = deps_.watermark->swept_hi.load();
  // Everything the pollers acknowledged so far is in the set before it is compared.
  if (Status s = deps_.emitted->Flush(*deps_.store, deps_.source->instance, deps_.table->alias);
      !s.ok()) {
    Retry(s.message());
    return;
  }
  // After the empty page, the set's ids past the last one the instance showed are all gone:
  // at most a batch of them at a time, the next batch going on after the last one taken.
  const size_t limit = last ? kGonePerBatch : SIZE_MAX;
  auto known = deps_.store->IdSetRange(deps_.source->instance, deps_.table->alias, page_.read_after,
                                       page_.end, limit);
  if (!known.ok()) {
    Retry(known.status().message());
    return;
  }
  if (last && known->size() >= limit) page_.end = known->back();
  PageDiff diff = ComparePage(ids, *known);
  page_.compared += ids.size();
  page_.gone.insert(page_.gone.end(), diff.gone.begin(), diff.gone.end());
  if (state_.seeded) {
    page_.unknown.insert(page_.unknown.end(), diff.unknown.begin(), diff.unknown.end());
  } else if (!diff.unknown.empty()) {
    // The first sweep takes what the instance has as the baseline: rows synced before
    // reconciliation was switched on are not re-emitted.
    if (Status s =
            deps_.store->UpdateIdSet(deps_.source->instance, deps_.table->alias, diff.unknown, {});
        !s.ok()) {
      Retry(s.message());
      return;
    }
  }
  if (++page_.pages < kPagesPerBatch && !page_.end.empty() && page_.gone.size() < kGonePerBatch) {
    page_.read_after = page_.end;
    RequestPage();
    return;
  }
  ConfirmNext();
}

void Reconciler::ConfirmNext() {
  if (stopping_) return;
  if (page_.next >= page_.gone.size()) {
    std::erase_if(page_.gone,
                  [this](const std::string& id) { return page_.still_there.contains(id); });
    page_.next = 0;
    ReadUnknownNext();
    return;
  }
  const size_t n = std::min(kIdsPerRead, page_.gone.size() - page_.next);
  const auto from = page_.gone.begin() + static_cast<std::ptrdiff_t>(page_.next);
  std::vector<std::string> ids(from, from + static_cast<std::ptrdiff_t>(n));
  page_.next += n;
  servicenow::InstanceRequest request;
  request.target = RowsByIdTarget(*deps_.table, ids, /*fields_only_id=*/true);
  requests_.fetch_add(1);
  deps_.client->Send(std::move(request), strand_,
                     [self = shared_from_this()](const servicenow::CallResult& result) {
                       if (self->stopping_) return;
                       if (!result.ok()) {
                         self->Retry(result.ToStatus().message());
                         return;
                       }
                       if (auto why = NotAList(result)) {
                         self->Retry("confirming deletions by id: " + *why);
                         return;
                       }
                       // Gone at this instant of the instance's clock, or still there.
                       self->page_.gone_seen_at_ms = self->deps_.client->ServerNowMillis();
                       for (const boost::json::value& row : result.response.rows) {
                         self->page_.still_there.insert(IdOf(row, self->deps_.table->sys_id_field));
                       }
                       self->ConfirmNext();
                     });
}

void Reconciler::ReadUnknownNext() {
  if (stopping_) return;
  if (page_.next >= page_.unknown.size()) {
    WaitForGate();
    return;
  }
  const size_t n = std::min(kIdsPerRead, page_.unknown.size() - page_.next);
  const auto from = page_.unknown.begin() + static_cast<std::ptrdiff_t>(page_.next);
  std::vector<std::string> ids(from, from + static_cast<std::ptrdiff_t>(n));
  page_.next += n;
  servicenow::InstanceRequest request;
  request.target = RowsByIdTarget(*deps_.table, ids, /*fields_only_id=*/false);
  requests_.fetch_add(1);
  deps_.client->Send(
      std::move(request), strand_,
      [self = shared_from_this()](const servicenow::CallResult& result) {
        if (self->stopping_) return;
        if (!result.ok()) {
          self->Retry(result.ToStatus().message());
          return;
        }
        if (auto why = NotAList(result)) {
          self->Retry("reading rows never emitted: " + *why);
          return;
        }
        const TableSettings& table = *self->deps_.table;
        // Rows newer than the row stream's acknowledged sweep are the row stream's to emit;
        // every older row it emitted was acknowledged, so noted, so flushed before the compare.
        const int64_t now = WallMs();
        for (const boost::json::value& v : result.response.rows) {
          const boost::json::object* row = v.if_object();
          if (row == nullptr) continue;
          Result<RowKey> key = ReadRowKey(*row, table);
          if (!key.ok() || LeftToRowStream(key->ts, self->page_.rows_hi)) continue;
          auto record = ReconciledRowRecord(self->typed_.get(), *self->deps_.watermark, *row, *key,
                                            table, *self->deps_.source, now);
          if (!record.ok()) continue;  // a typed value that does not parse: logged, skipped
          self->page_.held.push_back({std::string(key->sys_id), RowVersion{key->ts, key->mod_count},
                                      std::move(record).value()});
        }
        self->ReadUnknownNext();
      });
}

void Reconciler::WaitForGate() {
  if (stopping_) return;
  // The gate of audit deletes (audit_stream.h): every UPSERT of a row gone at instant G is
  // acknowledged once the row stream finished a sweep whose HI passed G's second.
  if (!page_.gone.empty() && deps_.watermark->swept_hi.load() <= page_.gone_seen_at_ms / 1000 + 1) {
    if (!page_.waited) {
      page_.waited = true;
      gate_waits_.fetch_add(1);
    }
    timer_.expires_after(std::chrono::milliseconds(kGateRecheckMs));
    timer_.async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
      if (ec || self->stopping_) return;
      self->WaitForGate();
    });
    return;
  }
  ProducePage();
}

void Reconciler::ProducePage() {
  if (!DropSuperseded() || !DropDeletedMeanwhile()) return;
  const int64_t now = WallMs();
  for (const std::string& id : page_.gone) {
    auto deleted = ReconciledDeletes(typed_.get(), *deps_.watermark, *deps_.table, *deps_.source,
                                     id, page_.gone_seen_at_ms, now);
    if (!deleted.ok()) return Retry(deleted.status().message());
    for (kafka::OutRecord& r : *deleted) page_.records.push_back(std::move(r));
    page_.remove.push_back(id);
  }
  if (page_.records.empty()) {
    OnPageDelivered();
    return;
  }
  page_.in_flight = page_.records.size();
  std::vector<kafka::OutRecord> records = std::move(page_.records);
  page_.records.clear();
  for (kafka::OutRecord& record : records) {
    deps_.producer->Produce(std::move(record), strand_,
                            [self = shared_from_this()](const kafka::DeliveryReport& report) {
                              if (!report.status.ok()) self->page_.failed = true;
                              if (--self->page_.in_flight > 0) return;
                              if (self->page_.failed) {
                                self->Retry("Kafka delivery failed: " + report.status.message());
                                return;
                              }
                              self->OnPageDelivered();
                            });
  }
}

void Reconciler::OnPageDelivered() {
  if (Status s = deps_.store->UpdateIdSet(deps_.source->instance, deps_.table->alias, page_.add,
                                          page_.remove);
      !s.ok()) {
    Retry(s.message());  // the records are out: the page repeats them (at least once)
    return;
  }
  if (!page_.remove.empty() || !page_.add.empty()) {
    SNOWCAR_LOG(kInfo, "source.reconcile_differences",
                {{"table", deps_.table->alias},
                 {"deleted", static_cast<int64_t>(page_.remove.size())},
                 {"emitted", static_cast<int64_t>(page_.add.size())}});
  }
  state_.compared += page_.compared;
  state_.deleted += page_.remove.size();
  state_.emitted += page_.add.size();
  deletes_emitted_.fetch_add(static_cast<int64_t>(page_.remove.size()));
  rows_emitted_.fetch_add(static_cast<int64_t>(page_.add.size()));
  const bool last = page_.end.empty();
  if (!last) {
    state_.after = page_.end;
    Persist();
    if (stopping_) return;
    StartBatch();
    return;
  }
  const int64_t now = WallMs();
  state_.in_sweep = false;
  state_.seeded = true;
  state_.after.clear();
  state_.last_started_at_ms = state_.started_at_ms;
  state_.last_duration_ms = now - state_.started_at_ms;
  state_.last_compared = state_.compared;
  state_.last_deleted = state_.deleted;
  state_.last_emitted = state_.emitted;
  ++state_.sweeps;
  Persist();
  SNOWCAR_LOG(kInfo, "source.reconcile_done",
              {{"table", deps_.table->alias},
               {"compared", static_cast<int64_t>(state_.last_compared)},
               {"deleted", static_cast<int64_t>(state_.last_deleted)},
               {"emitted", static_cast<int64_t>(state_.last_emitted)},
               {"duration_ms", state_.last_duration_ms}});
  Arm(std::max<int64_t>(0, state_.last_started_at_ms + deps_.table->reconcile_interval_ms - now));
}

void Reconciler::Persist() {
  if (Status s = deps_.store->PutSweepState(deps_.source->instance, deps_.table->alias,
                                            EncodeSweepState(state_));
      !s.ok()) {
    SetError(s.message());
  }
  std::lock_guard lock(view_mu_);
  view_.state = state_;
}

}  // namespace snowcar::source
