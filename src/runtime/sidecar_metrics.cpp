// SPDX-License-Identifier: Apache-2.0
#include "snowcar/runtime/sidecar_metrics.h"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdint>
#include <sstream>

#include "snowcar/api/metric_names.h"
#include "snowcar/api/prometheus.h"
#include "snowcar/common/file_read.h"
#include "snowcar/common/version.h"
#include "snowcar/servicenow/curl_table_client.h"
#include "snowcar/state/state_store.h"

namespace snowcar::runtime {
namespace {

double Seconds(const timeval& tv) {
  return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
}

// Second field of /proc/self/statm: resident pages. First: total program size.
// A /proc file as a stream; empty (so every parse fails) when it cannot be read.
std::istringstream ProcFile(const std::string& path) {
  auto text = ReadFileBounded(path, kProcFileLimit);
  return std::istringstream(text.ok() ? *text : std::string());
}

bool ReadStatm(int64_t& virtual_bytes, int64_t& resident_bytes) {
  std::istringstream in = ProcFile("/proc/self/statm");
  int64_t size_pages = 0;
  int64_t resident_pages = 0;
  if (!(in >> size_pages >> resident_pages)) return false;
  const int64_t page = sysconf(_SC_PAGESIZE);
  virtual_bytes = size_pages * page;
  resident_bytes = resident_pages * page;
  return true;
}

int64_t CountOpenFds() {
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return -1;
  int64_t n = 0;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] != '.') ++n;
  }
  closedir(dir);
  return n - 1;  // the descriptor opendir itself holds
}

// Field 22 of /proc/self/stat (starttime, clock ticks since boot) plus the boot time from
// /proc/stat ("btime"). The command name in field 2 may hold spaces, so parse after ')'.
bool ReadStartTime(double& seconds) {
  std::istringstream stat_file = ProcFile("/proc/self/stat");
  std::string line;
  if (!std::getline(stat_file, line)) return false;
  const size_t paren = line.rfind(')');
  if (paren == std::string::npos) return false;
  std::istringstream fields(line.substr(paren + 2));
  std::string field;
  uint64_t start_ticks = 0;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
    if (i == 22) start_ticks = std::stoull(field);
  }
  if (start_ticks == 0) return false;
  std::istringstream proc_stat = ProcFile("/proc/stat");
  std::string key;
  uint64_t btime = 0;
  while (proc_stat >> key) {
    if (key == "btime") {
      proc_stat >> btime;
      break;
    }
    std::getline(proc_stat, line);
  }
  if (btime == 0) return false;
  seconds = static_cast<double>(btime) +
            static_cast<double>(start_ticks) / static_cast<double>(sysconf(_SC_CLK_TCK));
  return true;
}

}  // namespace

void WriteBuildInfo(std::string& out) {
  api::WriteMetricFamily(out, api::metric::kBuildInfo, "gauge",
                         "Always 1; the labels say which snowcar runs and which state schema "
                         "version it writes");
  api::WriteSample(out, api::metric::kBuildInfo,
                   "version=\"" + api::EscapeLabelValue(SnowcarVersion()) + "\",state_schema=\"" +
                       std::to_string(state::kSchemaVersion) + "\"",
                   int64_t{1});
}

void WriteProcessMetrics(std::string& out) {
  int64_t virtual_bytes = 0;
  int64_t resident_bytes = 0;
  if (ReadStatm(virtual_bytes, resident_bytes)) {
    api::WriteMetricFamily(out, "snowcar_process_resident_memory_bytes", "gauge",
                           "Resident set size");
    api::WriteSample(out, "snowcar_process_resident_memory_bytes", "", resident_bytes);
    api::WriteMetricFamily(out, "snowcar_process_virtual_memory_bytes", "gauge",
                           "Virtual memory size");
    api::WriteSample(out, "snowcar_process_virtual_memory_bytes", "", virtual_bytes);
  }
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) == 0) {
    api::WriteMetricFamily(out, "snowcar_process_cpu_seconds_total", "counter",
                           "User and system CPU time spent, all threads");
    api::WriteSample(out, "snowcar_process_cpu_seconds_total", "",
                     Seconds(usage.ru_utime) + Seconds(usage.ru_stime));
  }
  if (const int64_t fds = CountOpenFds(); fds >= 0) {
    api::WriteMetricFamily(out, "snowcar_process_open_fds", "gauge", "Open file descriptors");
    api::WriteSample(out, "snowcar_process_open_fds", "", fds);
  }
  if (double start = 0; ReadStartTime(start)) {
    api::WriteMetricFamily(out, "snowcar_process_start_time_seconds", "gauge",
                           "Start time of the process, seconds since the epoch");
    api::WriteSample(out, "snowcar_process_start_time_seconds", "", start);
  }
}

void WriteStateMetrics(std::string& out, const state::StateStore& store) {
  struct Family {
    const char* property;
    const char* name;
    const char* help;
  };
  static const Family kFamilies[] = {
      {"rocksdb.estimate-num-keys", "snowcar_state_estimated_keys",
       "RocksDB's estimate of the keys in the column family"},
      {"rocksdb.total-sst-files-size", "snowcar_state_sst_files_bytes",
       "Size of the column family's SST files on disk"},
      {"rocksdb.cur-size-all-mem-tables", "snowcar_state_memtable_bytes",
       "Memory held by the column family's memtables"},
      {"rocksdb.estimate-live-data-size", "snowcar_state_live_data_bytes",
       "RocksDB's estimate of the live (not yet compacted away) data"},
  };
  api::WriteMetricFamily(out, "snowcar_state_write_errors_total", "counter",
                         "State writes refused (free space below the reserve) or failed; each "
                         "one is retried by its caller and logged");
  api::WriteSample(out, "snowcar_state_write_errors_total", "",
                   static_cast<int64_t>(store.WriteErrors()));
  const auto samples = store.NumericProperties();
  if (samples.empty()) return;
  for (const Family& f : kFamilies) {
    api::WriteMetricFamily(out, f.name, "gauge", f.help);
    for (const auto& s : samples) {
      if (s.property != f.property) continue;
      api::WriteSample(out, f.name,
                       "column_family=\"" + api::EscapeLabelValue(s.column_family) + "\"",
                       static_cast<int64_t>(s.value));
    }
  }
}

void WriteServiceNowMetrics(std::string& out, const servicenow::ClientStats& stats) {
  api::WriteMetricFamily(out, "snowcar_snow_http_attempts_total", "counter",
                         "Table API attempts by how they ended: ok, throttled (429), refused "
                         "(401 or 403), error (any other answer) or unreachable (no answer: "
                         "connect, TLS, timeout)");
  api::WriteSample(out, "snowcar_snow_http_attempts_total", "result=\"ok\"", stats.answered_ok);
  api::WriteSample(out, "snowcar_snow_http_attempts_total", "result=\"throttled\"",
                   stats.throttled);
  api::WriteSample(out, "snowcar_snow_http_attempts_total", "result=\"refused\"", stats.refused);
  api::WriteSample(out, "snowcar_snow_http_attempts_total", "result=\"error\"", stats.failed);
  api::WriteSample(out, "snowcar_snow_http_attempts_total", "result=\"unreachable\"",
                   stats.unreachable);
  api::WriteMetricFamily(out, "snowcar_snow_http_in_flight", "gauge",
                         "Table API transfers running now");
  api::WriteSample(out, "snowcar_snow_http_in_flight", "", int64_t{stats.in_flight});
  api::WriteMetricFamily(out, "snowcar_snow_http_concurrency_limit", "gauge",
                         "The adaptive concurrency limit now (lowered by throttling, at most "
                         "snow.http.max.concurrent.requests)");
  api::WriteSample(out, "snowcar_snow_http_concurrency_limit", "", int64_t{stats.limit});
  api::WriteMetricFamily(out, api::metric::kSnowRequestDuration, "histogram",
                         "Table API attempts by duration, operation and status class (none: "
                         "no answer arrived)");
  for (const auto& [labels, histogram] : stats.request_seconds) {
    api::WriteHistogram(out, api::metric::kSnowRequestDuration,
                        "operation=\"" + api::EscapeLabelValue(labels.first) + "\",status=\"" +
                            api::EscapeLabelValue(labels.second) + "\"",
                        histogram);
  }
}

void WriteInstanceMetrics(std::string& out, bool reachable, bool credentials_refused) {
  api::WriteMetricFamily(out, "snowcar_servicenow_reachable", "gauge",
                         "0 while calls give up because the ServiceNow instance cannot be "
                         "reached or refuses the credentials, else 1");
  api::WriteSample(out, "snowcar_servicenow_reachable", "", int64_t{reachable ? 1 : 0});
  api::WriteMetricFamily(out, "snowcar_servicenow_credentials_refused", "gauge",
                         "1 while calls give up because the instance refuses the credentials "
                         "(HTTP 401 after a fresh token, or the token endpoint), else 0");
  api::WriteSample(out, "snowcar_servicenow_credentials_refused", "",
                   int64_t{!reachable && credentials_refused ? 1 : 0});
}

void WriteProducerGauges(std::string& out,
                         const std::vector<direction::Direction::ProducerGauge>& gauges) {
  if (gauges.empty()) return;
  api::WriteMetricFamily(out, "snowcar_kafka_producer_queue_length", "gauge",
                         "Records produced but not yet acknowledged by Kafka (or failed)");
  for (const auto& g : gauges) {
    api::WriteSample(out, "snowcar_kafka_producer_queue_length",
                     "client=\"" + api::EscapeLabelValue(g.client) + "\"", g.queue_length);
  }
  api::WriteMetricFamily(out, api::metric::kKafkaProduceDuration, "histogram",
                         "Time from producing a record to Kafka's acknowledgement "
                         "(acknowledged records only)");
  for (const auto& g : gauges) {
    api::WriteHistogram(out, api::metric::kKafkaProduceDuration,
                        "client=\"" + api::EscapeLabelValue(g.client) + "\"", g.produce_seconds);
  }
}

}  // namespace snowcar::runtime
