// SPDX-License-Identifier: Apache-2.0
#include "sink/writer/in_flight_limit.h"

#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <vector>

#include "sink/writer/limited_client.h"
#include "sink_lanes_util.h"
#include "snowcar/servicenow/call_cancel.h"

namespace snowcar::sink {
namespace {

using namespace std::chrono_literals;

// Runs `io` until `done` holds or 5 s pass; returns done().
template <typename F>
bool RunUntil(boost::asio::io_context& io, F done) {
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  io.restart();
  while (!done() && std::chrono::steady_clock::now() < deadline) io.run_one_for(50ms);
  return done();
}

TEST(InFlightLimit, GrantsUpToMaxThenQueuesInOrder) {
  boost::asio::io_context io;
  InFlightLimit limit(2);
  std::vector<int> granted;
  for (int i = 0; i < 5; ++i) {
    limit.Acquire(io.get_executor(), [&granted, i] { granted.push_back(i); });
  }
  io.restart();
  io.poll();
  EXPECT_EQ(granted, (std::vector<int>{0, 1}));
  EXPECT_EQ(limit.in_flight(), 2);
  EXPECT_EQ(limit.waiting(), 3u);

  limit.Release();
  io.restart();
  io.poll();
  EXPECT_EQ(granted, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(limit.in_flight(), 2);

  limit.Release();
  limit.Release();
  limit.Release();
  io.restart();
  io.poll();
  EXPECT_EQ(granted, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(limit.in_flight(), 1);
  limit.Release();
  EXPECT_EQ(limit.in_flight(), 0);
  EXPECT_EQ(limit.max_observed(), 2);
}

TEST(InFlightLimit, ZeroOrNegativeMaxStillLetsOneThrough) {
  boost::asio::io_context io;
  InFlightLimit limit(0);
  int granted = 0;
  limit.Acquire(io.get_executor(), [&] { ++granted; });
  limit.Acquire(io.get_executor(), [&] { ++granted; });
  io.restart();
  io.poll();
  EXPECT_EQ(granted, 1);
  EXPECT_EQ(limit.max(), 1);
}

TEST(InFlightLimit, AWaiterWhoseCallIsCancelledLeavesAtOnceWithoutAPermit) {
  boost::asio::io_context io;
  InFlightLimit limit(1);
  std::vector<std::string> ran;
  limit.Acquire(io.get_executor(), [&] { ran.push_back("a granted"); });
  auto cancel = std::make_shared<servicenow::CallCancel>();
  limit.Acquire(
      io.get_executor(), [&] { ran.push_back("b granted"); }, cancel,
      [&] { ran.push_back("b withdrawn"); });
  limit.Acquire(io.get_executor(), [&] { ran.push_back("c granted"); });
  io.restart();
  io.poll();
  EXPECT_EQ(limit.waiting(), 2u);

  cancel->Cancel();
  EXPECT_TRUE(RunUntil(io, [&] { return ran.size() == 2; }));
  EXPECT_EQ(ran, (std::vector<std::string>{"a granted", "b withdrawn"}));
  EXPECT_EQ(limit.waiting(), 1u);
  EXPECT_EQ(limit.in_flight(), 1);

  limit.Release();  // a's permit goes to c, not to the withdrawn b
  EXPECT_TRUE(RunUntil(io, [&] { return ran.size() == 3; }));
  EXPECT_EQ(ran.back(), "c granted");
  EXPECT_EQ(limit.in_flight(), 1);
  limit.Release();
  EXPECT_EQ(limit.in_flight(), 0);
  EXPECT_EQ(limit.waiting(), 0u);

  // Already cancelled: withdrawn even with a permit free, and none is taken.
  limit.Acquire(
      io.get_executor(), [&] { ran.push_back("d granted"); }, cancel,
      [&] { ran.push_back("d withdrawn"); });
  EXPECT_TRUE(RunUntil(io, [&] { return ran.size() == 4; }));
  EXPECT_EQ(ran.back(), "d withdrawn");
  EXPECT_EQ(limit.in_flight(), 0);
  EXPECT_EQ(limit.max_observed(), 1);
}

TEST(InFlightLimit, ACancelAfterTheGrantLeavesThePermitToItsCall) {
  boost::asio::io_context io;
  InFlightLimit limit(1);
  int granted = 0;
  int withdrawn = 0;
  auto cancel = std::make_shared<servicenow::CallCancel>();
  limit.Acquire(io.get_executor(), [&] { ++granted; });
  limit.Acquire(
      io.get_executor(), [&] { ++granted; }, cancel, [&] { ++withdrawn; });
  limit.Release();   // the waiter is granted
  cancel->Cancel();  // too late to withdraw: its call reports the cancel itself
  EXPECT_TRUE(RunUntil(io, [&] { return granted == 2; }));
  io.restart();
  io.poll();
  EXPECT_EQ(withdrawn, 0);
  EXPECT_EQ(limit.in_flight(), 1);
  limit.Release();
  EXPECT_EQ(limit.in_flight(), 0);
}

// Through the client the sink uses: a write of a revoked lane that waits for a permit is
// answered at once as cancelled and never sent, and the permits stay right.
TEST(LimitedClient, AWriteCancelledWhileWaitingForAPermitEndsAtOnceUnsent) {
  boost::asio::io_context io;
  sinktest::HoldingClient instance(
      [](const servicenow::InstanceRequest&) { return sinktest::Ok(); });
  InFlightLimit limit(1);
  LimitedClient client(instance, limit);
  auto request = [](const std::string& target, std::shared_ptr<servicenow::CallCancel> cancel) {
    servicenow::InstanceRequest r;
    r.method = servicenow::Method::kPatch;
    r.target = target;
    r.cancel = std::move(cancel);
    return r;
  };
  std::optional<servicenow::CallResult> a, b, c;
  client.Send(request("/api/now/table/incident/a", nullptr), io.get_executor(),
              [&](servicenow::CallResult r) { a = std::move(r); });
  auto revoked = std::make_shared<servicenow::CallCancel>();
  client.Send(request("/api/now/table/incident/b", revoked), io.get_executor(),
              [&](servicenow::CallResult r) { b = std::move(r); });
  client.Send(request("/api/now/table/incident/c", nullptr), io.get_executor(),
              [&](servicenow::CallResult r) { c = std::move(r); });
  ASSERT_TRUE(RunUntil(io, [&] { return instance.held() == 1; }));
  EXPECT_EQ(limit.waiting(), 2u);

  revoked->Cancel();  // a is still unanswered: nothing frees a permit meanwhile
  ASSERT_TRUE(RunUntil(io, [&] { return b.has_value(); })) << "the cancelled write stays busy";
  EXPECT_EQ(b->klass, servicenow::OutcomeClass::kRetryable);
  EXPECT_NE(b->message.find("cancelled"), std::string::npos) << b->message;
  EXPECT_EQ(b->target, "/api/now/table/incident/b");
  EXPECT_EQ(instance.sent(), 1u);
  EXPECT_EQ(limit.in_flight(), 1);
  EXPECT_EQ(limit.waiting(), 1u);

  instance.ReleaseNext();
  ASSERT_TRUE(RunUntil(io, [&] { return a.has_value() && instance.held() == 1; }));
  ASSERT_EQ(instance.sent(), 2u);
  EXPECT_EQ(instance.requests().back().target, "/api/now/table/incident/c");
  instance.ReleaseAll();
  ASSERT_TRUE(RunUntil(io, [&] { return c.has_value(); }));
  EXPECT_TRUE(c->ok());
  EXPECT_EQ(instance.sent(), 2u) << "the cancelled write was sent after all";
  EXPECT_EQ(limit.in_flight(), 0);
  EXPECT_EQ(limit.waiting(), 0u);
}

}  // namespace
}  // namespace snowcar::sink
