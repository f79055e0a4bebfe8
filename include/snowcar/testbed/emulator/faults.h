// SPDX-License-Identifier: Apache-2.0
// Fault injection for the emulator: what can go wrong between a client and an instance.
//
// Each fault is a rule: a kind, a scope (HTTP method and/or path prefix; empty = any) and a
// trigger: either "the next N matching requests" or "this share of matching requests" (a
// probability, drawn from a seeded generator so a test run is repeatable). Rules are checked
// in the order added; the first that fires decides the request's fate. Latency and the ACL
// stand-in are separate because they combine with everything else.
//
// Thread-safe: tests change knobs while requests are in flight.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "snowcar/common/status.h"

namespace snowcar::emulator {

enum class FaultKind {
  kRateLimit,        // 429 "Rate limit exceeded" + Retry-After and X-RateLimit-* headers
  kSemaphore,        // 429 without X-RateLimit-* (the instance ran out of request semaphores)
  kServerError,      // 500, 502 or 503 (502/503 with a proxy's HTML page, as a load balancer)
  kForbidden,        // 403 with the ACL message of the method
  kDropMidResponse,  // headers and part of the body sent, then the connection closed
  kTimedOutQuery,    // 200 whose body holds a truncated result plus a "Transaction cancelled"
                     // error and status "failure" (lists only; others get a plain 200)
  kMalformedJson,    // 200/201 whose body is cut short: not valid JSON, correct framing
  kApplyThenDrop,    // the request takes effect, then the connection closes with no reply
  kAnswer,           // any status with any body (or none) instead of the request: 400, 401,
                     // 404, 409, 504, a 200 carrying an error, a 202 without a body, ...
  kDropBeforeApply,  // the request is read, NOT applied, and the connection closes with no reply
  kApplyThenStall,   // the request takes effect; its answer waits `delay_ms` (past a client's
                     // request timeout: a timeout after apply)
};

std::string_view FaultKindName(FaultKind kind);
// "rate_limit", "semaphore", "server_error", "forbidden", "drop", "timed_out_query",
// "malformed_json", "apply_then_drop", "answer", "drop_before_apply", "apply_then_stall".
Result<FaultKind> ParseFaultKind(std::string_view name);

// Which requests a rule or knob applies to.
struct FaultScope {
  std::string method;       // "GET", "POST", ...; empty = every method
  std::string path_prefix;  // e.g. "/api/now/table/incident"; empty = every path
  bool Matches(std::string_view method, std::string_view path) const;
};

struct FaultRule {
  FaultKind kind = FaultKind::kServerError;
  FaultScope scope{};
  // Trigger: the next `next_n` matching requests when > 0, else a share in [0, 1].
  int64_t next_n = 0;
  double share = 0.0;
  // kServerError: 500, 502 or 503.
  int status = 503;
  // kRateLimit / kSemaphore: Retry-After seconds; kRateLimit: X-RateLimit-Limit per hour.
  int64_t retry_after_seconds = 1;
  int64_t rate_limit_per_hour = 100;
  // kTimedOutQuery: false = also cut the JSON mid-record, as one captured instance did.
  bool valid_json = true;
  // kAnswer: the status (`status`, any 100..599) and this body verbatim ("" = no body).
  std::string body = {};
  // kApplyThenStall: how long the answer waits.
  int64_t delay_ms = 0;
};

struct LatencyKnob {
  int64_t fixed_ms = 0;
  int64_t jitter_ms = 0;  // plus a uniform draw in [0, jitter_ms]
  FaultScope scope{};
};

// ACL stand-in: hides every k-th row (by a hash of sys_id, so the same rows stay hidden on
// every page and on GET by sys_id). Applied after limit/offset, so pages come back short.
struct AclKnob {
  int64_t hide_every = 0;  // 0 = off
  std::string table;       // empty = every table
  bool Hides(std::string_view table_name, std::string_view sys_id) const;
};

class FaultKnobs {
 public:
  explicit FaultKnobs(uint64_t seed = 42) : rng_(seed) {}

  void AddRule(FaultRule rule);
  void SetLatency(LatencyKnob latency);
  void SetAcl(AclKnob acl);
  // Batch API: items after the first `limit` come back unserviced (negative = no limit).
  void SetBatchServiceLimit(int64_t limit);
  // Removes every rule, latency, ACL and batch limit.
  void Clear();

  // The rule that fires for this request, if any (consumes one of a next_n trigger).
  std::optional<FaultRule> Pick(std::string_view method, std::string_view path);
  // The delay for this request in ms (0 when no latency applies).
  int64_t DelayMs(std::string_view method, std::string_view path);
  AclKnob acl() const;
  int64_t batch_service_limit() const;
  std::vector<FaultRule> rules() const;
  LatencyKnob latency() const;

 private:
  mutable std::mutex mu_;
  std::mt19937_64 rng_;
  std::vector<FaultRule> rules_;
  LatencyKnob latency_;
  AclKnob acl_;
  int64_t batch_limit_ = -1;
};

}  // namespace snowcar::emulator
