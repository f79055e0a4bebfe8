// SPDX-License-Identifier: Apache-2.0
// The one table from (libcurl code, HTTP status, body) to (class, retry?). Every rule is
// written out in docs/servicenow-client.md; change both together.
#include "snowcar/servicenow/classify.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <string>

#include "snowcar/common/redact.h"

namespace snowcar::servicenow {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool Contains(std::string_view haystack_lower, std::string_view needle) {
  return haystack_lower.find(needle) != std::string_view::npos;
}

// Methods whose repetition cannot do harm twice.
bool SafeToResend(Method m) {
  return m == Method::kGet || m == Method::kPatch || m == Method::kPut;
}

std::string InstanceMessage(const AttemptFacts& f) {
  if (f.parsed == nullptr || f.parsed->error_message.empty()) return {};
  std::string text = f.parsed->error_message;
  if (!f.parsed->error_detail.empty() && f.parsed->error_detail != f.parsed->error_message) {
    text += ": " + f.parsed->error_detail;
  }
  return redact::Mask(text);
}

std::string StatusText(const AttemptFacts& f) {
  std::string msg = InstanceMessage(f);
  std::string head = "HTTP " + std::to_string(f.http_status);
  return msg.empty() ? head : head + ": " + msg;
}

// Transport failures that happen before the request can have reached the instance only if
// curl says nothing was sent; these codes are about the connection or the client's setup.
bool IsSetupError(int code) {
  switch (code) {
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_LOGIN_DENIED:
    case CURLE_BAD_FUNCTION_ARGUMENT:
    case CURLE_NOT_BUILT_IN:
    case CURLE_TOO_MANY_REDIRECTS:
      return true;
    default:
      return false;
  }
}

Verdict TransportVerdict(const AttemptFacts& f) {
  Verdict v;
  const std::string what = redact::Mask(curl_easy_strerror(static_cast<CURLcode>(f.curl_code)));
  if (IsSetupError(f.curl_code)) {
    v.klass = OutcomeClass::kPermanent;
    v.instance_unreachable = true;  // certificate, TLS or URL: every request fails alike
    v.message = "cannot talk to the instance: " + what;
    return v;
  }
  if (f.curl_code == CURLE_OUT_OF_MEMORY && !f.request_sent) {
    // This process ran short, not the instance nor the request: try again. Once sent, it is
    // a lost answer like any other (below).
    v.klass = OutcomeClass::kRetryable;
    v.retry = true;
    v.message = "request not sent: " + what;
    return v;
  }
  if (!f.request_sent) {
    // Refused, unresolvable, timed out while connecting: the instance never saw it.
    v.klass = OutcomeClass::kRetryable;
    v.retry = true;
    v.instance_unreachable = true;
    v.message = "request not sent: " + what;
    return v;
  }
  // Sent, then the answer was lost or cut short.
  if (f.method == Method::kGet) {
    v.klass = OutcomeClass::kRetryable;
    v.retry = true;
    v.message = "answer lost or cut short: " + what;
    return v;
  }
  v.klass = OutcomeClass::kAmbiguous;
  v.retry = SafeToResend(f.method);
  v.message =
      "request sent but its answer was lost (" + what + "); it may or may not have been applied";
  return v;
}

// A 2xx whose body cannot be trusted.
Verdict BadBodyVerdict(const AttemptFacts& f, std::string why) {
  Verdict v;
  if (f.method == Method::kGet) {
    v.klass = OutcomeClass::kRetryable;
  } else {
    v.klass = OutcomeClass::kAmbiguous;  // the write ran; its answer is unreadable
  }
  v.retry = SafeToResend(f.method);
  v.message = "HTTP " + std::to_string(f.http_status) + " " + std::move(why);
  return v;
}

}  // namespace

std::string_view OutcomeClassName(OutcomeClass klass) {
  switch (klass) {
    case OutcomeClass::kOk:
      return "OK";
    case OutcomeClass::kRetryable:
      return "RETRYABLE";
    case OutcomeClass::kPermanent:
      return "PERMANENT";
    case OutcomeClass::kAmbiguous:
      return "AMBIGUOUS";
    case OutcomeClass::kUnauthorized:
      return "UNAUTHORIZED";
    case OutcomeClass::kNotFound:
      return "NOT_FOUND";
    case OutcomeClass::kPermission:
      return "PERMISSION";
    case OutcomeClass::kConflict:
      return "CONFLICT";
  }
  return "?";
}

StatusCode StatusCodeFor(OutcomeClass klass) {
  switch (klass) {
    case OutcomeClass::kOk:
      return StatusCode::kOk;
    case OutcomeClass::kRetryable:
      return StatusCode::kUnavailable;
    case OutcomeClass::kPermanent:
      return StatusCode::kInvalidArgument;
    // Not "retriable": whether to resend a create or delete is the caller's policy.
    case OutcomeClass::kAmbiguous:
      return StatusCode::kFailedPrecondition;
    case OutcomeClass::kUnauthorized:
      return StatusCode::kPermissionDenied;
    case OutcomeClass::kNotFound:
      return StatusCode::kNotFound;
    case OutcomeClass::kPermission:
      return StatusCode::kPermissionDenied;
    case OutcomeClass::kConflict:
      return StatusCode::kFailedPrecondition;
  }
  return StatusCode::kInternal;
}

Verdict Classify(const AttemptFacts& f) {
  Verdict v;
  if (f.too_large) {
    v.klass = OutcomeClass::kPermanent;
    v.message =
        "the answer is larger than snow.http.max.response.bytes; lower the page size or raise "
        "the limit";
    return v;
  }
  if (f.curl_code != CURLE_OK) return TransportVerdict(f);

  const int s = f.http_status;
  const BodyKind kind = f.parsed != nullptr ? f.parsed->kind : BodyKind::kEmpty;

  if (s >= 200 && s < 300) {
    // 202 Accepted is no confirmation that the request ran: an instance answers it when the
    // requests of one session queue up deep, and may run the request later or never. A
    // write is therefore a lost answer (the decision table holds PATCH/PUT, a create follows
    // its ambiguity policy, a DELETE is sent again); a read is tried again.
    if (s == 202) {
      return BadBodyVerdict(f, "Accepted: the instance queued the request and did not say it ran");
    }
    switch (kind) {
      case BodyKind::kFailedList:
        return BadBodyVerdict(
            f, "carried an error next to a partial result (" + InstanceMessage(f) + ")");
      case BodyKind::kMalformed: {
        std::string why = "body unreadable: " + f.parsed->malformed_reason;
        if (!f.parsed->error_message.empty()) why += "; it mentions: " + InstanceMessage(f);
        return BadBodyVerdict(f, std::move(why));
      }
      case BodyKind::kError:
        v.klass = OutcomeClass::kPermanent;
        v.message = StatusText(f);
        return v;
      case BodyKind::kEmpty:
        if (f.method == Method::kGet) return BadBodyVerdict(f, "with an empty body");
        return v;  // DELETE 204, or a write answered without a body
      default:
        return v;  // OK
    }
  }

  v.message = StatusText(f);
  switch (s) {
    case 401:
      v.klass = OutcomeClass::kUnauthorized;
      v.reauthenticate = true;
      v.instance_unreachable = true;  // the credentials fail for every request
      return v;
    case 403:
      v.klass = OutcomeClass::kPermission;
      return v;
    case 404:
      if (f.list_request && f.method == Method::kGet &&
          Contains(Lower(f.parsed ? f.parsed->error_message : ""), "no record")) {
        // The v1 list path's way of saying "no rows".
        v.klass = OutcomeClass::kOk;
        v.empty_list = true;
        v.message.clear();
        return v;
      }
      v.klass = OutcomeClass::kNotFound;
      return v;
    case 409: {
      std::string text = Lower(InstanceMessage(f));
      if (Contains(text, "lock") || Contains(text, "busy") || Contains(text, "try again")) {
        v.klass = OutcomeClass::kRetryable;
        v.retry = true;
      } else {
        v.klass = OutcomeClass::kConflict;
      }
      return v;
    }
    case 429:
      v.klass = OutcomeClass::kRetryable;
      v.retry = true;
      v.throttled = true;
      return v;
    case 408:
    case 425:
    case 500:
    case 503:
      v.klass = OutcomeClass::kRetryable;
      v.retry = true;
      return v;
    case 502:
    case 504:
      // A gateway answered: the instance behind it may have run the request. Harmless to
      // resend a read or an idempotent write; a create or delete is the caller's call.
      if (SafeToResend(f.method)) {
        v.klass = OutcomeClass::kRetryable;
        v.retry = true;
      } else {
        v.klass = OutcomeClass::kAmbiguous;
      }
      return v;
    case 501:
      v.klass = OutcomeClass::kPermanent;
      return v;
    default:
      break;
  }
  if (s >= 500) {
    v.klass = OutcomeClass::kRetryable;
    v.retry = true;
    return v;
  }
  if (s >= 300 && s < 400) {
    v.klass = OutcomeClass::kPermanent;
    v.message = "HTTP " + std::to_string(s) + ": redirects are not followed (check snow.url)";
    return v;
  }
  v.klass = OutcomeClass::kPermanent;  // 400, 422 and every other answer
  return v;
}

}  // namespace snowcar::servicenow
