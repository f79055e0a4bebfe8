// SPDX-License-Identifier: Apache-2.0
// The process-wide families of /metrics, beside what each direction writes: the build, the
// process (memory, CPU, open files), the state store (RocksDB's own estimates) and Kafka
// reachability. All go through api/prometheus.h, the one exposition writer.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "snowcar/direction/direction.h"

namespace snowcar::state {
class StateStore;
}
namespace snowcar::servicenow {
struct ClientStats;
}

namespace snowcar::runtime {

// snowcar_build_info{version="...",state_schema="..."} 1: the release and the state store's
// layout version it writes (state::kSchemaVersion).
void WriteBuildInfo(std::string& out);

// snowcar_process_resident_memory_bytes, snowcar_process_virtual_memory_bytes,
// snowcar_process_cpu_seconds_total, snowcar_process_open_fds,
// snowcar_process_start_time_seconds. Linux /proc and getrusage; a value that cannot be read
// is left out rather than reported as 0.
void WriteProcessMetrics(std::string& out);

// snowcar_state_write_errors_total, and snowcar_state_estimated_keys,
// snowcar_state_sst_files_bytes, snowcar_state_memtable_bytes, snowcar_state_live_data_bytes,
// each labelled column_family="...", from StateStore::NumericProperties().
void WriteStateMetrics(std::string& out, const state::StateStore& store);

// The ServiceNow client's attempts by result (snowcar_snow_http_attempts_total{result=ok|
// throttled|refused|error|unreachable}), its adaptive concurrency limit and the transfers in
// flight. "unreachable" (no HTTP answer) growing while nothing else does is an instance that cannot
// be reached; "throttled" is the instance asking for less.
void WriteServiceNowMetrics(std::string& out, const servicenow::ClientStats& stats);

// snowcar_servicenow_reachable (0 while calls give up for an instance-wide reason) and
// snowcar_servicenow_credentials_refused (1 while that reason is the instance refusing the
// credentials), from InstanceReachability::View.
void WriteInstanceMetrics(std::string& out, bool reachable, bool credentials_refused);

// snowcar_kafka_producer_queue_length{client="..."}: records produced but not yet
// acknowledged, per producer (direction::Direction::ProducerGauges). Nothing when `gauges` is
// empty.
void WriteProducerGauges(std::string& out,
                         const std::vector<direction::Direction::ProducerGauge>& gauges);

}  // namespace snowcar::runtime
