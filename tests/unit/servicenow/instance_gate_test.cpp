// SPDX-License-Identifier: Apache-2.0
// The instance's gate: waiters wait while it is closed, one probe at a time goes out after a
// growing wait, and the first answer lets every waiter go at once.
#include "snowcar/servicenow/instance_gate.h"

#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <mutex>
#include <thread>
#include <vector>

#include "support/wait.h"

namespace snowcar::servicenow {
namespace {

using namespace std::chrono_literals;
using testsupport::WaitFor;

class InstanceGateTest : public ::testing::Test {
 protected:
  InstanceGateTest() : guard_(io_.get_executor()), thread_([this] { io_.run(); }) {}
  ~InstanceGateTest() override {
    if (gate_) gate_->Stop();
    guard_.reset();
    io_.stop();
    thread_.join();
  }

  // A gate whose probes answer `reached_` and are recorded.
  void MakeGate(int64_t initial_ms = 5, int64_t max_ms = 20) {
    gate_ = std::make_shared<InstanceGate>(
        io_.get_executor(),
        [this](const std::string& target, std::function<void(bool)> done) {
          {
            std::lock_guard lock(mu_);
            probes_.push_back(target);
          }
          done(reached_.load());
        },
        initial_ms, max_ms);
  }
  size_t Probes() {
    std::lock_guard lock(mu_);
    return probes_.size();
  }

  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard_;
  std::thread thread_;
  std::shared_ptr<InstanceGate> gate_;
  std::atomic<bool> reached_{false};
  std::mutex mu_;
  std::vector<std::string> probes_;
};

TEST_F(InstanceGateTest, WaitersGoAtOnceWhileOpen) {
  MakeGate();
  std::atomic<int> ran{0};
  gate_->WhenOpen(io_.get_executor(), [&] { ++ran; });
  ASSERT_TRUE(WaitFor([&] { return ran == 1; }, 5s));
  EXPECT_EQ(Probes(), 0u);
}

TEST_F(InstanceGateTest, ClosedGateProbesUntilTheInstanceAnswersThenReleasesEveryWaiter) {
  MakeGate();
  gate_->Close("could not connect", "/api/now/table/incident/0123?sysparm_fields=a");
  gate_->Close("could not connect again", "/api/now/table/other");  // one pause, not two
  std::atomic<int> ran{0};
  for (int i = 0; i < 3; ++i) gate_->WhenOpen(io_.get_executor(), [&] { ++ran; });
  EXPECT_FALSE(gate_->IsOpen());
  EXPECT_EQ(gate_->Read().waiters, 3u);
  EXPECT_EQ(gate_->Read().reason, "could not connect again");
  ASSERT_TRUE(WaitFor([&] { return Probes() >= 3; }, 5s));
  EXPECT_EQ(ran, 0) << "nobody goes while the probes fail";
  reached_ = true;
  ASSERT_TRUE(WaitFor([&] { return ran == 3; }, 5s));
  EXPECT_TRUE(gate_->IsOpen());
  EXPECT_EQ(gate_->Read().closes, 1);
  std::lock_guard lock(mu_);
  for (const auto& p : probes_) {
    EXPECT_EQ(p, "/api/now/table/incident?sysparm_limit=1&sysparm_fields=sys_id");
  }
}

TEST_F(InstanceGateTest, AnAnswerToAnyCallOpensIt) {
  MakeGate(/*initial_ms=*/60000, /*max_ms=*/60000);
  gate_->Close("refused", "/api/now/table/incident");
  std::atomic<int> ran{0};
  gate_->WhenOpen(io_.get_executor(), [&] { ++ran; });
  gate_->Open();
  ASSERT_TRUE(WaitFor([&] { return ran == 1; }, 5s));
  EXPECT_EQ(Probes(), 0u);
}

TEST_F(InstanceGateTest, StopDropsWaitersAndProbes) {
  MakeGate();
  gate_->Close("refused", "/api/now/table/incident");
  std::atomic<int> ran{0};
  gate_->WhenOpen(io_.get_executor(), [&] { ++ran; });
  gate_->Stop();
  EXPECT_EQ(gate_->Read().waiters, 0u);
  const size_t probes = Probes();
  gate_->Open();
  EXPECT_EQ(ran, 0);
  EXPECT_LE(Probes(), probes + 1);
}

TEST(InstanceGateProbe, TargetsOneRowOfTheFailingTable) {
  EXPECT_EQ(InstanceGate::ProbeTarget("/api/now/table/incident/0123abcd?sysparm_fields=x"),
            "/api/now/table/incident?sysparm_limit=1&sysparm_fields=sys_id");
  EXPECT_EQ(InstanceGate::ProbeTarget("/api/now/v2/table/u_ticket?sysparm_query=a%3Db"),
            "/api/now/v2/table/u_ticket?sysparm_limit=1&sysparm_fields=sys_id");
  EXPECT_EQ(InstanceGate::ProbeTarget("/api/now/v1/batch"), "/api/now/v1/batch");
}

}  // namespace
}  // namespace snowcar::servicenow
