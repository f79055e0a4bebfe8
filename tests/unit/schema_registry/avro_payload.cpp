// SPDX-License-Identifier: Apache-2.0
#include "avro_payload.h"

#include <gtest/gtest.h>

#include <vector>

namespace snowcar::schema_registry::avro_test {

std::string AvroPayload(std::string_view schema, const std::function<void(avro_value_t&)>& fill) {
  avro_schema_t s = nullptr;
  if (avro_schema_from_json_length(schema.data(), schema.size(), &s) != 0) {
    ADD_FAILURE() << "bad test schema: " << avro_strerror();
    return "";
  }
  avro_value_iface_t* iface = avro_generic_class_from_schema(s);
  avro_value_t value;
  avro_generic_value_new(iface, &value);
  fill(value);
  std::vector<char> buffer(1 << 16);
  avro_writer_t writer = avro_writer_memory(buffer.data(), static_cast<int64_t>(buffer.size()));
  std::string out;
  if (avro_value_write(writer, &value) != 0) {
    ADD_FAILURE() << "avro_value_write: " << avro_strerror();
  } else {
    out.assign(buffer.data(), static_cast<size_t>(avro_writer_tell(writer)));
  }
  avro_writer_free(writer);
  avro_value_decref(&value);
  avro_value_iface_decref(iface);
  avro_schema_decref(s);
  return out;
}

}  // namespace snowcar::schema_registry::avro_test
