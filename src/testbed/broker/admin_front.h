// SPDX-License-Identifier: Apache-2.0
// A thin TCP front before each broker of the mock cluster, so that the embedded broker
// answers the Admin API's CreateTopics, which librdkafka 2.0.2's mock does not implement.
//
// Clients connect to the front; each connection is relayed byte for byte to the mock broker
// behind it, except for:
//   - CreateTopics requests, which the front answers itself (creating the topics in the mock);
//   - ApiVersions answers, which gain CreateTopics so a client dares to send it;
//   - Metadata answers, whose controller (the mock names none, so an Admin client waits for
//     one forever) becomes a real broker, and whose broker ports become the front's;
//   - FindCoordinator answers, whose ports become the front's.
// Answers leave in request order, a synthetic CreateTopics answer included. Everything else
// (faults, delays, dropped connections) is the mock's own behaviour, seen through the relay.
//
// One thread of its own, one strand per connection.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kafka_wire.h"
#include "snowcar/common/status.h"

namespace snowcar::broker::internal {

class AdminFront {
 public:
  // Listens on 127.0.0.1 (free ports), one listener per mock broker port, in that order.
  static Result<std::unique_ptr<AdminFront>> Start(const std::vector<uint16_t>& mock_ports,
                                                   CreateTopicFn create);
  // Closes the listeners and every relayed connection, joins the thread.
  ~AdminFront();
  AdminFront(const AdminFront&) = delete;
  AdminFront& operator=(const AdminFront&) = delete;

  // "127.0.0.1:p1,127.0.0.1:p2,..." in the order of the mock ports.
  const std::string& bootstrap() const;

  struct Impl;

 private:
  explicit AdminFront(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace snowcar::broker::internal
