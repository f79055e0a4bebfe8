// SPDX-License-Identifier: Apache-2.0
#include "ordering_key.h"

#include <boost/json.hpp>

#include "snowcar/schema_registry/wire_format.h"

namespace snowcar::sink {
namespace {

// `part` as the lane will read it: decoded when it is framed and decodes, else as it came.
std::string_view Readable(const std::string& part, schema_registry::FramedDecoder* decoder,
                          std::string& decoded) {
  if (decoder == nullptr || !schema_registry::LooksFramed(part)) return part;
  auto json = decoder->ToJson(part);
  if (!json.ok()) return part;
  decoded = std::move(json).value();
  return decoded;
}

}  // namespace

std::string OrderingKey(const kafka::InRecord& record, const SinkSettings& settings,
                        schema_registry::FramedDecoder* decoder) {
  std::string decoded;
  if (record.key && !record.key->empty()) {
    return "k" + std::string(Readable(*record.key, decoder, decoded));
  }
  if (settings.correlation_field.empty() || !record.value) return "";
  boost::system::error_code ec;
  const boost::json::value value =
      boost::json::parse(Readable(*record.value, decoder, decoded), ec);
  if (ec || !value.is_object()) return "";
  const boost::json::value* field = value.as_object().if_contains(settings.correlation_field);
  if (field == nullptr) return "";
  if (field->is_string()) return "c" + std::string(field->as_string());
  if (field->is_int64() || field->is_uint64() || field->is_double()) {
    return "c" + boost::json::serialize(*field);
  }
  return "";
}

}  // namespace snowcar::sink
