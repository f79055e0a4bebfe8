// SPDX-License-Identifier: Apache-2.0
// Shared pieces of the sink lane tests: a running pool, a TableClient that holds answers
// until the test releases them, record and answer builders.
#pragma once

#include <gtest/gtest.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/json.hpp>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "snowcar/kafka/record.h"
#include "snowcar/servicenow/table_client.h"

namespace snowcar::sinktest {

// A pool of `threads` threads running until Stop(); tests post work to it as the sidecar does.
class Pool {
 public:
  explicit Pool(int threads = 2);
  ~Pool();
  boost::asio::io_context& io() { return io_; }
  // Lets queued handlers finish, then joins.
  void Stop();

 private:
  boost::asio::io_context io_;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> guard_;
  std::vector<std::thread> threads_;
};

// 32 lower-case hex digits made from `n`.
std::string SysId(int n);

// A command record for the default settings (fixed table, key_value mode): key = sys_id
// (none: CREATE), value = JSON object (nullopt: DELETE).
kafka::InRecord Record(const std::string& topic, int32_t partition, int64_t offset,
                       std::optional<std::string> key, std::optional<boost::json::object> value);

// A TableClient whose answers wait until the test releases them, so tests can see what is
// in flight at once. The answer is decided by `handler` when released.
class HoldingClient final : public servicenow::TableClient {
 public:
  using Handler = std::function<servicenow::CallResult(const servicenow::InstanceRequest&)>;
  explicit HoldingClient(Handler handler) : handler_(std::move(handler)) {}

  void Send(servicenow::InstanceRequest request, boost::asio::any_io_executor executor,
            servicenow::Completion done) override;
  int64_t ServerNowMillis() const override { return 0; }

  size_t held() const;
  size_t sent() const;
  // The requests sent so far, in order.
  std::vector<servicenow::InstanceRequest> requests() const;
  // Answers the oldest held request(s).
  size_t ReleaseNext(size_t n = 1);
  size_t ReleaseAll() { return ReleaseNext(static_cast<size_t>(-1)); }

 private:
  struct Held {
    servicenow::InstanceRequest request;
    boost::asio::any_io_executor executor;
    servicenow::Completion done;
  };
  Handler handler_;
  mutable std::mutex mu_;
  std::deque<Held> held_;
  std::vector<servicenow::InstanceRequest> all_;
};

// Answers.
servicenow::CallResult Ok(boost::json::object record = {}, int status = 200);
servicenow::CallResult Rows(boost::json::array rows);
servicenow::CallResult Fail(servicenow::OutcomeClass klass, int status, std::string message = "");

// The JSON body of a request as an object (empty when it is not one).
boost::json::object BodyOf(const servicenow::InstanceRequest& request);
// One string field of that body ("<absent>" when missing or not a string).
std::string BodyField(const servicenow::InstanceRequest& request, const std::string& key);

}  // namespace snowcar::sinktest
