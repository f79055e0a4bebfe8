// SPDX-License-Identifier: Apache-2.0
// Status and Result<T>: the one result type used at every module edge.
//
// Errors cross module and thread boundaries as values, never as exceptions. A Status carries
// a code that says what the caller may do next (retry, route to an error path, stop) and a
// message meant for a human operator: it names the thing that is wrong.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace snowcar {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,     // bad input: a config value, a request, a record. Do not retry.
  kNotFound,            // the thing asked for does not exist.
  kAlreadyExists,       // e.g. a socket or state dir already held by another process.
  kFailedPrecondition,  // the system is not in a state where this can work (do not retry as is).
  kPermissionDenied,    // the OS or a remote refused access.
  kUnavailable,         // transient: retry this call later.
  kDeadlineExceeded,    // a timeout; may be retried.
  kResourceExhausted,   // a limit was hit (size, disk, queue).
  kDataLoss,            // stored data is corrupt or truncated.
  kCancelled,           // stopped on request (shutdown).
  kInternal,            // a broken invariant: a bug.
};

std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return {}; }
  static Status InvalidArgument(std::string m) {
    return {StatusCode::kInvalidArgument, std::move(m)};
  }
  static Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
  static Status AlreadyExists(std::string m) { return {StatusCode::kAlreadyExists, std::move(m)}; }
  static Status FailedPrecondition(std::string m) {
    return {StatusCode::kFailedPrecondition, std::move(m)};
  }
  static Status PermissionDenied(std::string m) {
    return {StatusCode::kPermissionDenied, std::move(m)};
  }
  static Status Unavailable(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
  static Status DeadlineExceeded(std::string m) {
    return {StatusCode::kDeadlineExceeded, std::move(m)};
  }
  static Status ResourceExhausted(std::string m) {
    return {StatusCode::kResourceExhausted, std::move(m)};
  }
  static Status DataLoss(std::string m) { return {StatusCode::kDataLoss, std::move(m)}; }
  static Status Cancelled(std::string m) { return {StatusCode::kCancelled, std::move(m)}; }
  static Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // True when the same call may succeed if tried again later.
  bool retriable() const {
    return code_ == StatusCode::kUnavailable || code_ == StatusCode::kDeadlineExceeded;
  }
  // "NOT_FOUND: no such table" (or "OK").
  std::string ToString() const;
  // Returns a copy whose message is prefixed with `context: `.
  Status WithContext(std::string_view context) const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// A value or the Status that explains why there is none.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}        // NOLINT(google-explicit-constructor)
  Result(Status status) : v_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    assert(!std::get<Status>(v_).ok() && "Result built from an OK status has no value");
  }

  bool ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return ok(); }
  // REQUIRES: !ok()
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  // REQUIRES: ok()
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace snowcar

#define SNOWCAR_CONCAT_INNER(a, b) a##b
#define SNOWCAR_CONCAT(a, b) SNOWCAR_CONCAT_INNER(a, b)

// Returns the Status from the enclosing function when `expr` is not OK.
#define SNOWCAR_RETURN_IF_ERROR(expr)                  \
  do {                                                 \
    ::snowcar::Status snowcar_status_ = (expr);        \
    if (!snowcar_status_.ok()) return snowcar_status_; \
  } while (0)

// `lhs = value of expr` or returns its Status. lhs may declare a variable: `auto x`.
#define SNOWCAR_ASSIGN_OR_RETURN(lhs, expr) \
  SNOWCAR_ASSIGN_OR_RETURN_IMPL(SNOWCAR_CONCAT(snowcar_result_, __LINE__), lhs, expr)
// `tmp` is a generated name and `lhs` may be a declaration: neither can be parenthesised.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define SNOWCAR_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.ok()) return tmp.status();                 \
  lhs = std::move(tmp).value()
// NOLINTEND(bugprone-macro-parentheses)
