// SPDX-License-Identifier: Apache-2.0
// The Protobuf message of a table's typed records (value.format=protobuf), made at run time:
// a FileDescriptorProto built from the fields, checked and rendered by libprotobuf's
// descriptor pool (protobuf/proto_schema.h); a record is written field by field with
// libprotobuf's WireFormatLite encoders (those protoc's generated code calls), numbers and
// types from the descriptor. Tests read the bytes back with libprotobuf's dynamic messages,
// protoc and python3-protobuf.
//
// The file is proto3, package `servicenow`, one message named after the table; every field is
// `optional` (proto3 explicit presence), so a null is an absent field and a reader tells it
// from a zero or an empty string. The kinds (the logical mapping of typed_record.h):
//
//   kind        .proto type                   value
//   kString     optional string               the text
//   kInt64      optional int64                the integer
//   kBool       optional bool
//   kDouble     optional double
//   kDecimal    optional string               the instance's digits (no double between)
//   kTimestamp  google.protobuf.Timestamp     ms since the epoch, as seconds and nanos
//   kDate       optional int32                days since the epoch (Avro's `date`)
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "snowcar/common/status.h"

namespace snowcar::protobuf {
class ProtoSchema;
}

namespace snowcar::source {

enum class ProtoKind { kString, kInt64, kBool, kDouble, kDecimal, kTimestamp, kDate };

struct ProtoFieldSpec {
  std::string name;
  int number = 0;  // > 0, unique; the caller keeps a number with its field for good
  ProtoKind kind = ProtoKind::kString;
};

class ProtobufRecord {
 public:
  // The message `package.message` (`package` may be empty) with `fields` in their order.
  // InvalidArgument with libprotobuf's reason when the descriptor does not build (a name that
  // is not an identifier, two fields whose JSON names clash, a number out of range).
  static Result<std::unique_ptr<ProtobufRecord>> Make(std::string_view package,
                                                      std::string_view message,
                                                      const std::vector<ProtoFieldSpec>& fields);
  ~ProtobufRecord();
  ProtobufRecord(const ProtobufRecord&) = delete;
  ProtobufRecord& operator=(const ProtobufRecord&) = delete;

  // The schema as .proto text (libprotobuf's rendering), as registered.
  const std::string& schema_text() const { return schema_text_; }

  // Starts a record: every field null (absent).
  void Clear();
  // Sets the field at `index` (of `fields` in Make) to a value of its kind; a field left unset
  // stays null. REQUIRES: the setter matches the field's kind (kDecimal takes SetString).
  void SetString(size_t index, std::string_view text);
  void SetInt64(size_t index, int64_t v);
  void SetInt32(size_t index, int32_t v);
  void SetBool(size_t index, bool v);
  void SetDouble(size_t index, double v);
  void SetTimestampMillis(size_t index, int64_t ms);
  // Appends the record's binary encoding to `out`.
  Status AppendTo(std::string& out) const;

 private:
  ProtobufRecord() = default;
  // `bytes` more at the end of the record, and where they start; Done gives back what the
  // write did not use.
  uint8_t* Room(size_t bytes);
  void Done(const uint8_t* end);

  std::shared_ptr<const protobuf::ProtoSchema> schema_;  // the descriptors the numbers are of
  std::string schema_text_;
  std::vector<int> numbers_;  // field numbers, by index
  int seconds_number_ = 0;    // google.protobuf.Timestamp's
  int nanos_number_ = 0;
  std::string buffer_;  // the record being written
};

// Keys under key.format=protobuf: the message `servicenow.RecordKey { string sys_id = 1; }`.
inline constexpr std::string_view kProtobufKeyMessage = "RecordKey";
// The key message's .proto text.
const std::string& ProtobufKeySchemaText();
// `sys_id` as a key message's binary encoding.
Result<std::string> ProtobufKey(std::string_view sys_id);

}  // namespace snowcar::source
