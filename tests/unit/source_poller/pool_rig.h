// SPDX-License-Identifier: Apache-2.0
// The rig a table's pollers are tested on (table_poller_test, reconciler_test): a real state
// store in a temp dir, an io_context run by two threads, a fake Table API whose every request
// the test answers (Answer, on a pool thread), a fake producer, and the settings of one table
// (alias inc, table incident, topic snow.incident) on acme.service-now.com.
#pragma once

#include <gtest/gtest.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <thread>
#include <vector>

#include "sim_table.h"
#include "snowcar/source/source_settings.h"
#include "support/fake_producer.h"
#include "support/fake_table_client.h"
#include "support/state_fixture.h"
#include "support/temp_dir.h"

namespace snowcar::source::testing {

class PoolRig : public ::testing::Test {
 protected:
  explicit PoolRig(std::string_view dir_prefix) : dir_(dir_prefix) {}

  // The instance's clock reads kT0 + 100 s.
  void SetUp() override {
    store_ = testsupport::OpenStateStore(dir_.File("state"));
    ASSERT_NE(store_, nullptr);
    for (int i = 0; i < 2; ++i) threads_.emplace_back([this] { io_.run(); });
    client_.set_server_now_ms((kT0 + 100) * 1000);
    client_.set_handler([this](const servicenow::InstanceRequest& r) { return Answer(r); });
    source_.instance = "acme.service-now.com";
    table_.alias = "inc";
    table_.name = "incident";
    table_.topic = "snow.incident";
  }

  // Stops the pool and joins its threads: from TearDown, once what runs on it was stopped.
  void StopPool() {
    work_.reset();
    io_.stop();
    for (auto& t : threads_) t.join();
  }

  // Every request the fake client gets. A test's `script_`, when set, may answer first.
  virtual servicenow::CallResult Answer(const servicenow::InstanceRequest& r) = 0;

  testsupport::TempDir dir_;
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_ =
      boost::asio::make_work_guard(io_);
  std::vector<std::thread> threads_;
  std::unique_ptr<state::StateStore> store_;
  testsupport::FakeTableClient client_;
  std::shared_ptr<testsupport::FakeProducer> producer_ =
      std::make_shared<testsupport::FakeProducer>();
  SourceSettings source_;
  TableSettings table_;
  std::mutex mu_;
  std::function<std::optional<servicenow::CallResult>(const servicenow::InstanceRequest&)> script_;
};

}  // namespace snowcar::source::testing
