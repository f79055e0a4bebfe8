// SPDX-License-Identifier: Apache-2.0
#include "protobuf_record.h"

#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/timestamp.pb.h>
#include <google/protobuf/wire_format_lite.h>

#include <cstring>

#include "snowcar/protobuf/proto_schema.h"

namespace snowcar::source {
namespace {

namespace gp = google::protobuf;
using FDP = gp::FieldDescriptorProto;

constexpr std::string_view kTimestampFile = "google/protobuf/timestamp.proto";

void Describe(const ProtoFieldSpec& spec, gp::DescriptorProto& message) {
  FDP* f = message.add_field();
  f->set_name(spec.name);
  f->set_number(spec.number);
  f->set_label(FDP::LABEL_OPTIONAL);
  switch (spec.kind) {
    case ProtoKind::kString:
    case ProtoKind::kDecimal:
      f->set_type(FDP::TYPE_STRING);
      break;
    case ProtoKind::kInt64:
      f->set_type(FDP::TYPE_INT64);
      break;
    case ProtoKind::kBool:
      f->set_type(FDP::TYPE_BOOL);
      break;
    case ProtoKind::kDouble:
      f->set_type(FDP::TYPE_DOUBLE);
      break;
    case ProtoKind::kDate:
      f->set_type(FDP::TYPE_INT32);
      break;
    case ProtoKind::kTimestamp:
      // A message field has presence of its own: no `optional` needed.
      f->set_type(FDP::TYPE_MESSAGE);
      f->set_type_name(".google.protobuf.Timestamp");
      return;
  }
  // proto3 `optional`: the field alone in a synthetic oneof named _<field>, as protoc
  // describes it.
  f->set_proto3_optional(true);
  f->set_oneof_index(message.oneof_decl_size());
  message.add_oneof_decl()->set_name("_" + spec.name);
}

}  // namespace

Result<std::unique_ptr<ProtobufRecord>> ProtobufRecord::Make(
    std::string_view package, std::string_view message, const std::vector<ProtoFieldSpec>& fields) {
  gp::FileDescriptorProto file;
  file.set_name(std::string(package) + "/" + std::string(message) + ".proto");
  file.set_syntax("proto3");
  if (!package.empty()) file.set_package(std::string(package));
  gp::DescriptorProto* m = file.add_message_type();
  m->set_name(std::string(message));
  bool timestamps = false;
  for (const ProtoFieldSpec& spec : fields) {
    Describe(spec, *m);
    timestamps = timestamps || spec.kind == ProtoKind::kTimestamp;
  }
  if (timestamps) file.add_dependency(std::string(kTimestampFile));
  SNOWCAR_ASSIGN_OR_RETURN(std::shared_ptr<const protobuf::ProtoSchema> schema,
                           protobuf::ProtoSchema::Build(file));
  std::unique_ptr<ProtobufRecord> r(new ProtobufRecord());
  const gp::Descriptor* type = schema->file()->message_type(0);
  for (int i = 0; i < type->field_count(); ++i) r->numbers_.push_back(type->field(i)->number());
  const gp::Descriptor* ts = gp::Timestamp::descriptor();
  r->seconds_number_ = ts->FindFieldByName("seconds")->number();
  r->nanos_number_ = ts->FindFieldByName("nanos")->number();
  r->schema_text_ = schema->Text();
  r->schema_ = std::move(schema);
  return r;
}

ProtobufRecord::~ProtobufRecord() = default;

// Each setter appends the field, tag and value, with the encoder functions of libprotobuf's
// WireFormatLite (what protoc's generated code calls). A field is written at most once per
// record and only when it is set, which is the message's encoding with the unset fields
// absent; the descriptor's number and type say what to write. Filling the dynamic message
// through reflection and serialising it cost 2.3 times the JSON path per row
// (docs/performance.md); these writes cost what generated code would.
namespace {

using WFL = gp::internal::WireFormatLite;

// Room for a tag (5 bytes at most), a varint (10) and, for strings, their bytes.
constexpr size_t kFieldHead = 15;

}  // namespace

uint8_t* ProtobufRecord::Room(size_t bytes) {
  const size_t used = buffer_.size();
  buffer_.resize(used + bytes);
  return reinterpret_cast<uint8_t*>(buffer_.data()) + used;
}

void ProtobufRecord::Done(const uint8_t* end) {
  buffer_.resize(static_cast<size_t>(end - reinterpret_cast<const uint8_t*>(buffer_.data())));
}

void ProtobufRecord::Clear() { buffer_.clear(); }

void ProtobufRecord::SetString(size_t index, std::string_view text) {
  uint8_t* p = Room(kFieldHead + text.size());
  p = WFL::WriteTagToArray(numbers_[index], WFL::WIRETYPE_LENGTH_DELIMITED, p);
  p = gp::io::CodedOutputStream::WriteVarint32ToArray(static_cast<uint32_t>(text.size()), p);
  if (!text.empty()) std::memcpy(p, text.data(), text.size());
  Done(p + text.size());
}
void ProtobufRecord::SetInt64(size_t index, int64_t v) {
  Done(WFL::WriteInt64ToArray(numbers_[index], v, Room(kFieldHead)));
}
void ProtobufRecord::SetInt32(size_t index, int32_t v) {
  Done(WFL::WriteInt32ToArray(numbers_[index], v, Room(kFieldHead)));
}
void ProtobufRecord::SetBool(size_t index, bool v) {
  Done(WFL::WriteBoolToArray(numbers_[index], v, Room(kFieldHead)));
}
void ProtobufRecord::SetDouble(size_t index, double v) {
  Done(WFL::WriteDoubleToArray(numbers_[index], v, Room(kFieldHead)));
}

void ProtobufRecord::SetTimestampMillis(size_t index, int64_t ms) {
  // Timestamp's nanos are never negative: an instant before the epoch is the earlier second
  // plus a positive fraction. A zero is left out, as proto3 writes its defaults.
  int64_t seconds = ms / 1000;
  int64_t millis = ms % 1000;
  if (millis < 0) {
    seconds -= 1;
    millis += 1000;
  }
  const auto nanos = static_cast<int32_t>(millis * 1000000);
  const size_t size = (seconds != 0 ? 1 + WFL::Int64Size(seconds) : 0) +
                      (nanos != 0 ? 1 + WFL::Int32Size(nanos) : 0);
  uint8_t* p = Room(2 * kFieldHead + size);
  p = WFL::WriteTagToArray(numbers_[index], WFL::WIRETYPE_LENGTH_DELIMITED, p);
  p = gp::io::CodedOutputStream::WriteVarint32ToArray(static_cast<uint32_t>(size), p);
  if (seconds != 0) p = WFL::WriteInt64ToArray(seconds_number_, seconds, p);
  if (nanos != 0) p = WFL::WriteInt32ToArray(nanos_number_, nanos, p);
  Done(p);
}

Status ProtobufRecord::AppendTo(std::string& out) const {
  out.append(buffer_);
  return Status::Ok();
}

namespace {

ProtobufRecord& KeyRecord() {
  // One per thread: a record is reused between keys and is not thread-safe. The key message
  // is fixed, so building it cannot fail.
  thread_local std::unique_ptr<ProtobufRecord> record = [] {
    auto made = ProtobufRecord::Make("servicenow", kProtobufKeyMessage,
                                     {ProtoFieldSpec{"sys_id", 1, ProtoKind::kString}});
    if (!made.ok()) std::abort();
    return std::move(made).value();
  }();
  return *record;
}

}  // namespace

const std::string& ProtobufKeySchemaText() { return KeyRecord().schema_text(); }

Result<std::string> ProtobufKey(std::string_view sys_id) {
  ProtobufRecord& r = KeyRecord();
  r.Clear();
  r.SetString(0, sys_id);
  std::string out;
  SNOWCAR_RETURN_IF_ERROR(r.AppendTo(out));
  return out;
}

}  // namespace snowcar::source
