// SPDX-License-Identifier: Apache-2.0
// A POST with an empty body, for the control endpoints of the test doubles (the registry's
// /_registry/fail knob and the like), over a real socket like every other request.
#pragma once

#include <string>

namespace snowcar::testsupport {

struct HttpAnswer {
  long status = 0;  // NOLINT(google-runtime-int): libcurl's type; 0 when nothing answered
  std::string body;
};

HttpAnswer PostEmpty(const std::string& url);

}  // namespace snowcar::testsupport
