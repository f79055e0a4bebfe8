// SPDX-License-Identifier: Apache-2.0
#include "client_call.h"

#include <boost/asio/post.hpp>
#include <cctype>
#include <random>

#include "snowcar/servicenow/call_cancel.h"

namespace snowcar::servicenow {

std::string NewRequestId() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id(32, '0');
  for (int half = 0; half < 2; ++half) {
    uint64_t bits = rng();
    for (int i = 0; i < 16; ++i) id[half * 16 + i] = kHex[(bits >> (i * 4)) & 15];
  }
  return id;
}

bool Call::Cancelled() const { return request.cancel != nullptr && request.cancel->cancelled(); }

void Call::StopWakeOnCancel() {
  if (cancel_wake != 0) request.cancel->Forget(cancel_wake);
  cancel_wake = 0;
}

void WakeOnCancel(const std::shared_ptr<Call>& call, std::weak_ptr<const void> client,
                  const boost::asio::any_io_executor& strand) {
  if (call->request.cancel == nullptr) return;
  call->cancel_wake = call->request.cancel->OnCancel(
      [client = std::move(client), strand, weak = std::weak_ptr<Call>(call)] {
        if (client.expired()) return;
        boost::asio::post(strand, [weak] {
          auto c = weak.lock();
          if (c && c->wait) c->wait->cancel();
        });
      });
}

std::string OperationLabel(const Call& call) {
  if (call.list) return "list";
  std::string name(MethodName(call.request.method));
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

std::string StatusClassLabel(int status) {
  if (status < 100 || status > 599) return "none";
  return std::to_string(status / 100) + "xx";
}

}  // namespace snowcar::servicenow
