// SPDX-License-Identifier: Apache-2.0
#include "snowcar/testbed/emulator/emulator_server.h"

#include "snowcar/common/log.h"
#include "snowcar/common/redact.h"
#include "testbed/emulator/emulator_router.h"
#include "testbed/emulator/http_listener.h"
#include "testbed/emulator/server_context.h"

namespace snowcar::emulator {

struct EmulatorServer::Impl {
  explicit Impl(EmulatorOptions o)
      : options(std::move(o)),
        store(clock, options.store),
        journal(options.journal_capacity),
        row_generator(store),
        oauth(clock),
        ctx{options, store, clock, faults, journal, row_generator, oauth, dictionary},
        listener([this](EmulatorRequest& req) { return Route(ctx, req); }, options.threads,
                 options.max_body_bytes, options.idle_timeout_ms) {
    oauth.SetLifetimes(options.access_token_seconds, options.refresh_token_seconds);
    redact::RegisterSecret(options.password);
    redact::RegisterSecret(options.client_secret);
  }

  EmulatorOptions options;
  EmulatorClock clock;
  TableStore store;
  FaultKnobs faults;
  Journal journal;
  RowGenerator row_generator;
  OAuthTokens oauth;
  DictionarySync dictionary;
  ServerContext ctx;
  HttpListener listener;
  bool started = false;
};

EmulatorServer::EmulatorServer(EmulatorOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {}

EmulatorServer::~EmulatorServer() { Stop(); }

Status EmulatorServer::Start() {
  if (impl_->started) return Status::FailedPrecondition("emulator already started");
  // Every instance has the audit tables, empty or not: a client may query them first.
  SNOWCAR_RETURN_IF_ERROR(impl_->ctx.store.CreateTable(kAuditTable));
  SNOWCAR_RETURN_IF_ERROR(impl_->ctx.store.CreateTable(kAuditDeleteTable));
  SNOWCAR_RETURN_IF_ERROR(impl_->listener.Start(impl_->options.host, impl_->options.port));
  impl_->started = true;
  SNOWCAR_LOG(kInfo, "emulator.listening",
              {{"url", base_url()}, {"threads", impl_->options.threads}});
  return Status::Ok();
}

void EmulatorServer::Stop() {
  impl_->row_generator.Stop();
  impl_->listener.Stop();
}

uint16_t EmulatorServer::port() const { return impl_->listener.port(); }

std::string EmulatorServer::base_url() const {
  return "http://" + impl_->options.host + ":" + std::to_string(port());
}

TableStore& EmulatorServer::store() { return impl_->store; }
EmulatorClock& EmulatorServer::clock() { return impl_->clock; }
FaultKnobs& EmulatorServer::faults() { return impl_->faults; }
Journal& EmulatorServer::journal() { return impl_->journal; }
RowGenerator& EmulatorServer::row_generator() { return impl_->row_generator; }
OAuthTokens& EmulatorServer::oauth() { return impl_->oauth; }
const EmulatorOptions& EmulatorServer::options() const { return impl_->options; }

void EmulatorServer::Reset() {
  impl_->faults.Clear();
  impl_->journal.Clear();
}

}  // namespace snowcar::emulator
