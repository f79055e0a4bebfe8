// SPDX-License-Identifier: Apache-2.0
#include "snowcar/runtime/sidecar.h"

#include <boost/asio/signal_set.hpp>
#include <chrono>
#include <csignal>
#include <cstdlib>

#include "memory_trim.h"
#include "periodic_task.h"
#include "snowcar/api/prometheus.h"
#include "snowcar/api/routes.h"
#include "snowcar/common/log.h"
#include "snowcar/common/mutex.h"
#include "snowcar/kafka/consumer.h"
#include "snowcar/kafka/producer.h"
#include "snowcar/kafka/static_membership.h"
#include "snowcar/runtime/sidecar_metrics.h"
#include "snowcar/servicenow/client_options.h"
#include "snowcar/servicenow/curl_table_client.h"
#include "snowcar/servicenow/instance_reachability.h"
#include "snowcar/sink/sink.h"
#include "snowcar/sink/sink_settings.h"
#include "snowcar/source/source.h"
#include "snowcar/source/source_settings.h"

namespace snowcar::runtime {

SidecarSettings SidecarSettings::FromConfig(const config::Config& config) {
  SidecarSettings s;
  s.state_dir = config.GetString("state.dir");
  s.state_owner_only = config.GetString("state.dir.access") == "owner";
  s.socket_path = config.GetString("socket.path");
  s.threads = static_cast<size_t>(config.GetInt("threads"));
  s.shutdown_timeout_ms = config.GetInt("shutdown.timeout.ms");
  s.source_enabled = config.GetBool("source.enabled");
  s.sink_enabled = config.GetBool("sink.enabled");
  // The option table checked each item is a numeric uid.
  for (const std::string& uid : config.GetList("socket.allowed.uids")) {
    s.socket_allowed_uids.push_back(static_cast<uint32_t>(std::stoul(uid)));
  }
  s.admin_listen = config.GetString("admin.listen");
  s.admin_allow_remote = config.GetBool("admin.listen.allow.remote");
  s.source_group_id = config.GetString("source.group.id");
  s.group_instance_id = config.GetString("kafka.group.instance.id");
  s.readiness_requires_instance = config.GetBool("readiness.requires.instance");
  // The option table refused any other spelling, so these parses cannot fail.
  if (auto level = log::ParseLevel(config.GetString("log.level")); level.ok()) s.log_level = *level;
  if (auto format = log::ParseFormat(config.GetString("log.format")); format.ok()) {
    s.log_format = *format;
  }
  s.tls_verify = config.GetBool("snow.tls.verify");
  return s;
}

Status CheckAdminListen(const std::string& listen, bool allow_remote) {
  if (listen.empty()) return Status::Ok();
  SNOWCAR_ASSIGN_OR_RETURN(api::ListenAddress address, api::ParseListenAddress(listen));
  if (address.IsLoopback() || allow_remote) return Status::Ok();
  return Status::InvalidArgument(
      "admin.listen=" + listen +
      " is not a loopback address: metrics and health would be reachable from outside the "
      "pod. Use 127.0.0.1:PORT, or set admin.listen.allow.remote=true to mean it");
}

namespace {

// The librdkafka clients a run would create, checked without creating them: the metadata
// probe and the producers (source, sink DLQ) share the producer's checks; the sink and the
// source group each add a consumer.
void CheckKafkaClients(const config::Config& config, const SidecarSettings& settings,
                       std::vector<std::string>& problems) {
  const bool source = settings.source_enabled;
  const bool sink = settings.sink_enabled;
  if (!source && !sink) return;
  kafka::ProducerOptions producer;
  producer.properties = config.WithPrefix("kafka.");
  if (Status s = kafka::KafkaProducer::CheckOptions(producer); !s.ok()) {
    problems.push_back(s.message());
  }
  kafka::ConsumerOptions consumer;
  consumer.properties = producer.properties;
  if (sink) {
    if (Status s = kafka::KafkaConsumer::CheckProperties(consumer); !s.ok()) {
      problems.push_back(s.message());
    }
  }
  // The group consumers (the sink's, the source's table group) join as static members named
  // by kafka.group.instance.id or POD_NAME: the same resolution the directions make at start
  // (kafka/static_membership.h), so a POD_NAME Kafka would refuse fails the check too.
  const bool source_group = source && !settings.source_group_id.empty();
  if (sink || source_group) {
    auto membership = kafka::ResolveStaticMembership(settings.group_instance_id,
                                                     std::getenv(kafka::kPodNameVariable));
    if (!membership.ok()) problems.push_back(membership.status().message());
  }
  if (source_group) {
    kafka::ConsumerOptions group = consumer;
    group.properties["group.id"] = settings.source_group_id;
    if (Status s = kafka::KafkaConsumer::CheckProperties(group); !s.ok()) {
      problems.push_back(s.message());
    }
  }
}

}  // namespace

Status CheckRunSettings(const config::Config& config) {
  std::vector<std::string> problems;
  const SidecarSettings settings = SidecarSettings::FromConfig(config);
  if (Status s = CheckAdminListen(settings.admin_listen, settings.admin_allow_remote); !s.ok()) {
    problems.push_back(s.message());
  }
  if (settings.source_enabled) {
    if (auto s = source::SourceSettings::FromConfig(config); !s.ok()) {
      problems.push_back(s.status().message());
    }
  }
  if (settings.sink_enabled) {
    if (auto s = sink::SinkSettings::FromConfig(config); !s.ok()) {
      problems.push_back(s.status().message());
    }
  }
  CheckKafkaClients(config, settings, problems);
  std::string message;
  for (const std::string& problem : problems) {
    // The same refused kafka property fails every client: say it once.
    if (message.find(problem) != std::string::npos) continue;
    if (!message.empty()) message += "\n";
    message += problem;
  }
  if (message.empty()) return Status::Ok();
  return Status::InvalidArgument(message);
}

// What each signal means to a running sidecar (docs/runtime.md, "Signals"):
//   SIGTERM, SIGINT, SIGHUP  a graceful stop (SIGHUP too: a closed terminal or a supervisor
//                            that sends it means "go away"; there is nothing to reload, since
//                            a changed config needs a restart anyway);
//   SIGUSR1, SIGUSR2         logged and otherwise ignored, rather than their default action
//                            of killing the process with its socket file left behind;
//   SIGPIPE                  ignored for the whole process (main.cpp): a write to a closed
//                            pipe or socket fails with EPIPE instead.
struct Sidecar::Signals {
  explicit Signals(boost::asio::io_context& io) : set(io, SIGTERM, SIGINT, SIGHUP) {
    set.add(SIGUSR1);
    set.add(SIGUSR2);
  }
  boost::asio::signal_set set;
};

namespace {

const char* SignalName(int signo) {
  switch (signo) {
    case SIGTERM:
      return "SIGTERM";
    case SIGINT:
      return "SIGINT";
    case SIGHUP:
      return "SIGHUP";
    case SIGUSR1:
      return "SIGUSR1";
    case SIGUSR2:
      return "SIGUSR2";
    default:
      return "signal";
  }
}

}  // namespace

Sidecar::Sidecar(SidecarSettings settings, const config::Config* config)
    : settings_(std::move(settings)), pool_(settings_.threads), config_(config) {
  readiness_.SetNotReady("starting");
}

Sidecar::~Sidecar() { Shutdown(); }

void Sidecar::HandleSignals() {
  if (!signals_) signals_ = std::make_unique<Signals>(pool_.context());
  signals_->set.async_wait([this](const boost::system::error_code& ec, int signo) {
    if (ec) return;  // cancelled at shutdown
    if (signo == SIGUSR1 || signo == SIGUSR2) {
      SNOWCAR_LOG(kInfo, "sidecar.signal_ignored",
                  {{"signal", SignalName(signo)}, {"meaning", "none; the sidecar keeps running"}});
      HandleSignals();  // wait for the next one
      return;
    }
    RequestStop(SignalName(signo));
  });
}

Status Sidecar::Start() {
  started_ = true;
  const auto fail = [this](const Status& s, std::string_view step) {
    SNOWCAR_LOG(kError, "sidecar.start_failed",
                {{"step", step}, {"code", StatusCodeName(s.code())}, {"error", s.message()}});
    Shutdown();
    return s.WithContext(step);
  };

  if ((settings_.source_enabled || settings_.sink_enabled) && config_ == nullptr) {
    return fail(Status::Internal("a direction is enabled but the sidecar was given no config"),
                "config");
  }
  if (Status s = CheckAdminListen(settings_.admin_listen, settings_.admin_allow_remote); !s.ok()) {
    return fail(s, "config");
  }

  router_ = std::make_shared<api::ApiRouter>();
  if (Status s = api::RegisterCoreRoutes(*router_, readiness_, health_); !s.ok()) {
    return fail(s, "routes");
  }

  CompactAllocator();  // before the pool's threads allocate anything
  pool_.Start();
  readiness_.SetNotReady("opening state store");

  state::StateStoreOptions store_options;
  store_options.dir = settings_.state_dir;
  store_options.owner_only = settings_.state_owner_only;
  auto store = state::StateStore::Open(store_options);
  if (!store.ok()) {
    health_.Report("state", false, store.status().message());
    return fail(store.status(), "state store");
  }
  store_ = std::move(store).value();
  health_.Report("state", true, "open at " + settings_.state_dir);
  if (Status s = StartDirections(); !s.ok()) return fail(s, "directions");
  // A running direction may veto a cursor reset it would overwrite.
  const auto before_reset = [this](std::string_view table) -> Status {
    for (const auto& direction : directions_) {
      SNOWCAR_RETURN_IF_ERROR(direction->BeforeStateReset(table));
    }
    return Status::Ok();
  };
  if (Status s = api::RegisterStateRoutes(*router_, *store_, before_reset); !s.ok()) {
    return fail(s, "routes");
  }
  if (Status s = router_->Add({.method = "GET",
                               .pattern = "/metrics",
                               .help = "Prometheus text exposition of every counter and gauge",
                               .handler = [this](const api::ApiRequest&) { return Metrics(); }});
      !s.ok()) {
    return fail(s, "routes");
  }

  // The routing table is complete before the socket accepts: it is read-only from here on,
  // so connection handlers on any pool thread may read it without a lock. Opening RocksDB
  // takes milliseconds, so binding after it costs probes nothing.
  api::ServerOptions server_options;
  server_options.path = settings_.socket_path;
  server_options.allowed_uids = settings_.socket_allowed_uids;
  server_ = std::make_unique<api::UnixSocketServer>(pool_.context(), server_options, router_);
  if (Status s = server_->Start(); !s.ok()) {
    health_.Report("socket", false, s.message());
    return fail(s, "state socket");
  }
  health_.Report("socket", true, "listening on " + settings_.socket_path);
  if (Status s = StartAdminListener(); !s.ok()) {
    health_.Report("admin", false, s.message());
    return fail(s, "admin listener");
  }
  if (kafka_probe_) kafka_probe_->Start();

  for (auto& direction : directions_) {
    if (Status s = direction->Start(); !s.ok()) {
      health_.Report(std::string(direction->name()), false, s.message());
      return fail(s, direction->name());
    }
  }
  readiness_.SetGate([this]() -> std::string {
    if (kafka_probe_ && !kafka_probe_->reached_once()) {
      return "waiting for Kafka metadata from " + kafka_probe_->bootstrap();
    }
    for (const auto& direction : directions_) {
      if (direction->Started()) continue;
      // A direction waiting on an instance that cannot be reached says so, rather than
      // "starting" for as long as the outage lasts.
      if (instance_ != nullptr) {
        const servicenow::InstanceReachability::View view = instance_->Read();
        if (!view.reachable()) {
          // readiness.requires.instance=false: the outage is health's to report.
          if (!settings_.readiness_requires_instance) continue;
          return std::string(direction->name()) +
                 " is waiting for the ServiceNow instance, which is " +
                 servicenow::InstanceReachability::Describe(view);
        }
      }
      return std::string(direction->name()) + " is starting";
    }
    return {};
  });
  trimmer_ = std::make_unique<MemoryTrimmer>(pool_.context(), std::chrono::seconds(10));
  trimmer_->Start();
  SNOWCAR_LOG(kInfo, "sidecar.started",
              {{"state_dir", settings_.state_dir},
               {"socket", settings_.socket_path},
               {"admin", admin_address()},
               {"threads", static_cast<int64_t>(pool_.size())},
               {"source", settings_.source_enabled},
               {"sink", settings_.sink_enabled}});
  // Readiness is logged when it changes, not when start-up returns: the gate above may hold
  // it back for a while (Kafka metadata, a direction probing its tables), and an operator
  // reading `sidecar.ready` must find /v1/ready answering 200.
  readiness_.SetListener([](bool ready, const std::string& reason) {
    if (ready) {
      SNOWCAR_LOG(kInfo, "sidecar.ready", {{"ready", true}});
    } else {
      SNOWCAR_LOG(kInfo, "sidecar.not_ready", {{"ready", false}, {"reason", reason}});
    }
  });
  readiness_.MarkReady();
  readiness_watch_ = std::make_unique<PeriodicTask>(pool_.context(), std::chrono::milliseconds(100),
                                                    [this] { readiness_.Refresh(); });
  readiness_watch_->Start();
  return Status::Ok();
}

// Builds the shared ServiceNow client, the enabled directions (registering their routes) and
// the Kafka probe. The directions and the probe start later, once the socket is up.
Status Sidecar::StartDirections() {
  if (!settings_.source_enabled && !settings_.sink_enabled) return Status::Ok();
  SNOWCAR_ASSIGN_OR_RETURN(servicenow::ClientOptions client_options,
                           servicenow::ClientOptionsFromConfig(*config_));
  SNOWCAR_ASSIGN_OR_RETURN(std::unique_ptr<servicenow::CurlTableClient> client,
                           servicenow::CurlTableClient::Create(pool_.context(), client_options));
  servicenow::CurlTableClient* raw_client = client.get();
  client_ = std::move(client);
  stop_client_ = [raw_client] { raw_client->Stop(); };
  // The instance as a whole: not ok while calls give up because it cannot be reached (or
  // refuses the credentials), ok again with its next answer. Both directions' calls feed it.
  instance_ = &raw_client->reachability();
  health_.Report("servicenow", true, servicenow::InstanceReachability::Describe(instance_->Read()));
  instance_->SetListener([this](const servicenow::InstanceReachability::View& view) {
    health_.Report("servicenow", view.reachable(),
                   servicenow::InstanceReachability::Describe(view));
  });
  client_stats_ = [raw_client] { return raw_client->stats(); };

  direction::DirectionContext context;
  context.config = config_;
  context.io = &pool_.context();
  context.store = store_.get();
  context.client = client_.get();
  context.health = &health_;
  if (settings_.source_enabled) {
    SNOWCAR_ASSIGN_OR_RETURN(std::unique_ptr<direction::Direction> source,
                             source::MakeSource(context));
    directions_.push_back(std::move(source));
  }
  if (settings_.sink_enabled) {
    SNOWCAR_ASSIGN_OR_RETURN(std::unique_ptr<direction::Direction> sink, sink::MakeSink(context));
    directions_.push_back(std::move(sink));
  }
  for (auto& direction : directions_) {
    SNOWCAR_RETURN_IF_ERROR(direction->RegisterRoutes(*router_));
  }
  // Readiness waits for Kafka to answer; the probe starts with the socket, so /v1/health
  // shows the "kafka" component while the sidecar waits.
  KafkaProbeOptions probe_options;
  probe_options.properties = config_->WithPrefix("kafka.");
  SNOWCAR_ASSIGN_OR_RETURN(kafka_probe_, KafkaProbe::Create(std::move(probe_options), &health_));
  return Status::Ok();
}

// The TCP listener gets a router of its own holding only the probe and scrape routes, so the
// state views and the cursor reset never become reachable over the network.
Status Sidecar::StartAdminListener() {
  if (settings_.admin_listen.empty()) return Status::Ok();
  SNOWCAR_ASSIGN_OR_RETURN(api::ListenAddress address,
                           api::ParseListenAddress(settings_.admin_listen));
  SNOWCAR_ASSIGN_OR_RETURN(std::shared_ptr<api::ApiRouter> admin_router,
                           api::SubsetRouter(*router_, {"/metrics", "/v1/health", "/v1/ready"}));
  api::TcpServerOptions options;
  options.address = address;
  admin_server_ = std::make_unique<api::TcpServer>(pool_.context(), options, admin_router);
  SNOWCAR_RETURN_IF_ERROR(admin_server_->Start());
  health_.Report("admin", true, "listening on " + admin_server_->bound_address());
  return Status::Ok();
}

std::string Sidecar::admin_address() const {
  return admin_server_ ? admin_server_->bound_address() : std::string();
}

api::ApiResponse Sidecar::Metrics() const {
  std::string out;
  WriteBuildInfo(out);
  WriteProcessMetrics(out);
  if (store_) WriteStateMetrics(out, *store_);
  if (client_stats_) WriteServiceNowMetrics(out, client_stats_());
  if (kafka_probe_) {
    api::WriteMetricFamily(out, "snowcar_kafka_metadata_reachable", "gauge",
                           "1 when the latest Kafka metadata request was answered");
    api::WriteSample(out, "snowcar_kafka_metadata_reachable", "",
                     int64_t{kafka_probe_->reachable() ? 1 : 0});
  }
  if (instance_ != nullptr) {
    const servicenow::InstanceReachability::View view = instance_->Read();
    WriteInstanceMetrics(out, view.reachable(), view.credentials_refused);
  }
  std::vector<direction::Direction::ProducerGauge> producers;
  for (const auto& direction : directions_) {
    for (auto& g : direction->ProducerGauges()) producers.push_back(std::move(g));
  }
  WriteProducerGauges(out, producers);
  for (const auto& direction : directions_) direction->WriteMetrics(out);
  return api::ApiResponse::Text(200, std::move(out));
}

void Sidecar::RequestStop(std::string why) {
  {
    MutexLock lock(mu_);
    if (stop_requested_) return;
    stop_requested_ = true;
    stop_reason_ = std::move(why);
  }
  cv_.NotifyAll();
}

Status Sidecar::Wait() {
  std::string why;
  {
    MutexLock lock(mu_);
    while (!stop_requested_) cv_.Wait(lock);
    why = stop_reason_;
  }
  SNOWCAR_LOG(kInfo, "sidecar.stopping",
              {{"reason", why}, {"timeout_ms", settings_.shutdown_timeout_ms}});
  Shutdown();
  SNOWCAR_LOG(kInfo, "sidecar.stopped", {{"reason", why}});
  return Status::Ok();
}

void Sidecar::Shutdown() {
  if (shut_down_ || !started_) return;
  shut_down_ = true;
  readiness_.SetNotReady("shutting down");
  // Order matters: the directions drain and commit while the pool still runs; then the client
  // lets go of libcurl; then stop taking requests, then stop the pool (no handler can touch
  // the store afterwards), then close the store.
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(settings_.shutdown_timeout_ms);
  // The probe's thread may be inside a metadata request for up to its timeout: let it finish
  // while the directions drain rather than after.
  if (kafka_probe_) kafka_probe_->RequestStop();
  if (trimmer_) trimmer_->Stop();
  if (readiness_watch_) readiness_watch_->Stop();
  for (auto it = directions_.rbegin(); it != directions_.rend(); ++it) (*it)->Stop(deadline);
  if (kafka_probe_) kafka_probe_->Stop();
  if (stop_client_) stop_client_();
  if (admin_server_) admin_server_->Stop();
  if (server_) server_->Stop();
  if (signals_) {
    boost::system::error_code ignored;
    signals_->set.cancel(ignored);
  }
  pool_.Drain();
  pool_.Stop();
  pool_.Join();
  server_.reset();
  admin_server_.reset();
  kafka_probe_.reset();
  directions_.clear();
  instance_ = nullptr;
  client_.reset();
  store_.reset();
  // Last: destroying the set restores the signals' default actions, and a SIGHUP or SIGUSR1
  // must not kill the process while the store is still closing. Caught signals that arrive
  // during the shutdown just wait in the set.
  signals_.reset();
}

}  // namespace snowcar::runtime
