// SPDX-License-Identifier: Apache-2.0
// A RecordProducer for unit tests: keeps every record, and acknowledges it at once (the
// default), later on the test's command, or with an injected error.
//
//   auto producer = std::make_shared<FakeProducer>();
//   producer->set_mode(FakeProducer::Mode::kHold);
//   ... code under test produces ...
//   producer->AckAll();                       // delivery reports posted to each executor
//   EXPECT_EQ(producer->records().size(), 3);
#pragma once

#include <chrono>
#include <deque>
#include <mutex>
#include <vector>

#include "snowcar/kafka/producer.h"

namespace snowcar::testsupport {

class FakeProducer final : public kafka::RecordProducer {
 public:
  enum class Mode {
    kAckImmediately,  // each Produce posts an OK report at once
    kHold,            // reports wait for AckAll / AckNext / FailNext
    kFailAll,         // each Produce posts `fail_status()` at once
  };

  void Produce(kafka::OutRecord record, boost::asio::any_io_executor executor,
               kafka::DeliveryCallback done) override;
  // Waits until nothing is held (kHold) or `timeout` passes.
  Status Flush(std::chrono::milliseconds timeout) override;

  void set_mode(Mode mode);
  // The error kFailAll and FailNext report (default: kUnavailable "injected").
  void set_fail_status(Status status);

  // Completes held records in Produce order. Return how many were completed.
  size_t AckAll();
  size_t AckNext(size_t n = 1);
  size_t FailNext(size_t n = 1);
  size_t held() const;

  // Every record produced so far (acknowledged or not), in Produce order.
  std::vector<kafka::OutRecord> records() const;
  // Only those acknowledged OK.
  std::vector<kafka::OutRecord> acknowledged() const;

 private:
  struct Held {
    kafka::OutRecord record;
    boost::asio::any_io_executor executor;
    kafka::DeliveryCallback done;
  };
  void Complete(Held held, Status status);  // REQUIRES: mu_ not held

  mutable std::mutex mu_;
  Mode mode_ = Mode::kAckImmediately;
  Status fail_status_ = Status::Unavailable("injected produce failure");
  std::deque<Held> held_;
  std::vector<kafka::OutRecord> all_;
  std::vector<kafka::OutRecord> acked_;
  int64_t next_offset_ = 0;
};

}  // namespace snowcar::testsupport
