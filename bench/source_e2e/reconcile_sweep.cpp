// SPDX-License-Identifier: Apache-2.0
#include "reconcile_sweep.h"

#include <boost/json.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "e2e_processes.h"
#include "support/child_process.h"
#include "support/temp_dir.h"

namespace snowcar::bench {
namespace {

using Clock = std::chrono::steady_clock;

boost::json::object Table(const std::string& socket) {
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(SocketGet(socket, "/v1/source/tables/incident"), ec);
  return ec || !v.is_object() ? boost::json::object{} : v.as_object();
}

int64_t Number(const boost::json::object& o, std::initializer_list<const char*> path) {
  const boost::json::value* v = nullptr;
  const boost::json::object* at = &o;
  for (const char* name : path) {
    if (at == nullptr || (v = at->if_contains(name)) == nullptr) return -1;
    at = v->if_object();
  }
  return v->is_int64() ? v->as_int64() : -1;
}

// What a finished sweep cost, from the socket and /proc.
struct SweepFigures {
  int64_t duration_ms = 0;
  int64_t compared = 0;
  int64_t deleted = 0;
  int64_t requests = 0;  // the reconciler's requests since the previous sweep ended
  double cpu_s = 0;      // the sidecar's CPU over the same span
};

// Waits for sweep number `n` to finish (polling every 20 ms); false after 30 minutes.
bool WaitSweep(const std::string& socket, int64_t n, boost::json::object& table) {
  const auto start = Clock::now();
  while (SecondsSince(start) < 1800) {
    table = Table(socket);
    if (Number(table, {"deletions", "reconciliation", "sweeps"}) >= n) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

uint64_t DirBytes(const std::string& dir) {
  uint64_t total = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir, ec)) {
    if (e.is_regular_file(ec)) total += e.file_size(ec);
  }
  return total;
}

// The idset family's SST bytes from the sidecar's /metrics (0 when absent).
double IdSetSstBytes(const std::string& socket) {
  const std::string text = SocketGet(socket, "/metrics");
  const std::string series = "snowcar_state_sst_files_bytes{column_family=\"idset\"} ";
  const size_t at = text.find(series);
  return at == std::string::npos ? 0 : std::atof(text.c_str() + at + series.size());
}

}  // namespace

void RunReconcileSweep(const std::string& bootstrap, const SweepOptions& o) {
  auto emulator =
      StartSnowcar({"emulate", "--port", "0", "--tables", "incident:" + std::to_string(o.rows)});
  const std::string base = emulator.first_line;
  testsupport::TempDir dir("reconcile-sweep");
  const std::string socket = dir.File("snowcar.sock");
  const std::string config_path = dir.File("bench.properties");
  {
    std::ofstream cfg(config_path);
    cfg << SourceSidecarProperties(base, bootstrap, "bench.sweep", dir.path().string())
        << "snow.source.batch.size=5000\nsnow.table.incident.deletes=reconcile\n"
        // A deletion is produced once the row stream has polled past the moment it was seen
        // (no DELETE may overtake the row's last UPSERT): a short poll interval keeps that wait
        // from dominating the sweeps that find deletions.
        << "snow.source.poll.interval.ms=1000\n"
        << "snow.table.incident.reconcile.interval.ms=1000\n"
        << "snow.table.incident.reconcile.batch.size=" << o.batch << "\n";
  }
  std::printf(
      "\nreconciliation: %d rows of `incident`, reconcile.batch.size %d, %d ms per request "
      "after the backfill, %d rows removed by the Table Cleaner after the baseline sweep\n",
      o.rows, o.batch, o.latency_ms, o.deletions);
  const auto start = Clock::now();
  auto child = StartSidecar(config_path);
  if (child == nullptr) return;
  const pid_t pid = child->pid();
  while (Number(Table(socket), {"rows_emitted"}) < o.rows) {
    if (SecondsSince(start) > 1800) {
      std::fprintf(stderr, "the backfill did not finish in 1800 s\n");
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::printf("backfill: %.1f s\n", SecondsSince(start));
  if (o.latency_ms > 0) {
    EmulatorHttp("POST", base + "/_emulator/latency",
                 "{\"fixed_ms\":" + std::to_string(o.latency_ms) +
                     ",\"path_prefix\":\"/api/now/table/incident\"}");
  }
  std::printf(
      "\n| sweep | duration s | rows compared | deleted | requests | sidecar CPU s | CPU µs per "
      "row |\n|---|---|---|---|---|---|---|\n");
  boost::json::object table;
  int64_t requests = 0;
  double cpu = ProcessCpuSeconds(pid);
  for (int64_t n = 1; n <= 3; ++n) {
    if (!WaitSweep(socket, n, table)) {
      std::fprintf(stderr, "sweep %lld did not finish in 1800 s\n", static_cast<long long>(n));
      return;
    }
    SweepFigures f;
    f.duration_ms = Number(table, {"deletions", "reconciliation", "last_sweep", "duration_ms"});
    f.compared = Number(table, {"deletions", "reconciliation", "last_sweep", "rows_compared"});
    f.deleted = Number(table, {"deletions", "reconciliation", "last_sweep", "deleted"});
    const int64_t total = Number(table, {"deletions", "reconciliation", "requests"});
    f.requests = total - requests;
    requests = total;
    const double now = ProcessCpuSeconds(pid);
    f.cpu_s = now - cpu;
    cpu = now;
    std::printf("| %lld%s | %.2f | %lld | %lld | %lld | %.2f | %.2f |\n", static_cast<long long>(n),
                n == 1 ? " (baseline)" : "", static_cast<double>(f.duration_ms) / 1000,
                static_cast<long long>(f.compared), static_cast<long long>(f.deleted),
                static_cast<long long>(f.requests), f.cpu_s,
                f.compared > 0 ? f.cpu_s * 1e6 / static_cast<double>(f.compared) : 0.0);
    std::fflush(stdout);
    if (n == 1 && o.deletions > 0) {
      // The first rows the instance lists, removed with no audit trail: only a sweep sees it.
      const std::string page = EmulatorHttp(
          "GET", base + "/api/now/table/incident?sysparm_fields=sys_id&sysparm_limit=" +
                     std::to_string(o.deletions));
      boost::json::array ids;
      boost::system::error_code ec;
      const boost::json::value v = boost::json::parse(page, ec);
      if (!ec && v.is_object()) {
        for (const auto& row : v.at("result").as_array()) ids.push_back(row.at("sys_id"));
      }
      EmulatorHttp(
          "POST", base + "/_emulator/cleaner",
          boost::json::serialize(boost::json::object{{"table", "incident"}, {"sys_ids", ids}}));
    }
  }
  const int64_t found = Number(table, {"deletions", "emitted_by_reconciliation"});
  std::printf("\ndeletions found by reconciliation: %lld of %d\n", static_cast<long long>(found),
              o.deletions);
  std::printf("id set: %.1f MiB of idset SST files (%.1f bytes per row), state dir %.1f MiB\n",
              IdSetSstBytes(socket) / (1 << 20),
              IdSetSstBytes(socket) / static_cast<double>(o.rows),
              static_cast<double>(DirBytes(dir.File("state"))) / (1 << 20));
  std::printf("sidecar peak RSS %.1f MiB\n", PeakRssMiB(pid));
  (void)child->Signal(SIGTERM);
  (void)child->Wait(std::chrono::seconds(60));
  (void)emulator.process->Signal(SIGTERM);
  (void)emulator.process->Wait(std::chrono::seconds(60));
}

}  // namespace snowcar::bench
