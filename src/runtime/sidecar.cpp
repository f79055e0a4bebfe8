#include "snowcar/runtime/sidecar.h"

#include <boost/asio/signal_set.hpp>
#include <chrono>
#include <csignal>

#include "snowcar/api/routes.h"
#include "snowcar/common/log.h"
#include "snowcar/servicenow/client_options.h"
#include "snowcar/servicenow/curl_table_client.h"
#include "snowcar/sink/sink.h"
#include "snowcar/sink/sink_settings.h"
#include "snowcar/source/source.h"
#include "snowcar/source/source_settings.h"

namespace snowcar::runtime {

SidecarSettings SidecarSettings::FromConfig(const config::Config& config) {
  SidecarSettings s;
  s.state_dir = config.GetString("state.dir");
  s.socket_path = config.GetString("socket.path");
  s.threads = static_cast<size_t>(config.GetInt("threads"));
  s.shutdown_timeout_ms = config.GetInt("shutdown.timeout.ms");
  s.source_enabled = config.GetBool("source.enabled");
  s.sink_enabled = config.GetBool("sink.enabled");
  return s;
}

Status CheckDirectionSettings(const config::Config& config) {
  std::string problems;
  if (config.GetBool("source.enabled")) {
    if (auto s = source::SourceSettings::FromConfig(config); !s.ok()) {
      problems += s.status().message();
    }
  }
  if (config.GetBool("sink.enabled")) {
    if (auto s = sink::SinkSettings::FromConfig(config); !s.ok()) {
      if (!problems.empty()) problems += "\n";
      problems += s.status().message();
    }
  }
  if (problems.empty()) return Status::Ok();
  return Status::InvalidArgument(problems);
}

struct Sidecar::Signals {
  explicit Signals(boost::asio::io_context& io) : set(io, SIGTERM, SIGINT) {}
  boost::asio::signal_set set;
};

Sidecar::Sidecar(SidecarSettings settings, const config::Config* config)
    : settings_(std::move(settings)), pool_(settings_.threads), config_(config) {
  readiness_.SetNotReady("starting");
}

Sidecar::~Sidecar() { Shutdown(); }

void Sidecar::HandleSignals() {
  signals_ = std::make_unique<Signals>(pool_.context());
  signals_->set.async_wait([this](const boost::system::error_code& ec, int signo) {
    if (ec) return;  // cancelled at shutdown
    RequestStop(signo == SIGTERM ? "SIGTERM" : "SIGINT");
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

  router_ = std::make_shared<api::Router>();
  if (Status s = api::RegisterCoreRoutes(*router_, readiness_, health_); !s.ok()) {
    return fail(s, "routes");
  }

  pool_.Start();
  readiness_.SetNotReady("opening state store");

  state::StateStoreOptions store_options;
  store_options.dir = settings_.state_dir;
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

  // The routing table is complete before the socket accepts: it is read-only from here on,
  // so connection handlers on any pool thread may read it without a lock. Opening RocksDB
  // takes milliseconds, so binding after it costs probes nothing.
  api::ServerOptions server_options;
  server_options.path = settings_.socket_path;
  server_ = std::make_unique<api::UnixSocketServer>(pool_.context(), server_options, router_);
  if (Status s = server_->Start(); !s.ok()) {
    health_.Report("socket", false, s.message());
    return fail(s, "state socket");
  }
  health_.Report("socket", true, "listening on " + settings_.socket_path);

  for (auto& direction : directions_) {
    if (Status s = direction->Start(); !s.ok()) {
      health_.Report(std::string(direction->name()), false, s.message());
      return fail(s, direction->name());
    }
  }
  readiness_.SetGate([this]() -> std::string {
    for (const auto& direction : directions_) {
      if (!direction->Started()) return std::string(direction->name()) + " is starting";
    }
    return {};
  });
  readiness_.MarkReady();
  SNOWCAR_LOG(kInfo, "sidecar.ready",
              {{"state_dir", settings_.state_dir},
               {"socket", settings_.socket_path},
               {"threads", static_cast<int64_t>(pool_.size())},
               {"source", settings_.source_enabled},
               {"sink", settings_.sink_enabled}});
  return Status::Ok();
}

// Builds the shared ServiceNow client and the enabled directions, and registers their routes
// and /metrics. The directions start later, once the socket is up.
Status Sidecar::StartDirections() {
  if (!settings_.source_enabled && !settings_.sink_enabled) {
    return router_->Add(
        {.method = "GET",
         .pattern = "/metrics",
         .help = "Prometheus text exposition of every counter and gauge",
         .handler = [](const api::Request&) { return api::Response::Text(200, ""); }});
  }
  SNOWCAR_ASSIGN_OR_RETURN(servicenow::ClientOptions client_options,
                           servicenow::ClientOptionsFromConfig(*config_));
  SNOWCAR_ASSIGN_OR_RETURN(std::unique_ptr<servicenow::CurlTableClient> client,
                           servicenow::CurlTableClient::Create(pool_.context(), client_options));
  servicenow::CurlTableClient* raw_client = client.get();
  client_ = std::move(client);
  stop_client_ = [raw_client] { raw_client->Stop(); };

  DirectionContext context;
  context.config = config_;
  context.io = &pool_.context();
  context.store = store_.get();
  context.client = client_.get();
  context.health = &health_;
  if (settings_.source_enabled) {
    SNOWCAR_ASSIGN_OR_RETURN(std::unique_ptr<Direction> source, source::MakeSource(context));
    directions_.push_back(std::move(source));
  }
  if (settings_.sink_enabled) {
    SNOWCAR_ASSIGN_OR_RETURN(std::unique_ptr<Direction> sink, sink::MakeSink(context));
    directions_.push_back(std::move(sink));
  }
  for (auto& direction : directions_) {
    SNOWCAR_RETURN_IF_ERROR(direction->RegisterRoutes(*router_));
  }
  return router_->Add({.method = "GET",
                       .pattern = "/metrics",
                       .help = "Prometheus text exposition of every counter and gauge",
                       .handler = [this](const api::Request&) {
                         std::string out;
                         for (const auto& direction : directions_) direction->WriteMetrics(out);
                         return api::Response::Text(200, std::move(out));
                       }});
}

void Sidecar::RequestStop(std::string why) {
  {
    std::lock_guard lock(mu_);
    if (stop_requested_) return;
    stop_requested_ = true;
    stop_reason_ = std::move(why);
  }
  cv_.notify_all();
}

Status Sidecar::Wait() {
  std::string why;
  {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [this] { return stop_requested_; });
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
  for (auto it = directions_.rbegin(); it != directions_.rend(); ++it) (*it)->Stop(deadline);
  if (stop_client_) stop_client_();
  if (server_) server_->Stop();
  if (signals_) {
    boost::system::error_code ignored;
    signals_->set.cancel(ignored);
  }
  pool_.Drain();
  pool_.Stop();
  pool_.Join();
  server_.reset();
  signals_.reset();
  directions_.clear();
  client_.reset();
  store_.reset();
}

}  // namespace snowcar::runtime
