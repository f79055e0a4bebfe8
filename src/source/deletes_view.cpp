// SPDX-License-Identifier: Apache-2.0
// The socket view and metrics of a table's deletion capture (deletes_view.h).
#include "deletes_view.h"

#include <boost/json.hpp>

#include "snowcar/api/metric_names.h"
#include "snowcar/api/prometheus.h"
#include "snowcar/common/time.h"

namespace snowcar::source {
namespace {

std::string_view ModeName(DeleteCapture d) {
  switch (d) {
    case DeleteCapture::kNone:
      return "none";
    case DeleteCapture::kAudit:
      return "audit";
    case DeleteCapture::kReconcile:
      return "reconcile";
    case DeleteCapture::kAuditReconcile:
      return "audit+reconcile";
  }
  return "none";
}

boost::json::value Time(int64_t ms) {
  if (ms <= 0) return nullptr;
  return boost::json::value(FormatIso8601Millis(ms));
}

std::string Label(const std::string& alias) { return "table=\"" + alias + "\""; }

}  // namespace

boost::json::value DeletesJson(const TablePoller& poller) {
  const TableSettings& table = poller.table();
  if (table.deletes == DeleteCapture::kNone) return nullptr;
  boost::json::object out;
  out["mode"] = ModeName(table.deletes);
  out["emitted_by_audit"] = poller.audit_deletes_emitted();
  const std::shared_ptr<Reconciler>& reconciler = poller.reconciler();
  if (!reconciler) {
    out["emitted_by_reconciliation"] = 0;
    out["reconciliation"] = nullptr;
    return out;
  }
  const Reconciler::View v = reconciler->Read();
  out["emitted_by_reconciliation"] = v.deletes_emitted;
  const SweepState& s = v.state;
  boost::json::object r;
  r["interval_ms"] = table.reconcile_interval_ms;
  r["sweeps"] = s.sweeps;
  r["baseline_taken"] = s.seeded;
  r["rows_emitted"] = v.rows_emitted;
  r["requests"] = v.requests;
  r["gate_waits"] = v.gate_waits;
  r["last_sweep"] = s.sweeps == 0 ? boost::json::value(nullptr)
                                  : boost::json::value(boost::json::object{
                                        {"started_at", Time(s.last_started_at_ms)},
                                        {"duration_ms", s.last_duration_ms},
                                        {"rows_compared", s.last_compared},
                                        {"deleted", s.last_deleted},
                                        {"emitted", s.last_emitted},
                                        {"differences", s.last_deleted + s.last_emitted}});
  r["current_sweep"] =
      !s.in_sweep ? boost::json::value(nullptr)
                  : boost::json::value(boost::json::object{{"started_at", Time(s.started_at_ms)},
                                                           {"after_sys_id", s.after},
                                                           {"rows_compared", s.compared},
                                                           {"deleted", s.deleted},
                                                           {"emitted", s.emitted}});
  r["last_error"] =
      v.last_error.empty() ? boost::json::value(nullptr) : boost::json::value(v.last_error);
  out["reconciliation"] = std::move(r);
  return out;
}

void WriteDeletesMetrics(std::string& out,
                         const std::vector<std::shared_ptr<TablePoller>>& pollers) {
  std::vector<const TablePoller*> capturing;
  std::vector<std::pair<const TablePoller*, Reconciler::View>> reconciling;
  for (const auto& p : pollers) {
    if (p->table().deletes == DeleteCapture::kNone) continue;
    capturing.push_back(p.get());
    if (p->reconciler()) reconciling.emplace_back(p.get(), p->reconciler()->Read());
  }
  if (capturing.empty()) return;
  namespace m = api::metric;
  api::WriteMetricFamily(out, m::kSourceDeletesEmitted, "counter",
                         "Deletions emitted and acknowledged, by how they were found");
  for (const TablePoller* p : capturing) {
    const std::string table = Label(p->table().alias);
    api::WriteSample(out, m::kSourceDeletesEmitted, table + ",found_by=\"audit\"",
                     static_cast<int64_t>(p->audit_deletes_emitted()));
    int64_t reconciled = 0;
    for (const auto& [q, v] : reconciling) {
      if (q == p) reconciled = v.deletes_emitted;
    }
    api::WriteSample(out, m::kSourceDeletesEmitted, table + ",found_by=\"reconciliation\"",
                     reconciled);
  }
  if (reconciling.empty()) return;
  api::WriteMetricFamily(out, m::kSourceReconcileRowsEmitted, "counter",
                         "Rows reconciliation found never emitted, emitted since start");
  for (const auto& [p, v] : reconciling) {
    api::WriteSample(out, m::kSourceReconcileRowsEmitted, Label(p->table().alias), v.rows_emitted);
  }
  api::WriteMetricFamily(out, m::kSourceReconcileLastStart, "gauge",
                         "Start of the last finished reconciliation sweep, seconds since epoch");
  for (const auto& [p, v] : reconciling) {
    api::WriteSample(out, m::kSourceReconcileLastStart, Label(p->table().alias),
                     v.state.last_started_at_ms / 1000);
  }
  api::WriteMetricFamily(out, m::kSourceReconcileLastDuration, "gauge",
                         "Duration of the last finished reconciliation sweep");
  for (const auto& [p, v] : reconciling) {
    api::WriteSample(out, m::kSourceReconcileLastDuration, Label(p->table().alias),
                     static_cast<double>(v.state.last_duration_ms) / 1000.0);
  }
  api::WriteMetricFamily(out, m::kSourceReconcileLastCompared, "gauge",
                         "sys_ids the last finished reconciliation sweep compared");
  for (const auto& [p, v] : reconciling) {
    api::WriteSample(out, m::kSourceReconcileLastCompared, Label(p->table().alias),
                     static_cast<int64_t>(v.state.last_compared));
  }
  api::WriteMetricFamily(out, m::kSourceReconcileLastDifferences, "gauge",
                         "Differences the last finished reconciliation sweep found, by kind");
  for (const auto& [p, v] : reconciling) {
    const std::string table = Label(p->table().alias);
    api::WriteSample(out, m::kSourceReconcileLastDifferences, table + ",kind=\"deleted\"",
                     static_cast<int64_t>(v.state.last_deleted));
    api::WriteSample(out, m::kSourceReconcileLastDifferences, table + ",kind=\"emitted\"",
                     static_cast<int64_t>(v.state.last_emitted));
  }
}

}  // namespace snowcar::source
