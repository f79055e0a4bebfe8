// SPDX-License-Identifier: Apache-2.0
// Building the emulator's answers: headers an instance sends, and the documented error shape
// {"error":{"message":...,"detail":...},"status":"failure"} (message before detail, as 2026
// instances order it).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "snowcar/common/time.h"
#include "testbed/emulator/emulator_http.h"

namespace snowcar::emulator {

inline constexpr char kJsonContentType[] = "application/json;charset=UTF-8";

// "Wed, 02 Dec 2026 08:45:25 GMT" for the Date header.
std::string HttpDate(int64_t epoch_seconds);

// Headers every Table API answer carries: Content-Type (JSON), Date (from `clock`), Server,
// cache headers, X-Is-Logged-In, a fresh X-Transaction-ID.
void AddInstanceHeaders(EmulatorResponse& response, const Clock& clock);

std::string ErrorBody(std::string_view message, std::optional<std::string_view> detail);

// A JSON error answer with the instance headers.
EmulatorResponse ErrorResponse(int status, std::string_view message,
                               std::optional<std::string_view> detail, const Clock& clock);

// 401 "User Not Authenticated" with WWW-Authenticate, for a missing or bad credential.
EmulatorResponse NotAuthenticated(const Clock& clock);

// 404 for a record that is missing or hidden by an ACL.
EmulatorResponse NoRecord(const Clock& clock);

// A 200/201 JSON answer with the instance headers.
EmulatorResponse JsonResponse(int status, std::string body, const Clock& clock);

}  // namespace snowcar::emulator
