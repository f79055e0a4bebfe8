// SPDX-License-Identifier: Apache-2.0
// A GoogleTest fixture that runs an in-process embedded Kafka broker for each test.
//
//   class MyTest : public snowcar::testsupport::EmbeddedBrokerTest {
//     BrokerOptions Options() override { return {.brokers = 3, .topics = {{"orders", 3}}}; }
//   };
//   TEST_F(MyTest, Works) { ... bootstrap() ... broker().SetBrokerDown(1) ... }
//
// A fresh cluster per test keeps tests independent: topics, offsets and injected faults never
// leak from one test to the next. Starting one costs a few milliseconds.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "snowcar/testbed/broker/embedded_broker.h"

namespace snowcar::testsupport {

class EmbeddedBrokerTest : public ::testing::Test {
 protected:
  // What to start; override to change it. Default: one broker, no topics.
  virtual broker::BrokerOptions Options() { return {}; }

  void SetUp() override;
  void TearDown() override;

  broker::EmbeddedBroker& broker() { return *broker_; }
  const std::string& bootstrap() const { return broker_->bootstrap_servers(); }

 private:
  std::unique_ptr<broker::EmbeddedBroker> broker_;
};

// One cluster shared by every test of a suite: cheaper for suites with many short tests, at
// the price of shared state. Use UniqueName() for topics and groups, and undo injected faults.
//
//   class MySuite : public snowcar::testsupport::SharedBrokerTest<MySuite> {
//    public:
//     static broker::BrokerOptions SuiteOptions() { return {.brokers = 1}; }  // optional
//   };
template <typename Suite>
class SharedBrokerTest : public ::testing::Test {
 public:
  static broker::BrokerOptions SuiteOptions() { return {}; }
  static void SetUpTestSuite();
  static void TearDownTestSuite() { shared_.reset(); }

 protected:
  void SetUp() override { ASSERT_NE(shared_, nullptr) << "the suite's broker did not start"; }
  static broker::EmbeddedBroker& broker() { return *shared_; }
  static const std::string& bootstrap() { return shared_->bootstrap_servers(); }

 private:
  static inline std::unique_ptr<broker::EmbeddedBroker> shared_;
};

// Outside a fixture: starts a broker or fails the current test (ASSERT-style, so call it
// from a function returning void or check the result for nullptr).
std::unique_ptr<broker::EmbeddedBroker> StartBrokerOrFail(const broker::BrokerOptions& options);

template <typename Suite>
void SharedBrokerTest<Suite>::SetUpTestSuite() {
  shared_ = StartBrokerOrFail(Suite::SuiteOptions());
}

}  // namespace snowcar::testsupport
