// SPDX-License-Identifier: Apache-2.0
// Record formats and the Schema Registry: `value.format`, `key.format` and the
// `schema.registry.*` keys. The Kafka Connect converter keys (`value.converter`, ...) are
// declared in option_table.cpp and rewritten onto these by converter_keys.cpp.
#include "option_table_parts.h"

namespace snowcar::config {
namespace {

// key/value.subject.name.strategy: snowcar's short names or Confluent's class names.
std::string CheckSubjectStrategy(std::string_view value) {
  constexpr std::string_view kPackage = "io.confluent.kafka.serializers.subject.";
  for (std::string_view name : {"topic_name", "record_name", "topic_record_name"}) {
    if (value == name) return "";
  }
  for (std::string_view cls :
       {"TopicNameStrategy", "RecordNameStrategy", "TopicRecordNameStrategy"}) {
    if (value == cls || (value.starts_with(kPackage) && value.substr(kPackage.size()) == cls)) {
      return "";
    }
  }
  return "must be topic_name, record_name or topic_record_name (or Confluent's class name, "
         "io.confluent.kafka.serializers.subject.TopicNameStrategy, ...)";
}

}  // namespace

void AppendRegistryOptions(std::vector<OptionSpec>& table) {
  using T = OptionType;
  const std::vector<OptionSpec> keys = {
      {.name = "value.format",
       .type = T::kEnum,
       .default_value = "json",
       .allowed = {"json", "json_typed", "avro", "json_schema", "protobuf"},
       .group = kFormats,
       .doc = "How record values are written (source) and read (sink). `json`: the JSON object "
              "of today, every value a string. `json_typed`: JSON whose values carry the "
              "column's type. `avro`, `json_schema` and `protobuf`: Confluent's wire format (a 0 "
              "byte, the 4-byte schema id, then Avro binary, JSON text, or a message-index byte "
              "and Protobuf binary) with the schema registered in `schema.registry.url` "
              "(`protobuf`: the message `servicenow.<table>` as proto3 text, docs/source.md). The "
              "sink reads a framed command whatever this says, "
              "since the 0 byte tells it apart from JSON. Set from `value.converter` when a "
              "Kafka Connect file gives one."},
      {.name = "key.format",
       .type = T::kEnum,
       .default_value = "string",
       .allowed = {"string", "json", "json_typed", "avro", "json_schema", "protobuf"},
       .group = kFormats,
       .doc = "How record keys are written: `string` is the plain sys_id of today; the other "
              "values as for `value.format`. Set from `key.converter` when a Kafka Connect "
              "file gives one."},
      {.name = "schema.registry.url",
       .type = T::kString,
       .group = kFormats,
       .doc = "Base URL of the Schema Registry (`http://` or `https://`). Needed by the "
              "`avro`, `json_schema` and `protobuf` formats and by a sink that receives framed "
              "commands. "
              "A comma-separated list is accepted as Confluent's clients do; the first entry is "
              "used."},
      {.name = "schema.registry.basic.auth.credentials.source",
       .type = T::kEnum,
       .default_value = "USER_INFO",
       .allowed = {"USER_INFO", "URL"},
       .group = kFormats,
       .doc = "Where the registry's basic-auth credentials come from: "
              "`schema.registry.basic.auth.user.info`, or the `user:password@` part of "
              "`schema.registry.url`. No credentials are sent when the chosen source is empty."},
      {.name = "schema.registry.basic.auth.user.info",
       .type = T::kPassword,
       .group = kFormats,
       .doc = "`user:password` for the registry's basic auth (Confluent Cloud: API key and "
              "secret)."},
      {.name = "schema.registry.ssl.ca.location",
       .group = kFormats,
       .doc = "CA bundle (PEM) to verify the registry's certificate; empty: the system's."},
      {.name = "schema.registry.ssl.certificate.location",
       .group = kFormats,
       .doc = "Client certificate (PEM, or PKCS#12 when it ends in .p12/.pfx) for mutual TLS."},
      {.name = "schema.registry.ssl.key.location",
       .group = kFormats,
       .doc = "Private key of the client certificate (PEM)."},
      {.name = "schema.registry.ssl.key.password",
       .type = T::kPassword,
       .group = kFormats,
       .doc = "Password of `schema.registry.ssl.key.location`."},
      {.name = "schema.registry.ssl.endpoint.identification.algorithm",
       .type = T::kEnum,
       .default_value = "https",
       .allowed = {"https", "none"},
       .group = kFormats,
       .doc = "`none` turns certificate verification off (tests only)."},
      {.name = "schema.registry.connect.timeout.ms",
       .type = T::kInt,
       .default_value = "10000",
       .min = 100,
       .max = 600000,
       .group = kFormats,
       .doc = "Time allowed to connect to the registry, per attempt."},
      {.name = "schema.registry.request.timeout.ms",
       .type = T::kInt,
       .default_value = "30000",
       .min = 100,
       .max = 600000,
       .group = kFormats,
       .doc = "Time allowed for one registry request, per attempt."},
      {.name = "schema.registry.retry.max.attempts",
       .type = T::kInt,
       .default_value = "5",
       .min = 1,
       .max = 1000,
       .group = kFormats,
       .doc = "Attempts per registry call (5xx, 429, timeouts, refused connections), the first "
              "included. The backoff follows `snow.retry.*`'s rule: full jitter, doubling from "
              "`schema.registry.retry.initial.backoff.ms` up to "
              "`schema.registry.retry.max.backoff.ms`."},
      {.name = "schema.registry.retry.max.elapsed.ms",
       .type = T::kInt,
       .default_value = "60000",
       .min = 0,
       .max = kDayMs,
       .group = kFormats,
       .doc = "No retry starts after this long since the call's first attempt."},
      {.name = "schema.registry.retry.initial.backoff.ms",
       .type = T::kInt,
       .default_value = "200",
       .min = 1,
       .max = kDayMs,
       .group = kFormats,
       .doc = "Backoff ceiling after the first failed attempt."},
      {.name = "schema.registry.retry.max.backoff.ms",
       .type = T::kInt,
       .default_value = "10000",
       .min = 1,
       .max = kDayMs,
       .group = kFormats,
       .doc = "Largest backoff between two attempts."},
      {.name = "value.subject.name.strategy",
       .default_value = "topic_name",
       .check = &CheckSubjectStrategy,
       .group = kFormats,
       .doc = "Subject a value schema is registered under: `topic_name` (`<topic>-value`), "
              "`record_name` (the record's full name) or `topic_record_name` "
              "(`<topic>-<record full name>`). Confluent's class names are accepted too."},
      {.name = "key.subject.name.strategy",
       .default_value = "topic_name",
       .check = &CheckSubjectStrategy,
       .group = kFormats,
       .doc = "As `value.subject.name.strategy`, for key schemas (`<topic>-key`)."},
  };
  table.insert(table.end(), keys.begin(), keys.end());
}

}  // namespace snowcar::config
