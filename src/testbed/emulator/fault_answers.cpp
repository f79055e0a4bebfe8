// SPDX-License-Identifier: Apache-2.0
#include "testbed/emulator/fault_answers.h"

#include <algorithm>

#include "testbed/emulator/responses.h"

namespace snowcar::emulator {

// The X-RateLimit-Rule value: the sys_id of an (imaginary) sys_rate_limit_rules record.
static constexpr char kRateLimitRuleId[] = "9c2b4e3a1b8f4c10a6d2e7f3c4b5a6d7";

bool ReplacesRequest(FaultKind kind) {
  return kind == FaultKind::kRateLimit || kind == FaultKind::kSemaphore ||
         kind == FaultKind::kServerError || kind == FaultKind::kForbidden ||
         kind == FaultKind::kAnswer || kind == FaultKind::kDropBeforeApply;
}

EmulatorResponse FaultAnswer(const FaultRule& rule, const std::string& method, const Clock& clock) {
  switch (rule.kind) {
    case FaultKind::kRateLimit: {
      EmulatorResponse r =
          ErrorResponse(429, "Rate limit exceeded",
                        "Rate limit of " + std::to_string(rule.rate_limit_per_hour) +
                            " requests per hour for Table API exceeded",
                        clock);
      r.headers.push_back({"X-RateLimit-Limit", std::to_string(rule.rate_limit_per_hour)});
      r.headers.push_back(
          {"X-RateLimit-Reset",
           std::to_string(clock.NowSeconds() + std::max<int64_t>(rule.retry_after_seconds, 0))});
      r.headers.push_back({"X-RateLimit-Rule", kRateLimitRuleId});
      // A negative retry_after leaves the header out: clients must cope without it too.
      if (rule.retry_after_seconds >= 0) {
        r.headers.push_back({"Retry-After", std::to_string(rule.retry_after_seconds)});
      }
      return r;
    }
    case FaultKind::kSemaphore: {
      EmulatorResponse r = ErrorResponse(
          429, "Rate limit exceeded",
          "Maximum number of concurrent API requests exceeded; no semaphore available", clock);
      if (rule.retry_after_seconds >= 0) {
        r.headers.push_back({"Retry-After", std::to_string(rule.retry_after_seconds)});
      }
      return r;
    }
    case FaultKind::kForbidden: {
      const bool read = method == "GET";
      return ErrorResponse(403, read ? "Insufficient rights to query records" : "Operation Failed",
                           read ? "Fields present in the query do not have permission to be read"
                                : "ACL Exception " + method + " Failed due to security constraints",
                           clock);
    }
    case FaultKind::kAnswer: {
      EmulatorResponse r;
      r.status = rule.status;
      r.body = rule.body;
      if (!r.body.empty()) r.headers.push_back({"Content-Type", "application/json;charset=UTF-8"});
      r.headers.push_back({"Date", HttpDate(clock.NowSeconds())});
      return r;
    }
    case FaultKind::kDropBeforeApply: {
      // Read, never run: the connection closes as if it broke on the way in.
      EmulatorResponse r;
      r.status = 0;
      r.delivery = Delivery::kDropBeforeReply;
      return r;
    }
    case FaultKind::kServerError:
    default: {
      if (rule.status == 500) {
        return ErrorResponse(500, "Internal server error",
                             "An unexpected error occurred while processing the request", clock);
      }
      // 502/503 come from the load balancer in front of the instance: an HTML page.
      EmulatorResponse r;
      r.status = rule.status == 502 ? 502 : 503;
      const std::string title =
          std::to_string(r.status) + " " + std::string(HttpReasonPhrase(r.status));
      r.headers.push_back({"Content-Type", "text/html"});
      r.headers.push_back({"Date", HttpDate(clock.NowSeconds())});
      r.body = "<html><head><title>" + title + "</title></head><body><center><h1>" + title +
               "</h1></center></body></html>\n";
      return r;
    }
  }
}

void ApplyDeliveryFault(const FaultRule& rule, EmulatorResponse& response) {
  switch (rule.kind) {
    case FaultKind::kDropMidResponse:
      response.delivery = Delivery::kDropMidBody;
      break;
    case FaultKind::kApplyThenDrop:
      response.delivery = Delivery::kDropBeforeReply;
      break;
    case FaultKind::kApplyThenStall:
      response.delay_ms = std::max(response.delay_ms, rule.delay_ms);
      break;
    case FaultKind::kMalformedJson:
      // A strict prefix of a JSON object is never valid JSON; framing stays correct.
      if (response.body.size() >= 2) {
        response.body.resize(response.body.size() / 2);
      } else {
        response.body = "{\"result\":[";
      }
      break;
    default:
      break;
  }
}

}  // namespace snowcar::emulator
