// SPDX-License-Identifier: Apache-2.0
// The owner's side of a handover: when the changelog can be said to hold a table's state.
#include "source/ownership/snapshot_publisher.h"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <mutex>
#include <vector>

namespace snowcar::source {
namespace {

using namespace std::chrono_literals;
using SteadyClock = std::chrono::steady_clock;

// Keeps every write; its delivery report comes when the test says so.
class HeldProducer final : public kafka::RecordProducer {
 public:
  void Produce(kafka::OutRecord record, boost::asio::any_io_executor /*executor*/,
               kafka::DeliveryCallback done) override {
    std::lock_guard lock(mu_);
    records_.push_back(std::move(record));
    reports_.push_back(std::move(done));
  }
  Status Flush(std::chrono::milliseconds /*timeout*/) override { return Status::Ok(); }

  size_t writes() const {
    std::lock_guard lock(mu_);
    return records_.size();
  }
  kafka::OutRecord record(size_t i) const {
    std::lock_guard lock(mu_);
    return records_.at(i);
  }
  void Report(size_t i, Status status) {
    kafka::DeliveryCallback done;
    {
      std::lock_guard lock(mu_);
      done = reports_.at(i);
    }
    done(kafka::DeliveryReport{std::move(status), 0, static_cast<int64_t>(i)});
  }

 private:
  mutable std::mutex mu_;
  std::vector<kafka::OutRecord> records_;
  std::vector<kafka::DeliveryCallback> reports_;
};

TableSnapshot State(int64_t cursor_ts) {
  TableSnapshot s;
  s.identity = {"acme.service-now.com", "inc", "fp1", "sys_updated_on"};
  s.cursor = {cursor_ts, "00000000000000000000000000000001", state::Phase::kStream};
  s.dedup = {{cursor_ts, "00000000000000000000000000000001", 2}};
  return s;
}

class SnapshotPublisherTest : public ::testing::Test {
 protected:
  std::optional<SteadyClock::time_point> Soon() const { return SteadyClock::now() + 200ms; }

  boost::asio::io_context io_;
  std::shared_ptr<HeldProducer> producer_ = std::make_shared<HeldProducer>();
  SnapshotPublisher publisher_{producer_, io_.get_executor(), "g.state", "pod-1", 1 << 20};
};

TEST_F(SnapshotPublisherTest, AWriteIsKeyedByTheAliasOnTheTablesPartition) {
  EXPECT_FALSE(publisher_.Publish("inc", 3, State(100), std::nullopt));  // not waited for
  ASSERT_EQ(producer_->writes(), 1u);
  const kafka::OutRecord r = producer_->record(0);
  EXPECT_EQ(r.topic, "g.state");
  EXPECT_EQ(r.partition, 3);
  EXPECT_EQ(r.key, "inc");
  ASSERT_TRUE(r.value.has_value());
  auto decoded = DecodeSnapshot(*r.value);
  ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
  EXPECT_TRUE(decoded->SameState(State(100)));
  EXPECT_EQ(decoded->replica, "pod-1");
}

// The race a release ran into: a periodic round wrote the state and a release, finding it
// unchanged, said the changelog held it before the write was acknowledged; the next owner,
// reading at once, restored the state before and emitted the same rows again.
TEST_F(SnapshotPublisherTest, AnUnchangedStateIsHeldOnlyOnceItsEarlierWriteIsAcknowledged) {
  publisher_.Publish("inc", 0, State(100), std::nullopt);  // the periodic round
  EXPECT_FALSE(publisher_.Publish("inc", 0, State(100), Soon()))
      << "the release said the changelog held a state whose write was still out";
  EXPECT_EQ(producer_->writes(), 1u) << "an unchanged state is not written twice";

  // Reported while the release waits: it returns as soon as the report comes.
  std::thread reporter([&] {
    std::this_thread::sleep_for(50ms);  // lets the release start waiting; either order passes
    producer_->Report(0, Status::Ok());
  });
  EXPECT_TRUE(publisher_.Publish("inc", 0, State(100), SteadyClock::now() + 30s));
  reporter.join();
  EXPECT_EQ(producer_->writes(), 1u);
  EXPECT_EQ(publisher_.published(), 1);
}

TEST_F(SnapshotPublisherTest, AStateWhoseWriteFailedIsWrittenAgain) {
  publisher_.Publish("inc", 0, State(100), std::nullopt);
  producer_->Report(0, Status::Unavailable("broker down"));
  EXPECT_EQ(publisher_.failed(), 1);
  // The next round (or the release) writes it again rather than trusting the failed one.
  EXPECT_FALSE(publisher_.Publish("inc", 0, State(100), std::nullopt));
  ASSERT_EQ(producer_->writes(), 2u);
  producer_->Report(1, Status::Ok());
  EXPECT_TRUE(publisher_.Publish("inc", 0, State(100), Soon()));
  EXPECT_EQ(producer_->writes(), 2u);
}

TEST_F(SnapshotPublisherTest, AReleaseWaitsForItsOwnWriteAndSaysWhenItFailed) {
  std::thread reporter([&] {
    while (producer_->writes() == 0) std::this_thread::yield();
    producer_->Report(0, Status::Unavailable("not leader"));
  });
  EXPECT_FALSE(publisher_.Publish("inc", 0, State(100), SteadyClock::now() + 30s));
  reporter.join();
  // Out past the deadline: not held.
  EXPECT_FALSE(publisher_.Publish("inc", 0, State(200), Soon()));
  EXPECT_EQ(producer_->writes(), 2u);
}

TEST_F(SnapshotPublisherTest, ARestoredStateIsHeldWithoutAWriteAndAChangedOneIsWritten) {
  publisher_.Restored("inc", State(100));
  EXPECT_TRUE(publisher_.Publish("inc", 0, State(100), Soon()));
  EXPECT_EQ(producer_->writes(), 0u);
  publisher_.Publish("inc", 0, State(101), std::nullopt);
  EXPECT_EQ(producer_->writes(), 1u);
  // After a handover the next owner publishes; this replica's memory of it is gone.
  producer_->Report(0, Status::Ok());
  publisher_.Forget("inc");
  publisher_.Publish("inc", 0, State(101), std::nullopt);
  EXPECT_EQ(producer_->writes(), 2u);
}

}  // namespace
}  // namespace snowcar::source
