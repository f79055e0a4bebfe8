#include "snowcar/runtime/sidecar.h"

#include <boost/asio/signal_set.hpp>
#include <csignal>

#include "snowcar/api/routes.h"
#include "snowcar/common/log.h"

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

struct Sidecar::Signals {
  explicit Signals(boost::asio::io_context& io) : set(io, SIGTERM, SIGINT) {}
  boost::asio::signal_set set;
};

Sidecar::Sidecar(SidecarSettings settings)
    : settings_(std::move(settings)), pool_(settings_.threads) {
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

  // The directions this build does not have yet are refused, never silently skipped: a
  // config that asks for them must not look healthy.
  if (settings_.source_enabled || settings_.sink_enabled) {
    return fail(Status::FailedPrecondition(
                    std::string(settings_.source_enabled ? "source.enabled" : "sink.enabled") +
                    "=true, but this build of snowcar has no " +
                    (settings_.source_enabled ? "source" : "sink") +
                    " yet; set source.enabled=false and sink.enabled=false to run the state "
                    "store and socket alone"),
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
  if (Status s = api::RegisterStateRoutes(*router_, *store_); !s.ok()) return fail(s, "routes");

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

  readiness_.MarkReady();
  SNOWCAR_LOG(kInfo, "sidecar.ready",
              {{"state_dir", settings_.state_dir},
               {"socket", settings_.socket_path},
               {"threads", static_cast<int64_t>(pool_.size())},
               {"source", settings_.source_enabled},
               {"sink", settings_.sink_enabled}});
  return Status::Ok();
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
  // Order matters: stop taking requests, then stop the pool (no handler can touch the store
  // afterwards), then close the store.
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
  store_.reset();
}

}  // namespace snowcar::runtime
