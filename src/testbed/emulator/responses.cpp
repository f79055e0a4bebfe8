// SPDX-License-Identifier: Apache-2.0
#include "testbed/emulator/responses.h"

#include <atomic>
#include <ctime>

#include "snowcar/testbed/emulator/row_render.h"

namespace snowcar::emulator {

std::string HttpDate(int64_t epoch_seconds) {
  const std::time_t t = static_cast<std::time_t>(epoch_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  const size_t n = std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return std::string(buf, n);
}

namespace {

std::string NextTransactionId() {
  // 12 hex digits like an instance's X-Transaction-ID; unique per process run.
  static std::atomic<uint64_t> counter{0x4ed30495c000ULL};
  const uint64_t v = counter.fetch_add(0x9e37, std::memory_order_relaxed) & 0xffffffffffffULL;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(12, '0');
  for (int i = 11; i >= 0; --i) out[static_cast<size_t>(i)] = kHex[(v >> ((11 - i) * 4)) & 15];
  return out;
}

}  // namespace

void AddInstanceHeaders(EmulatorResponse& r, const Clock& clock) {
  r.headers.push_back({"X-Is-Logged-In", r.status == 401 ? "false" : "true"});
  r.headers.push_back({"X-Transaction-ID", NextTransactionId()});
  r.headers.push_back({"Pragma", "no-store,no-cache"});
  r.headers.push_back({"Cache-Control", "no-cache,no-store,must-revalidate,max-age=-1"});
  r.headers.push_back({"Expires", "0"});
  r.headers.push_back({"Content-Type", kJsonContentType});
  r.headers.push_back({"Date", HttpDate(clock.NowSeconds())});
  r.headers.push_back({"Server", "ServiceNow"});
}

std::string ErrorBody(std::string_view message, std::optional<std::string_view> detail) {
  std::string out = "{\"error\":{\"message\":";
  AppendJsonString(message, &out);
  out += ",\"detail\":";
  if (detail.has_value()) {
    AppendJsonString(*detail, &out);
  } else {
    out += "null";
  }
  out += "},\"status\":\"failure\"}";
  return out;
}

EmulatorResponse ErrorResponse(int status, std::string_view message,
                               std::optional<std::string_view> detail, const Clock& clock) {
  EmulatorResponse r;
  r.status = status;
  AddInstanceHeaders(r, clock);
  r.body = ErrorBody(message, detail);
  return r;
}

EmulatorResponse NotAuthenticated(const Clock& clock) {
  EmulatorResponse r =
      ErrorResponse(401, "User Not Authenticated", "Required to provide Auth information", clock);
  r.SetHeader("WWW-Authenticate", "Basic realm=\"Service-now\"");
  return r;
}

EmulatorResponse NoRecord(const Clock& clock) {
  return ErrorResponse(404, "No Record found",
                       "Record doesn't exist or ACL restricts the record retrieval", clock);
}

EmulatorResponse JsonResponse(int status, std::string body, const Clock& clock) {
  EmulatorResponse r;
  r.status = status;
  AddInstanceHeaders(r, clock);
  r.body = std::move(body);
  return r;
}

}  // namespace snowcar::emulator
