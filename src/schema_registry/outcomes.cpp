// SPDX-License-Identifier: Apache-2.0
// The registry's verdicts and failure catalogue. See outcomes.h.
#include "snowcar/schema_registry/outcomes.h"

#include "answer_status.h"

namespace snowcar::schema_registry {
namespace {

using servicenow::FinalVerdict;

// The registry's error bodies, as Confluent's registry words them.
constexpr RegistryFailure kCatalogue[] = {
    {.name = "409 incompatible",
     .what = "the schema breaks the subject's compatibility level (a changed column type)",
     .http_status = 409,
     .body =
         R"({"error_code":409,"message":"Schema being registered is incompatible with an earlier schema for subject \"snow.incident-value\""})"},
    {.name = "422 invalid",
     .what = "the registry cannot parse the schema, or it names an unknown type",
     .http_status = 422,
     .body = R"({"error_code":42201,"message":"Invalid schema"})"},
    {.name = "409 Protobuf field number",
     .what = "a PROTOBUF schema gives a field number another type (value.format=protobuf: a "
             "column's type changed, or its number moved after state.dir was lost)",
     .http_status = 409,
     .body =
         R"({"error_code":409,"message":"Schema being registered is incompatible with an earlier schema for subject \"snow.incident-value\": field number 3 changed type"})"},
    {.name = "422 Protobuf refused",
     .what = "a registry without the Protobuf schema provider, or one that cannot resolve a "
             "PROTOBUF schema's import, refuses it",
     .http_status = 422,
     .body = R"({"error_code":42201,"message":"Invalid schema: unknown schema type PROTOBUF"})"},
    {.name = "404 unknown id or subject",
     .what = "no schema with that id (40403), no such subject (40401)",
     .http_status = 404,
     .body = R"({"error_code":40403,"message":"Schema 77 not found"})"},
    {.name = "400",
     .what = "any other refusal of the request",
     .http_status = 400,
     .body = R"({"error_code":400,"message":"Unrecognized field"})"},
    {.name = "401",
     .what = "the registry wants credentials, or refuses schema.registry.basic.auth.user.info",
     .http_status = 401,
     .body = R"({"error_code":401,"message":"Unauthorized"})"},
    {.name = "403",
     .what = "the credentials may not use the subject",
     .http_status = 403,
     .body = R"({"error_code":40301,"message":"User cannot access the resource"})"},
    {.name = "429",
     .what = "throttled, until the client's budget is out",
     .http_status = 429,
     .body = R"({"error_code":429,"message":"Too many requests"})"},
    {.name = "500",
     .what = "an internal error, until the client's budget is out",
     .http_status = 500,
     .body = R"({"error_code":50001,"message":"Error in the backend data store"})"},
    {.name = "503",
     .what = "unavailable (no leader, restarting), until the client's budget is out",
     .http_status = 503,
     .body =
         R"({"error_code":50003,"message":"Error while forwarding the request to the leader"})"},
    {.name = "2xx not JSON",
     .what = "a success whose body is cut short or not JSON (a proxy's page)",
     .http_status = 200,
     .body = "<html>"},
    {.name = "timeout",
     .what = "no answer within schema.registry.request.timeout.ms",
     .transport_error = "Operation timed out after 30000 milliseconds with 0 bytes received",
     .timed_out = true},
    {.name = "connection refused",
     .what = "nothing listens at schema.registry.url",
     .transport_error = "Failed to connect to registry port 8081: Connection refused"},
    {.name = "DNS failure",
     .what = "the registry's name does not resolve",
     .transport_error = "Could not resolve host: registry"},
    {.name = "TLS failure",
     .what = "the handshake fails or the registry's certificate does not verify",
     .transport_error = "SSL certificate problem: unable to get local issuer certificate"},
};

}  // namespace

FinalVerdict RegistryVerdictOf(const Status& status) {
  switch (status.code()) {
    case StatusCode::kOk:
      return FinalVerdict::kOk;
    case StatusCode::kUnavailable:
    case StatusCode::kDeadlineExceeded:
      return FinalVerdict::kTransient;
    case StatusCode::kFailedPrecondition:
      return FinalVerdict::kConflict;
    case StatusCode::kNotFound:
      return FinalVerdict::kNotFound;
    case StatusCode::kPermissionDenied:
      return FinalVerdict::kPermission;
    default:
      return FinalVerdict::kRefused;
  }
}

std::span<const RegistryFailure> RegistryFailureCatalogue() { return kCatalogue; }

RegistryFinal RegistryFinalOf(const RegistryFailure& failure) {
  HttpAnswer answer;
  answer.status = failure.http_status;
  answer.body = std::string(failure.body);
  answer.transport_error = std::string(failure.transport_error);
  answer.timed_out = failure.timed_out;
  AnswerReading reading = ReadAnswer(
      answer, "schema registry http://registry:8081: GET /schemas/ids/77", "schema id 77");
  RegistryFinal out;
  out.client_retries = reading.retry;
  out.status = reading.json.has_value() ? Status::Ok() : reading.failure;
  out.verdict = RegistryVerdictOf(out.status);
  return out;
}

std::vector<servicenow::RegistryMatrixRow> RegistryMatrixRows() {
  std::vector<servicenow::RegistryMatrixRow> rows;
  for (const RegistryFailure& f : kCatalogue) {
    const RegistryFinal final = RegistryFinalOf(f);
    rows.push_back({.name = std::string(f.name),
                    .what = std::string(f.what),
                    .client_retries = final.client_retries,
                    .verdict = final.verdict});
  }
  return rows;
}

std::string RenderOutcomesMarkdown() {
  return servicenow::RenderOutcomesMarkdown(RegistryMatrixRows());
}

}  // namespace snowcar::schema_registry
