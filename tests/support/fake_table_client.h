// SPDX-License-Identifier: Apache-2.0
// A TableClient for unit tests: a handler decides each call's CallResult; every request is
// recorded. Completions are posted to the caller's executor, as the real client does, and a
// list asked for as text (InstanceRequest::rows_as_text) comes back as text, as it does too.
//
//   FakeTableClient client([](const servicenow::InstanceRequest& r) {
//     return FakeTableClient::List({row1, row2});
//   });
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <vector>

#include "snowcar/servicenow/outcome_table.h"
#include "snowcar/servicenow/table_client.h"

namespace snowcar::testsupport {

class FakeTableClient final : public servicenow::TableClient {
 public:
  using Handler = std::function<servicenow::CallResult(const servicenow::InstanceRequest&)>;

  FakeTableClient() = default;
  explicit FakeTableClient(Handler handler) : handler_(std::move(handler)) {}

  void set_handler(Handler handler);
  void set_server_now_ms(int64_t ms) { server_now_ms_ = ms; }

  void Send(servicenow::InstanceRequest request, boost::asio::any_io_executor executor,
            servicenow::Completion done) override;
  int64_t ServerNowMillis() const override { return server_now_ms_; }
  // Known unless a test says otherwise (then its handler plays the Date header's part).
  bool ServerClockKnown() const override { return server_clock_known_; }
  void set_server_clock_known(bool known) { server_clock_known_ = known; }

  std::vector<servicenow::InstanceRequest> requests() const;
  size_t request_count() const;

  // Ready-made answers.
  static servicenow::CallResult List(boost::json::array rows);
  static servicenow::CallResult Record(boost::json::object record, int http_status = 200);
  static servicenow::CallResult Empty(int http_status = 204);
  static servicenow::CallResult Failure(servicenow::OutcomeClass klass, int http_status,
                                        std::string message);
  // What the real client hands back once every attempt of a call made for `purpose` met
  // `failure` (servicenow/outcome_table.h): the classifier's verdict on it, with the parsed
  // answer; a v1 list's "No Record found" is an empty list.
  static servicenow::CallResult FinalAnswer(const servicenow::FailureCase& failure,
                                            servicenow::CallPurpose purpose);

 private:
  mutable std::mutex mu_;
  Handler handler_;
  std::vector<servicenow::InstanceRequest> requests_;
  std::atomic<int64_t> server_now_ms_{0};
  std::atomic<bool> server_clock_known_{true};
};

}  // namespace snowcar::testsupport
