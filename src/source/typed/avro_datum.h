// SPDX-License-Identifier: Apache-2.0
// A thin owner of avro-c objects for one record schema: the parsed schema, one reusable
// generic value and a memory writer. Encoding goes through avro-c's binary encoder; nothing
// here writes Avro bytes by hand.
#pragma once

#include <avro.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "snowcar/common/status.h"

namespace snowcar::source {

class AvroDatum {
 public:
  // Parses `schema_json` (avro-c ignores logicalType annotations; the binary form is the
  // annotated type's). InvalidArgument with avro-c's message when it cannot.
  static Result<std::unique_ptr<AvroDatum>> Make(std::string_view schema_json);
  ~AvroDatum();
  AvroDatum(const AvroDatum&) = delete;
  AvroDatum& operator=(const AvroDatum&) = delete;

  // The field at `index` of the record: the union's null branch, or its second branch set to
  // a value. Each Set* selects the union's second branch first. The value is kept between
  // records: the caller sets every field for each record. Not clearing it is what lets a
  // field that stays non-null reuse its branch (and a string its buffer); avro-c frees and
  // allocates them again after a reset, and that cost about a fifth of the encoding.
  void SetNull(size_t index);
  void SetString(size_t index, std::string_view text);
  // As SetString, without the copy: text.data()[text.size()] must be a NUL (a view of a whole
  // std::string or boost::json::string).
  void SetTerminatedString(size_t index, std::string_view text);
  void SetLong(size_t index, int64_t v);
  void SetInt(size_t index, int32_t v);
  void SetBoolean(size_t index, bool v);
  void SetDouble(size_t index, double v);
  void SetBytes(size_t index, std::string_view bytes);
  // Appends the record's binary encoding to `out`.
  Status AppendTo(std::string& out);

 private:
  AvroDatum() = default;
  // The union field at `index` switched to its value branch.
  avro_value_t* Branch(size_t index);

  avro_schema_t schema_ = nullptr;
  avro_value_iface_t* iface_ = nullptr;
  avro_value_t value_{};
  bool value_ready_ = false;
  std::vector<avro_value_t> fields_;  // the record's fields, by index
  avro_value_t branch_{};
  std::string buffer_;  // the memory writer's space; grows when a record does not fit
  avro_writer_t writer_ = nullptr;
  std::string scratch_;  // SetString's terminated copy
};

// The Avro binary encoding of a lone string (a record key under key.format=avro).
Result<std::string> AvroString(std::string_view text);

}  // namespace snowcar::source
