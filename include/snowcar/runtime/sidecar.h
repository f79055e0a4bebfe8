// SPDX-License-Identifier: Apache-2.0
// The sidecar process: what `snowcar run` starts.
//
// Start-up order:
//   1. the thread pool;
//   2. the state store (RocksDB under state.dir; fails fast when another process holds it);
//   3. the state socket, its routing table complete (read-only from then on);
//   4. the ServiceNow client (one per instance, shared) and the enabled directions (source
//      pollers, sink lanes), their routes registered before the socket accepts;
//   5. the optional TCP admin listener (admin.listen: GET /metrics, /v1/health, /v1/ready);
//   6. readiness: /v1/ready turns 200 once Kafka answered a metadata request (when a direction
//      is enabled; see kafka_probe.h) and every enabled direction reports Started().
//      `sidecar.started` is logged when start-up returns, `sidecar.ready` when /v1/ready turns
//      200 (at once, or later), `sidecar.not_ready` when it stops being 200 (shutdown).
// Shutdown (SIGTERM, SIGINT or RequestStop): readiness drops to 503, the directions stop taking
// work and drain in-flight work for at most shutdown.timeout.ms (then commit), the client
// stops, the socket file is removed, the state store is closed (its WAL already holds every
// commit), and Wait() returns OK so the process exits 0.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "snowcar/api/api_router.h"
#include "snowcar/api/readiness.h"
#include "snowcar/api/tcp_server.h"
#include "snowcar/api/unix_socket_server.h"
#include "snowcar/common/log.h"
#include "snowcar/common/mutex.h"
#include "snowcar/common/status.h"
#include "snowcar/config/config.h"
#include "snowcar/direction/direction.h"
#include "snowcar/runtime/kafka_probe.h"
#include "snowcar/runtime/thread_pool.h"
#include "snowcar/state/state_store.h"

namespace snowcar::servicenow {
class InstanceReachability;
struct ClientStats;
}  // namespace snowcar::servicenow

namespace snowcar::runtime {

// The sidecar keys the shell itself reads (design section 4), resolved from a Config.
struct SidecarSettings {
  std::string state_dir;
  bool state_owner_only = true;  // state.dir.access=owner
  std::string socket_path;
  size_t threads = 0;
  int64_t shutdown_timeout_ms = 30000;
  bool source_enabled = false;
  bool sink_enabled = false;
  // socket.allowed.uids; empty = anyone who can open the socket file.
  std::vector<uint32_t> socket_allowed_uids;
  // admin.listen ("" = no TCP listener) and admin.listen.allow.remote.
  std::string admin_listen;
  bool admin_allow_remote = false;
  // source.group.id ("" = no table group) and kafka.group.instance.id: the group consumers a
  // run would create, for the checks before it starts.
  std::string source_group_id;
  std::string group_instance_id;
  // log.level, log.format (checked by the option table) and snow.tls.verify, which `snowcar
  // run` applies or warns about before anything starts.
  log::Level log_level = log::Level::kInfo;
  log::Format log_format = log::Format::kJson;
  bool tls_verify = true;
  // readiness.requires.instance: /v1/ready waits for a direction held up by an unreachable
  // ServiceNow instance (true), or not once a call to it gave up (false).
  bool readiness_requires_instance = true;

  static SidecarSettings FromConfig(const config::Config& config);
  bool operator==(const SidecarSettings&) const = default;
};

// The checks of `snowcar run` that go beyond Config::Load, made without starting anything:
// the settings of every enabled direction (source tables, sink routing and policies), the
// admin listener, and the `kafka.*` properties of every Kafka client a run would create.
// `snowcar config check` and `snowcar run` both call it after loading, so a bad value is a
// configuration error (exit 2) in both, never a start-up failure found only by `run`.
// (Checks of single values, e.g. socket.path's length, live in the option table.)
Status CheckRunSettings(const config::Config& config);

// admin.listen must be loopback unless admin.listen.allow.remote=true. "" is fine (off).
Status CheckAdminListen(const std::string& listen, bool allow_remote);

class MemoryTrimmer;
class PeriodicTask;

class Sidecar {
 public:
  // `config` is needed (and must outlive the Sidecar) when a direction is enabled: the
  // directions and the ServiceNow client read their own keys from it.
  explicit Sidecar(SidecarSettings settings, const config::Config* config = nullptr);
  ~Sidecar();

  Sidecar(const Sidecar&) = delete;
  Sidecar& operator=(const Sidecar&) = delete;

  // Runs the start-up sequence. On failure everything already started is stopped again and
  // the Status names the step and its cause. Call once.
  Status Start();

  // Blocks the calling thread until a stop is requested (SIGTERM, SIGINT or SIGHUP once
  // HandleSignals() was called, or RequestStop()), then shuts down. REQUIRES: Start() OK.
  Status Wait();

  // Makes SIGTERM, SIGINT and SIGHUP request a graceful stop, and SIGUSR1/SIGUSR2 a log line
  // and nothing else. Call before Start() so a signal that arrives during start-up is not lost.
  void HandleSignals();

  // Thread-safe; may be called from a signal handler's completion or any pool thread.
  void RequestStop(std::string why);

  // For tests and the live views that later modules register.
  api::Readiness& readiness() { return readiness_; }
  // The admin listener's bound address ("127.0.0.1:41233"), "" when admin.listen is off.
  std::string admin_address() const;
  api::HealthRegistry& health() { return health_; }
  state::StateStore* store() { return store_.get(); }
  const SidecarSettings& settings() const { return settings_; }
  // The running directions (source first), for tests.
  const std::vector<std::unique_ptr<direction::Direction>>& directions() const {
    return directions_;
  }

 private:
  Status StartDirections();
  Status StartAdminListener();
  api::ApiResponse Metrics() const;
  void Shutdown();

  SidecarSettings settings_;
  ThreadPool pool_;
  api::Readiness readiness_;
  api::HealthRegistry health_;
  std::shared_ptr<api::ApiRouter> router_;
  std::unique_ptr<api::UnixSocketServer> server_;
  std::unique_ptr<api::TcpServer> admin_server_;
  std::unique_ptr<KafkaProbe> kafka_probe_;
  std::unique_ptr<MemoryTrimmer> trimmer_;  // returns burst memory to the OS (memory_trim.h)
  // Re-evaluates readiness every 100 ms so its changes are logged when they happen.
  std::unique_ptr<PeriodicTask> readiness_watch_;
  std::unique_ptr<state::StateStore> store_;
  const config::Config* config_ = nullptr;
  // The one ServiceNow client (a CurlTableClient), shared by the directions.
  std::shared_ptr<servicenow::TableClient> client_;
  std::function<void()> stop_client_;
  // Owned by the client; whether the instance can be used at all (health, readiness, metrics).
  servicenow::InstanceReachability* instance_ = nullptr;
  std::function<servicenow::ClientStats()> client_stats_;  // for /metrics; empty: no client
  std::vector<std::unique_ptr<direction::Direction>> directions_;
  struct Signals;
  std::unique_ptr<Signals> signals_;

  Mutex mu_;
  CondVar cv_;
  bool stop_requested_ SNOWCAR_GUARDED_BY(mu_) = false;
  std::string stop_reason_ SNOWCAR_GUARDED_BY(mu_);
  bool started_ = false;
  bool shut_down_ = false;
};

}  // namespace snowcar::runtime
