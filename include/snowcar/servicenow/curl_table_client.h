// SPDX-License-Identifier: Apache-2.0
// The production TableClient: one libcurl multi handle driven by a boost::asio io_context.
//
// libcurl's multi interface is not thread-safe, so everything touching it runs on one strand
// of the caller's io_context: curl tells us which sockets to watch (asio stream_descriptors
// wait for readiness) and when to wake it (one steady_timer). No pool thread ever waits on
// the network; Send() from any thread just posts to the strand.
//
// In flight at once: at most the adaptive limit (client_options.h, adaptive_limit.h); calls
// beyond it wait in a FIFO permit queue. Retries wait on asio timers. Connections are kept
// in the multi handle's cache and reused.
#pragma once

#include <boost/asio/io_context.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "snowcar/common/histogram.h"
#include "snowcar/common/time.h"
#include "snowcar/servicenow/client_options.h"
#include "snowcar/servicenow/instance_gate.h"
#include "snowcar/servicenow/instance_reachability.h"
#include "snowcar/servicenow/retry_policy.h"
#include "snowcar/servicenow/table_client.h"

namespace snowcar::servicenow {

// Seams for tests; production leaves them empty.
struct ClientSeams {
  const Clock* clock = nullptr;  // elapsed budget, token expiry, drift (default: system)
  JitterSource jitter = {};      // backoff draws (default: DefaultJitter())
};

// Counters for tests and metrics. Read with CurlTableClient::stats().
struct ClientStats {
  int64_t attempts = 0;        // HTTP attempts to the Table API (token requests excluded)
  int64_t token_requests = 0;  // requests to the token endpoint
  // Times the credential files were read again after the instance refused the credentials.
  int64_t credential_rereads = 0;
  int64_t retries = 0;    // attempts after the first
  int in_flight = 0;      // Table API transfers now running
  int max_in_flight = 0;  // highest in_flight seen
  int limit = 0;          // the adaptive concurrency limit now
  int queued = 0;         // calls waiting for a permit
  // How attempts ended (each attempt once; stopped transfers not counted):
  int64_t answered_ok = 0;  // an answer classed OK
  int64_t throttled = 0;    // 429 or a throttling answer
  int64_t refused = 0;      // 401 or 403: the credentials or the user's rights refused
  int64_t failed = 0;       // any other answer (4xx, 5xx, unparsable)
  int64_t unreachable = 0;  // no HTTP answer: connect, TLS or timeout failure
  // How long attempts took (libcurl's total time), by {operation, status class}: operation
  // "list" for a list GET, else the method in lower case; status "2xx".."5xx", or "none"
  // when no answer arrived. Stopped transfers are not observed.
  std::map<std::pair<std::string, std::string>, LatencyHistogram> request_seconds;
};

class CurlTableClient final : public TableClient {
 public:
  // Fails with InvalidArgument when the options are incomplete (ClientOptions::Validate) or
  // libcurl cannot be set up.
  static Result<std::unique_ptr<CurlTableClient>> Create(boost::asio::io_context& io,
                                                         ClientOptions options,
                                                         ClientSeams seams = {});
  ~CurlTableClient() override;  // Stop()

  void Send(InstanceRequest request, boost::asio::any_io_executor executor,
            Completion done) override;
  int64_t ServerNowMillis() const override;
  bool ServerClockKnown() const override;

  // Fails every pending and future call with kCancelled (class RETRYABLE) and waits until
  // the strand has let go of libcurl. Needs the io_context running on another thread; must
  // not be called from inside a completion. Idempotent.
  void Stop();

  ClientStats stats() const;

  // Whether the instance can be used at all, fed by this client's calls. Set its listener
  // before the first Send().
  InstanceReachability& reachability();
  // The instance's gate: closed by a call that ends instance-wide, probed, opened by an
  // answer. Lanes and pollers wait at it.
  InstanceGate* gate() override;

  struct Impl;

 private:
  explicit CurlTableClient(std::shared_ptr<Impl> impl);
  std::shared_ptr<Impl> impl_;
};

}  // namespace snowcar::servicenow
