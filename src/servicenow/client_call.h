// SPDX-License-Identifier: Apache-2.0
// One logical call of CurlTableClient, kept across its attempts (retries, a fresh token), and
// the names it goes by in logs and metrics. Private to the servicenow module.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cstdint>
#include <memory>
#include <string>

#include "snowcar/servicenow/table_client.h"

namespace snowcar::servicenow {

struct Call {
  InstanceRequest request;
  boost::asio::any_io_executor executor;  // where `done` runs
  Completion done;
  std::string url;
  bool list = false;  // a GET of a collection (its metric label is "list")
  int attempts = 0;
  int64_t started_ms = 0;
  bool reauthenticated = false;
  std::string token;                                // the bearer token of the current attempt
  std::unique_ptr<boost::asio::steady_timer> wait;  // set while the call waits to retry
  uint64_t cancel_wake = 0;  // its wake-up in request.cancel while it waits (call_cancel.h)

  // The caller withdrew the call: no attempt of it may start any more.
  bool Cancelled() const;
  // When the call's wait to retry ended: its wake-up (WakeOnCancel) is not needed any more.
  void StopWakeOnCancel();
};

// While `call` waits to retry (`call->wait` armed on `strand`), a cancel of its token
// cancels that wait, so the call ends at once; nothing happens once `client` is gone.
void WakeOnCancel(const std::shared_ptr<Call>& call, std::weak_ptr<const void> client,
                  const boost::asio::any_io_executor& strand);

// 32 random hex digits: the X-Request-Id of a call, the same on every attempt, so the
// instance's logs and snowcar's name the call alike.
std::string NewRequestId();

// The labels of snowcar_snow_request_duration_seconds (ClientStats::request_seconds):
// "list", "get", "post", ... and "2xx", "4xx", ..., or "none" when no answer came.
std::string OperationLabel(const Call& call);
std::string StatusClassLabel(int status);

}  // namespace snowcar::servicenow
