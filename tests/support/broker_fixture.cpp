// SPDX-License-Identifier: Apache-2.0
#include "support/broker_fixture.h"

namespace snowcar::testsupport {

std::unique_ptr<broker::EmbeddedBroker> StartBrokerOrFail(const broker::BrokerOptions& options) {
  auto started = broker::EmbeddedBroker::Start(options);
  if (!started.ok()) {
    ADD_FAILURE() << "embedded broker did not start: " << started.status().ToString();
    return nullptr;
  }
  return std::move(started).value();
}

void EmbeddedBrokerTest::SetUp() {
  broker_ = StartBrokerOrFail(Options());
  ASSERT_NE(broker_, nullptr);
}

void EmbeddedBrokerTest::TearDown() { broker_.reset(); }

}  // namespace snowcar::testsupport
