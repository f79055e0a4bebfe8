// SPDX-License-Identifier: Apache-2.0
// Helpers the end-to-end benches share: starting the emulator, the broker and the sidecar as
// real processes, and reading a process's CPU time and peak memory from /proc.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "support/child_process.h"

namespace snowcar::bench {

struct Started {
  std::unique_ptr<testsupport::ChildProcess> process;
  std::string first_line;  // the emulator's base URL or the broker's bootstrap
};

// Runs `snowcar <args...>` and waits for its first stdout line. Exits the bench on failure.
Started StartSnowcar(const std::vector<std::string>& args);

// SIGTERM, then up to 30 s for the process to exit; nothing when it was never started.
void Stop(Started& started);

// utime + stime of `pid` in seconds (all its threads), from /proc/<pid>/stat.
double ProcessCpuSeconds(pid_t pid);
// VmHWM of `pid` in MiB, from /proc/<pid>/status.
double PeakRssMiB(pid_t pid);
// CPU seconds of this process so far (getrusage).
double SelfCpuSeconds();

// GET target on the sidecar's socket, parsed as JSON; empty object on any failure.
std::string SocketGet(const std::string& socket, const std::string& target);

// Sum of every sample of family `name` in the sidecar's /metrics (testsupport::MetricSum); -1
// when the socket does not answer.
double MetricSum(const std::string& socket, const std::string& name);

// One request to the emulator with its default credentials (admin / admin-emulator); the
// answer's body. Exits the bench when the transfer fails.
std::string EmulatorHttp(const std::string& method, const std::string& url,
                         const std::string& body = {});

double SecondsSince(std::chrono::steady_clock::time_point start);

// `snowcar run --config <config_path>`; nullptr (the reason printed) when it cannot start.
std::unique_ptr<testsupport::ChildProcess> StartSidecar(const std::string& config_path);

// The properties of a source-only sidecar reading the emulator's `incident` table (default
// credentials) into `topic` on `bootstrap`, with its state and socket in `dir`, logging only
// warnings and skipping the start-up probe. Each bench appends what it varies.
std::string SourceSidecarProperties(const std::string& emulator_base, const std::string& bootstrap,
                                    const std::string& topic, const std::string& dir);

// The properties of a sink-only sidecar writing the emulator's `incident` table (default
// credentials, unknown fields passed through) from `topic` on `bootstrap` in consumer group
// `group`, with its state and socket in `dir`, logging only warnings. Each bench appends what
// it varies.
std::string SinkSidecarProperties(const std::string& emulator_base, const std::string& bootstrap,
                                  const std::string& topic, const std::string& group,
                                  const std::string& dir);

}  // namespace snowcar::bench
