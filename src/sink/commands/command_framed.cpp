// SPDX-License-Identifier: Apache-2.0
#include "command_framed.h"

#include "snowcar/schema_registry/wire_format.h"

namespace snowcar::sink {
namespace {

// Decodes one part in place; `what` is "key" or "value" for messages.
Status DecodePart(std::optional<std::string>& part, std::string_view what,
                  schema_registry::FramedDecoder* decoder) {
  if (decoder == nullptr) {
    auto u = schema_registry::Unframe(*part);
    return Status::InvalidArgument("the record " + std::string(what) +
                                   " is in Confluent's wire format (magic byte 0, schema id " +
                                   (u.ok() ? std::to_string(u->schema_id) : std::string("?")) +
                                   "), and no schema.registry.url is configured to decode it");
  }
  auto json = decoder->ToJson(*part);
  if (!json.ok()) return json.status().WithContext("the record " + std::string(what));
  part = std::move(json).value();
  return Status::Ok();
}

}  // namespace

Result<std::optional<kafka::InRecord>> DecodeFramedParts(const kafka::InRecord& record,
                                                         schema_registry::FramedDecoder* decoder) {
  const bool key_framed = record.key.has_value() && schema_registry::LooksFramed(*record.key);
  const bool value_framed = record.value.has_value() && schema_registry::LooksFramed(*record.value);
  if (!key_framed && !value_framed) return std::optional<kafka::InRecord>{};
  kafka::InRecord decoded = record;
  if (value_framed) SNOWCAR_RETURN_IF_ERROR(DecodePart(decoded.value, "value", decoder));
  if (key_framed) SNOWCAR_RETURN_IF_ERROR(DecodePart(decoded.key, "key", decoder));
  return std::optional<kafka::InRecord>(std::move(decoded));
}

}  // namespace snowcar::sink
