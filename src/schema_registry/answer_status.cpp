// SPDX-License-Identifier: Apache-2.0
#include "answer_status.h"

#include <boost/json.hpp>
#include <string>

#include "snowcar/common/redact.h"

namespace snowcar::schema_registry {
namespace {

namespace json = boost::json;

// The registry's error body: {"error_code": 40401, "message": "Subject not found"}.
struct RegistryError {
  int64_t error_code = 0;
  std::string message;
};

RegistryError ParseError(const std::string& body) {
  RegistryError e;
  boost::system::error_code ec;
  json::value v = json::parse(body, ec);
  if (!ec && v.is_object()) {
    const auto& o = v.as_object();
    if (const auto* c = o.if_contains("error_code"); c && c->is_int64())
      e.error_code = c->as_int64();
    if (const auto* m = o.if_contains("message"); m && m->is_string()) {
      e.message = std::string(m->as_string());
    }
  }
  if (e.message.empty()) e.message = body.substr(0, 300);
  return e;
}

// A 4xx other than 408/429: the registry refused; no retry helps.
Status Refusal(std::string_view where, const HttpAnswer& answer, std::string_view what) {
  const RegistryError e = ParseError(answer.body);
  const std::string said =
      " answered " + std::to_string(answer.status) +
      (e.error_code != 0 ? " (error code " + std::to_string(e.error_code) + ")" : std::string()) +
      ": " + e.message;
  const std::string text = redact::Mask(std::string(where) + said);
  switch (answer.status) {
    case 409:
      return Status::FailedPrecondition("the schema for " + std::string(what) +
                                        " is incompatible with the registered versions; " + text);
    case 422:
      return Status::InvalidArgument("the registry refused the schema for " + std::string(what) +
                                     " as invalid; " + text);
    case 404:
      return Status::NotFound(text);
    case 401:
    case 403:
      return Status::PermissionDenied(text + " (check schema.registry.basic.auth.user.info)");
    default:
      return Status::InvalidArgument(text);
  }
}

}  // namespace

AnswerReading ReadAnswer(const HttpAnswer& answer, std::string_view where, std::string_view what) {
  AnswerReading r;
  const std::string at(where);
  if (answer.status >= 200 && answer.status < 300) {
    boost::system::error_code ec;
    json::value v = json::parse(answer.body, ec);
    if (!ec) {
      r.json = std::move(v);
      return r;
    }
    r.failure = Status::Unavailable(at + " answered " + std::to_string(answer.status) +
                                    " with a body that is not JSON");
    r.retry = true;
  } else if (answer.status == 0) {
    r.failure = answer.timed_out
                    ? Status::DeadlineExceeded(at + " timed out: " + answer.transport_error)
                    : Status::Unavailable(at + " failed: " + answer.transport_error);
    r.retry = true;
  } else if (answer.status >= 500 || answer.status == 429 || answer.status == 408) {
    const RegistryError e = ParseError(answer.body);
    r.failure =
        Status::Unavailable(at + " answered " + std::to_string(answer.status) + ": " + e.message);
    r.retry = true;
  } else {
    r.failure = Refusal(at, answer, what);
  }
  return r;
}

}  // namespace snowcar::schema_registry
