// SPDX-License-Identifier: Apache-2.0
// The ServiceNow Table API emulator: an HTTP/1.1 server on 127.0.0.1 (Boost.Beast).
//
//   EmulatorServer server;                      // default options: port 0, 2 threads
//   SNOWCAR_RETURN_IF_ERROR(server.Start());
//   Populate(server.store(), "incident", {.rows = 1000});
//   client.base_url = server.base_url();       // "http://127.0.0.1:40123"
//   server.faults().AddRule({.kind = FaultKind::kRateLimit, .next_n = 1});
//
// Tests reach everything in-process (tables, knobs, clock, journal, row generator); the same
// knobs are on the unauthenticated control endpoint POST/GET /_emulator/... for black-box use
// (docs/testbed.md). Serves the Table API (unversioned, v1, v2), /oauth_token.do and the
// Batch API. Answers follow the team's Table API wire notes and recorded fixtures.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "snowcar/common/status.h"
#include "snowcar/testbed/emulator/emulator_clock.h"
#include "snowcar/testbed/emulator/faults.h"
#include "snowcar/testbed/emulator/journal.h"
#include "snowcar/testbed/emulator/oauth_tokens.h"
#include "snowcar/testbed/emulator/row_generator.h"
#include "snowcar/testbed/emulator/table_store.h"

namespace snowcar::emulator {

// Defaults documented in docs/testbed.md; they are test credentials, not secrets.
inline constexpr char kDefaultUser[] = "admin";
inline constexpr char kDefaultPassword[] = "admin-emulator";
inline constexpr char kDefaultClientId[] = "snowcar-emulator-client";
inline constexpr char kDefaultClientSecret[] = "snowcar-emulator-secret";

struct EmulatorOptions {
  std::string host = "127.0.0.1";
  uint16_t port = 0;  // 0 = any free port
  int threads = 2;
  std::string user = kDefaultUser;
  std::string password = kDefaultPassword;
  std::string client_id = kDefaultClientId;
  std::string client_secret = kDefaultClientSecret;
  int64_t access_token_seconds = 1800;
  int64_t refresh_token_seconds = 100LL * 24 * 3600;
  StoreOptions store;
  size_t journal_capacity = 100000;
  // Batch API: items not started within this budget (real time) come back unserviced.
  int64_t batch_time_limit_ms = 30000;
  // gzip answers of 256 bytes or more when the client sends Accept-Encoding: gzip, as an
  // instance does. Off by default: it costs CPU that throughput benchmarks would measure.
  bool gzip = false;
  // A kept-alive connection idle this long is closed by the server (0 = never). Instances
  // close idle connections after about 70 s; tests set it low to check that a client
  // survives reusing a connection the server has already closed.
  int64_t idle_timeout_ms = 70000;
  // Largest request body accepted (413 beyond).
  uint64_t max_body_bytes = 64ULL << 20;
};

class EmulatorServer {
 public:
  explicit EmulatorServer(EmulatorOptions options = {});
  ~EmulatorServer();
  EmulatorServer(const EmulatorServer&) = delete;
  EmulatorServer& operator=(const EmulatorServer&) = delete;

  // Binds, listens and starts the threads. Unavailable naming the address when the port
  // cannot be bound; FailedPrecondition when already started.
  Status Start();
  // Closes the listener and every connection, joins the threads, stops the row generator.
  // Idempotent; the destructor calls it.
  void Stop();

  uint16_t port() const;
  // "http://127.0.0.1:<port>" (no trailing slash).
  std::string base_url() const;

  TableStore& store();
  EmulatorClock& clock();
  FaultKnobs& faults();
  Journal& journal();
  RowGenerator& row_generator();
  OAuthTokens& oauth();
  const EmulatorOptions& options() const;

  // What POST /_emulator/reset does: clears every fault knob and the journal.
  void Reset();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace snowcar::emulator
