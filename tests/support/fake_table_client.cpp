// SPDX-License-Identifier: Apache-2.0
#include "support/fake_table_client.h"

#include <boost/asio/post.hpp>
#include <boost/json/serialize.hpp>

namespace snowcar::testsupport {

using servicenow::CallResult;

void FakeTableClient::set_handler(Handler handler) {
  std::lock_guard lock(mu_);
  handler_ = std::move(handler);
}

void FakeTableClient::Send(servicenow::InstanceRequest request,
                           boost::asio::any_io_executor executor, servicenow::Completion done) {
  Handler handler;
  {
    std::lock_guard lock(mu_);
    if (request.request_id.empty()) {
      request.request_id = "fake-" + std::to_string(requests_.size() + 1);
    }
    requests_.push_back(request);
    handler = handler_;
  }
  CallResult result =
      handler ? handler(request) : Failure(servicenow::OutcomeClass::kPermanent, 500, "no handler");
  if (request.rows_as_text && result.response.kind == servicenow::BodyKind::kList &&
      !result.response.rows.empty()) {
    // As the real client answers: the list's rows as text, to be parsed one at a time.
    std::string body =
        boost::json::serialize(boost::json::object{{"result", std::move(result.response.rows)}});
    result.response.rows.clear();
    if (auto texts = servicenow::SplitListRows(body)) result.response.row_texts = std::move(*texts);
  }
  result.method = request.method;
  result.target = request.target;
  result.request_id = request.request_id;
  if (result.attempts == 0) result.attempts = 1;
  boost::asio::post(executor, [done = std::move(done), result = std::move(result)]() mutable {
    done(std::move(result));
  });
}

std::vector<servicenow::InstanceRequest> FakeTableClient::requests() const {
  std::lock_guard lock(mu_);
  return requests_;
}

size_t FakeTableClient::request_count() const {
  std::lock_guard lock(mu_);
  return requests_.size();
}

CallResult FakeTableClient::List(boost::json::array rows) {
  CallResult r;
  r.http_status = 200;
  r.response.kind = servicenow::BodyKind::kList;
  r.response.rows = std::move(rows);
  return r;
}

CallResult FakeTableClient::Record(boost::json::object record, int http_status) {
  CallResult r;
  r.http_status = http_status;
  r.response.kind = servicenow::BodyKind::kRecord;
  r.response.record = std::move(record);
  return r;
}

CallResult FakeTableClient::Empty(int http_status) {
  CallResult r;
  r.http_status = http_status;
  r.response.kind = servicenow::BodyKind::kEmpty;
  return r;
}

CallResult FakeTableClient::Failure(servicenow::OutcomeClass klass, int http_status,
                                    std::string message) {
  CallResult r;
  r.klass = klass;
  r.http_status = http_status;
  r.message = std::move(message);
  return r;
}

CallResult FakeTableClient::FinalAnswer(const servicenow::FailureCase& failure,
                                        servicenow::CallPurpose purpose) {
  servicenow::TableResponse parsed;
  const servicenow::AttemptFacts facts = servicenow::FactsFor(failure, purpose, parsed);
  const servicenow::Verdict v = servicenow::Classify(facts);
  CallResult r;
  if (v.empty_list) {  // as the client hands it on: an empty page, headers kept
    r.response = std::move(parsed);
    r.response.kind = servicenow::BodyKind::kList;
    r.response.error_message.clear();
    r.response.error_detail.clear();
    r.http_status = facts.http_status;
    return r;
  }
  r.klass = v.klass;
  r.http_status = facts.http_status;
  r.message = v.message;
  r.instance_unreachable = v.instance_unreachable;
  r.response = std::move(parsed);
  r.method = facts.method;
  return r;
}

}  // namespace snowcar::testsupport
