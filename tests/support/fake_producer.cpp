// SPDX-License-Identifier: Apache-2.0
#include "support/fake_producer.h"

#include <boost/asio/post.hpp>
#include <thread>

namespace snowcar::testsupport {

void FakeProducer::Produce(kafka::OutRecord record, boost::asio::any_io_executor executor,
                           kafka::DeliveryCallback done) {
  Mode mode;
  Status fail;
  {
    std::lock_guard lock(mu_);
    all_.push_back(record);
    mode = mode_;
    fail = fail_status_;
    if (mode == Mode::kHold) {
      held_.push_back(Held{std::move(record), std::move(executor), std::move(done)});
      return;
    }
  }
  Complete(Held{std::move(record), std::move(executor), std::move(done)},
           mode == Mode::kFailAll ? fail : Status::Ok());
}

void FakeProducer::Complete(Held held, Status status) {
  kafka::DeliveryReport report;
  report.status = std::move(status);
  {
    std::lock_guard lock(mu_);
    if (report.status.ok()) {
      acked_.push_back(held.record);
      report.partition = held.record.partition < 0 ? 0 : held.record.partition;
      report.offset = next_offset_++;
    }
  }
  boost::asio::post(held.executor,
                    [done = std::move(held.done), report = std::move(report)]() { done(report); });
}

Status FakeProducer::Flush(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (held() == 0) return Status::Ok();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return Status::DeadlineExceeded(std::to_string(held()) + " records still held");
}

void FakeProducer::set_mode(Mode mode) {
  std::lock_guard lock(mu_);
  mode_ = mode;
}

void FakeProducer::set_fail_status(Status status) {
  std::lock_guard lock(mu_);
  fail_status_ = std::move(status);
}

size_t FakeProducer::AckAll() { return AckNext(static_cast<size_t>(-1)); }

size_t FakeProducer::AckNext(size_t n) {
  size_t done = 0;
  while (done < n) {
    Held h;
    {
      std::lock_guard lock(mu_);
      if (held_.empty()) break;
      h = std::move(held_.front());
      held_.pop_front();
    }
    Complete(std::move(h), Status::Ok());
    ++done;
  }
  return done;
}

size_t FakeProducer::FailNext(size_t n) {
  size_t done = 0;
  while (done < n) {
    Held h;
    Status fail;
    {
      std::lock_guard lock(mu_);
      if (held_.empty()) break;
      h = std::move(held_.front());
      held_.pop_front();
      fail = fail_status_;
    }
    Complete(std::move(h), fail);
    ++done;
  }
  return done;
}

size_t FakeProducer::held() const {
  std::lock_guard lock(mu_);
  return held_.size();
}

std::vector<kafka::OutRecord> FakeProducer::records() const {
  std::lock_guard lock(mu_);
  return all_;
}

std::vector<kafka::OutRecord> FakeProducer::acknowledged() const {
  std::lock_guard lock(mu_);
  return acked_;
}

}  // namespace snowcar::testsupport
