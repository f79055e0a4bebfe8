// SPDX-License-Identifier: Apache-2.0
// The TableClient as the sink uses it: every request first takes a permit from the global
// InFlightLimit and gives it back when its final answer arrives, so the lanes, the writer's
// lookups and the field catalog together never exceed snow.sink.max.in.flight.
#pragma once

#include "in_flight_limit.h"
#include "snowcar/servicenow/table_client.h"

namespace snowcar::sink {

class LimitedClient {
 public:
  LimitedClient(servicenow::TableClient& client, InFlightLimit& limit)
      : client_(client), limit_(limit) {}

  // Like TableClient::Send: `done` runs once, posted to `executor`.
  void Send(servicenow::InstanceRequest request, boost::asio::any_io_executor executor,
            servicenow::Completion done);

  InFlightLimit& limit() { return limit_; }

 private:
  servicenow::TableClient& client_;
  InFlightLimit& limit_;
};

}  // namespace snowcar::sink
