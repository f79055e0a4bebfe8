// SPDX-License-Identifier: Apache-2.0
#include "snowcar/servicenow/table_client.h"

#include "snowcar/common/redact.h"

namespace snowcar::servicenow {

Status CallResult::ToStatus() const {
  if (ok()) return Status::Ok();
  std::string path = target.substr(0, target.find('?'));
  std::string text =
      std::string(MethodName(method)) + " " + path + ": " + std::string(OutcomeClassName(klass));
  if (http_status != 0 && !message.starts_with("HTTP ")) {
    text += " (HTTP " + std::to_string(http_status) + ")";
  }
  if (!message.empty()) text += ": " + message;
  text += " after " + std::to_string(attempts) + (attempts == 1 ? " attempt" : " attempts");
  return Status(StatusCodeFor(klass), redact::Mask(text));
}

}  // namespace snowcar::servicenow
