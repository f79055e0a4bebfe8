// SPDX-License-Identifier: Apache-2.0
#include "limited_client.h"

#include <memory>

namespace snowcar::sink {

// NOLINTNEXTLINE(performance-unnecessary-value-param): the TableClient interface fixes it.
void LimitedClient::Send(servicenow::InstanceRequest request, boost::asio::any_io_executor executor,
                         servicenow::Completion done) {
  auto shared_request = std::make_shared<servicenow::InstanceRequest>(std::move(request));
  auto shared_done = std::make_shared<servicenow::Completion>(std::move(done));
  const auto cancel = shared_request->cancel;  // the request itself moves on at the grant
  // Withdrawn while waiting for a permit (a revoke): ends at once as the client ends a call
  // cancelled before it was sent, RETRYABLE and never sent.
  auto withdrawn = [shared_request, shared_done]() {
    servicenow::CallResult result;
    result.klass = servicenow::OutcomeClass::kRetryable;
    result.message = "cancelled while waiting for a permit; not sent";
    result.method = shared_request->method;
    result.target = shared_request->target;
    result.request_id = shared_request->request_id;
    (*shared_done)(std::move(result));
  };
  limit_.Acquire(
      executor,
      [this, executor, shared_request, shared_done]() {
        client_.Send(std::move(*shared_request), executor,
                     [this, shared_done](servicenow::CallResult result) {
                       limit_.Release();
                       (*shared_done)(std::move(result));
                     });
      },
      cancel, std::move(withdrawn));
}

}  // namespace snowcar::sink
