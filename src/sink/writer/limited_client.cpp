// SPDX-License-Identifier: Apache-2.0
#include "limited_client.h"

#include <memory>

namespace snowcar::sink {

// NOLINTNEXTLINE(performance-unnecessary-value-param): the TableClient interface fixes it.
void LimitedClient::Send(servicenow::InstanceRequest request, boost::asio::any_io_executor executor,
                         servicenow::Completion done) {
  auto shared_request = std::make_shared<servicenow::InstanceRequest>(std::move(request));
  auto shared_done = std::make_shared<servicenow::Completion>(std::move(done));
  limit_.Acquire(executor, [this, executor, shared_request, shared_done]() {
    client_.Send(std::move(*shared_request), executor,
                 [this, shared_done](servicenow::CallResult result) {
                   limit_.Release();
                   (*shared_done)(std::move(result));
                 });
  });
}

}  // namespace snowcar::sink
