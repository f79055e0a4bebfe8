// SPDX-License-Identifier: Apache-2.0
#include "ordering_key.h"

#include <boost/json.hpp>

namespace snowcar::sink {

std::string OrderingKey(const kafka::InRecord& record, const SinkSettings& settings) {
  if (record.key && !record.key->empty()) return "k" + *record.key;
  if (settings.correlation_field.empty() || !record.value) return "";
  boost::system::error_code ec;
  const boost::json::value value = boost::json::parse(*record.value, ec);
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
