// SPDX-License-Identifier: Apache-2.0
// The Apache Kafka broker an exactly-once run needs: the embedded broker hands records of open
// and aborted transactions to read_committed readers, so nothing exactly-once shows on it.
// Under ctest that is the run's broker (the kafka_broker fixture writes its addresses to
// CONTRACT_KAFKA_ADDRESSES); a driver started by hand without one starts a broker of its own
// (scripts/kafka-server, as the realkafka tests' own brokers) and stops it when it exits.
#pragma once

#include <memory>
#include <string>

#include "snowcar/common/status.h"
#include "support/child_process.h"

namespace snowcar::contract {

class RealBroker {
 public:
  // The broker for one run. `restarts`: the run's schedule takes the broker down, which the
  // shared broker must never be (other tests use it), so the run gets one of the driver's own.
  // Brokers live until the driver exits; each run makes topics, groups and aliases of its own.
  static Result<RealBroker*> ForRun(bool restarts);

  ~RealBroker();
  RealBroker(const RealBroker&) = delete;
  RealBroker& operator=(const RealBroker&) = delete;

  const std::string& bootstrap() const { return bootstrap_; }
  bool own() const { return server_ != nullptr; }
  Status CreateTopic(const std::string& name, int partitions);
  // Down and up again in place (same port, same data): a controlled shutdown and a start,
  // which takes seconds. Only a broker of the driver's own.
  Status Restart();

 private:
  RealBroker() = default;
  static Result<std::unique_ptr<RealBroker>> Shared();
  static Result<std::unique_ptr<RealBroker>> StartOwn();

  std::string bootstrap_;
  std::string dir_;  // an own broker's addresses file lives here
  std::unique_ptr<testsupport::ChildProcess> server_;
};

}  // namespace snowcar::contract
