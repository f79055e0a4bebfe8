// SPDX-License-Identifier: Apache-2.0
// The source's Prometheus exposition: one sample per table, labelled table="<alias>".
#include <string>

#include "deletes_view.h"
#include "snowcar/api/metric_names.h"
#include "snowcar/api/prometheus.h"
#include "snowcar/servicenow/table_client.h"
#include "source_direction.h"

namespace snowcar::source {
namespace {

void Sample(std::string& out, const char* name, const std::string& table, int64_t value) {
  out += name;
  out += "{table=\"" + table + "\"} " + std::to_string(value) + "\n";
}

// One series per table and purpose, the deletes stream's requests under the row table's alias
// (purpose audit), reconciliation's under purpose sweep.
void WriteRequestMetrics(std::string& out,
                         const std::vector<std::shared_ptr<TablePoller>>& pollers) {
  api::WriteMetricFamily(out, api::metric::kSnowRequests, "counter",
                         "Requests sent to the instance, by purpose (page, count, probe, "
                         "dictionary, audit, sweep)");
  for (const auto& poller : pollers) {
    const std::string table = "table=\"" + api::EscapeLabelValue(poller->table().alias) + "\"";
    for (const RequestPurpose purpose : kRequestPurposes) {
      int64_t n = poller->status().Requests(purpose);
      if (poller->deletes_poller()) n += poller->deletes_poller()->status().Requests(purpose);
      if (purpose == RequestPurpose::kSweep && poller->reconciler()) {
        n += poller->reconciler()->Read().requests;
      }
      api::WriteSample(out, api::metric::kSnowRequests,
                       table + ",purpose=\"" + std::string(RequestPurposeName(purpose)) + "\"", n);
    }
  }
}

}  // namespace

void SourceDirection::WriteMetrics(std::string& out) const {
  // Every table's poller, or in a source group the owned tables' ones, and each one's deletes
  // stream (deletes=audit) under table="<alias>.deletes".
  auto pollers = CurrentPollers();
  for (size_t i = 0, n = pollers.size(); i < n; ++i) {
    if (pollers[i]->deletes_poller()) pollers.push_back(pollers[i]->deletes_poller());
  }
  struct Counter {
    const char* name;
    const char* help;
    const std::atomic<int64_t> TableStatus::*field;
  };
  static const Counter kCounters[] = {
      {"snowcar_source_rows_emitted_total", "Row versions produced and acknowledged by Kafka",
       &TableStatus::rows_emitted},
      {"snowcar_source_pages_fetched_total", "Pages read from the Table API",
       &TableStatus::pages_fetched},
      {"snowcar_source_duplicates_suppressed_total",
       "Rows re-read (overlap, restart) and suppressed by the dedup index",
       &TableStatus::duplicates_suppressed},
      {"snowcar_source_rows_skipped_total", "Bad rows skipped (snow.source.bad.row.behavior=skip)",
       &TableStatus::rows_skipped},
      {"snowcar_source_retries_total", "Retries and back-offs after ServiceNow or Kafka errors",
       &TableStatus::retries},
      {"snowcar_source_sweeps_total",
       "Sweeps that reached the high-water mark (a caught-up table finishes one every poll "
       "interval)",
       &TableStatus::sweeps},
  };
  for (const Counter& c : kCounters) {
    api::WriteMetricFamily(out, c.name, "counter", c.help);
    for (const auto& poller : pollers) {
      Sample(out, c.name, poller->table().alias, (poller->status().*(c.field)).load());
    }
  }
  const struct {
    std::string_view name;
    const char* help;
    const std::atomic<int64_t> TableStatus::*field;
  } kEcho[] = {
      {api::metric::kSourceEchoMarked,
       "Row versions the sink of this process wrote, emitted with snow.origin headers",
       &TableStatus::echo_marked},
      {api::metric::kSourceEchoSuppressed,
       "Row versions the sink of this process wrote, kept out of the topic "
       "(snow.source.echo=suppress)",
       &TableStatus::echo_suppressed},
  };
  for (const auto& c : kEcho) {
    api::WriteMetricFamily(out, c.name, "counter", c.help);
    for (const auto& poller : pollers) {
      api::WriteSample(out, c.name, "table=\"" + poller->table().alias + "\"",
                       (poller->status().*(c.field)).load());
    }
  }
  api::WriteMetricFamily(
      out, "snowcar_source_throttled_seconds_total", "counter",
      "Time the table lost to retries, throttling (429, Retry-After) and back-off waits");
  for (const auto& poller : pollers) {
    api::WriteSample(out, "snowcar_source_throttled_seconds_total",
                     "table=\"" + poller->table().alias + "\"",
                     static_cast<double>(poller->status().throttled_ms.load()) / 1000.0);
  }
  const int64_t server_now_s =
      (context_.client != nullptr ? context_.client->ServerNowMillis() : 0) / 1000;
  api::WriteMetricFamily(out, "snowcar_source_lag_seconds", "gauge",
                         "Instance clock minus the committed cursor's timestamp");
  for (const auto& poller : pollers) {
    const auto view = poller->status().Read();
    Sample(out, "snowcar_source_lag_seconds", poller->table().alias,
           std::max<int64_t>(0, server_now_s - view.cursor.ts));
  }
  api::WriteMetricFamily(out, "snowcar_source_caught_up", "gauge",
                         "1 while the table runs in phase stream (its last sweep reached the "
                         "instance's clock); a lag that grows while this is 1 is an idle table");
  for (const auto& poller : pollers) {
    const auto view = poller->status().Read();
    Sample(out, "snowcar_source_caught_up", poller->table().alias,
           view.phase == state::Phase::kStream && view.state == TableState::kRunning ? 1 : 0);
  }
  // One series per phase, 1 for the current one: lag can then be read per phase
  // (snowcar_source_lag_seconds * on(table) group_left snowcar_source_phase{phase="stream"}).
  api::WriteMetricFamily(out, api::metric::kSourcePhase, "gauge",
                         "1 for the phase the table's cursor is in (backfill: reading history "
                         "up to the instance's clock; stream: caught up once), 0 for the other");
  for (const auto& poller : pollers) {
    const state::Phase phase = poller->status().Read().phase;
    for (const state::Phase p : {state::Phase::kBackfill, state::Phase::kStream}) {
      api::WriteSample(out, api::metric::kSourcePhase,
                       "table=\"" + api::EscapeLabelValue(poller->table().alias) + "\",phase=\"" +
                           std::string(state::PhaseName(p)) + "\"",
                       int64_t{p == phase ? 1 : 0});
    }
  }
  api::WriteMetricFamily(out, "snowcar_source_table_failed", "gauge",
                         "1 when the table stopped on an error");
  for (const auto& poller : pollers) {
    Sample(out, "snowcar_source_table_failed", poller->table().alias,
           poller->status().Read().state == TableState::kFailed ? 1 : 0);
  }
  api::WriteMetricFamily(out, "snowcar_source_cursor_timestamp_seconds", "gauge",
                         "The committed cursor's timestamp, seconds since the epoch");
  for (const auto& poller : pollers) {
    Sample(out, "snowcar_source_cursor_timestamp_seconds", poller->table().alias,
           poller->status().Read().cursor.ts);
  }
  WriteRequestMetrics(out, CurrentPollers());
  WriteDeletesMetrics(out, CurrentPollers());
  if (ownership_) ownership_->WriteMetrics(out);
}

}  // namespace snowcar::source
