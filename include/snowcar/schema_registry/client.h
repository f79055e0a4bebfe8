// SPDX-License-Identifier: Apache-2.0
// The Schema Registry client: registers schemas and looks them up by id, over REST
// (Confluent's API: POST /subjects/{s}/versions, GET /schemas/ids/{id},
// POST /compatibility/subjects/{s}/versions/latest).
//
// Calls are synchronous and answered from a cache whenever possible: a (subject, schema)
// pair registered once, or an id looked up once, never goes to the registry again in this
// process. With a StateStore the cache is also persisted, so after a restart the first
// record is written or decoded without a registry round trip.
//
// Errors (what each leads to is the outcome table's: schema_registry/outcomes.h reads them as
// its rows, docs/outcomes.md shows the cells):
//   FailedPrecondition  the registry refused the schema as incompatible (HTTP 409); the
//                       message carries the registry's own words.
//   InvalidArgument     the registry refused the schema as invalid (HTTP 422) or the request
//                       (another 4xx), or the input was unusable.
//   NotFound            no schema with that id / no such subject (HTTP 404).
//   PermissionDenied    401/403: the credentials are wrong.
//   Unavailable /       the registry could not be reached or answered 5xx / 429 / 408 (or a
//   DeadlineExceeded    2xx that is not JSON) after every retry (servicenow::RetryPolicy).
// IsRegistryRefusal() tells the first group from transient failures.
//
// Thread safety: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "snowcar/common/status.h"
#include "snowcar/schema_registry/registry_options.h"

namespace snowcar::state {
class StateStore;
}

namespace snowcar::schema_registry {

enum class SchemaType { kAvro, kJson, kProtobuf };

// "AVRO" / "JSON" / "PROTOBUF", the registry's `schemaType` values.
std::string_view SchemaTypeName(SchemaType type);
// Accepts "AVRO", "JSON", "PROTOBUF" (any case); an absent schemaType means AVRO in the registry's
// API.
Result<SchemaType> ParseSchemaType(std::string_view text);

struct RegisteredSchema {
  int32_t id = 0;
  SchemaType type = SchemaType::kAvro;
  std::string schema;  // the schema text as the registry returned it
};

// True for the errors that mean the registry itself refused (409, 422, 404, 401/403): trying
// the same call again will not help.
bool IsRegistryRefusal(const Status& status);

class SchemaRegistryClient {
 public:
  // `store` (may be null) persists the id cache; it must outlive the client.
  static Result<std::unique_ptr<SchemaRegistryClient>> Create(const RegistryOptions& options,
                                                              state::StateStore* store = nullptr);
  virtual ~SchemaRegistryClient() = default;

  // Registers `schema` under `subject` and returns its id. Idempotent: when the same schema is
  // already registered under the subject, the registry answers with the existing id.
  virtual Result<int32_t> RegisterSchema(std::string_view subject, SchemaType type,
                                         std::string_view schema) = 0;

  // The schema registered with `id`.
  virtual Result<RegisteredSchema> SchemaById(int32_t id) = 0;

  // Whether `schema` could be registered as the next version of `subject` under the subject's
  // compatibility level. True for a subject that has no version yet.
  virtual Result<bool> IsCompatible(std::string_view subject, SchemaType type,
                                    std::string_view schema) = 0;
};

}  // namespace snowcar::schema_registry
