// SPDX-License-Identifier: Apache-2.0
#include "protobuf_record.h"

#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/message.h>

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
  r->message_ = schema->NewMessage(type);
  for (int i = 0; i < type->field_count(); ++i) r->fields_.push_back(type->field(i));
  const gp::Descriptor* ts =
      schema->file()->pool()->FindMessageTypeByName("google.protobuf.Timestamp");
  if (ts != nullptr) {
    r->seconds_ = ts->FindFieldByName("seconds");
    r->nanos_ = ts->FindFieldByName("nanos");
  }
  r->schema_text_ = schema->Text();
  r->schema_ = std::move(schema);
  return r;
}

ProtobufRecord::~ProtobufRecord() = default;

void ProtobufRecord::Clear() { message_->Clear(); }

void ProtobufRecord::SetString(size_t index, std::string_view text) {
  message_->GetReflection()->SetString(message_.get(), fields_[index], std::string(text));
}
void ProtobufRecord::SetInt64(size_t index, int64_t v) {
  message_->GetReflection()->SetInt64(message_.get(), fields_[index], v);
}
void ProtobufRecord::SetInt32(size_t index, int32_t v) {
  message_->GetReflection()->SetInt32(message_.get(), fields_[index], v);
}
void ProtobufRecord::SetBool(size_t index, bool v) {
  message_->GetReflection()->SetBool(message_.get(), fields_[index], v);
}
void ProtobufRecord::SetDouble(size_t index, double v) {
  message_->GetReflection()->SetDouble(message_.get(), fields_[index], v);
}

void ProtobufRecord::SetTimestampMillis(size_t index, int64_t ms) {
  gp::Message* ts = message_->GetReflection()->MutableMessage(message_.get(), fields_[index]);
  // Timestamp's nanos are never negative: an instant before the epoch is the earlier second
  // plus a positive fraction.
  int64_t seconds = ms / 1000;
  int64_t millis = ms % 1000;
  if (millis < 0) {
    seconds -= 1;
    millis += 1000;
  }
  const gp::Reflection* r = ts->GetReflection();
  r->SetInt64(ts, seconds_, seconds);
  r->SetInt32(ts, nanos_, static_cast<int32_t>(millis * 1000000));
}

Status ProtobufRecord::AppendTo(std::string& out) const {
  if (!message_->AppendToString(&out)) {
    return Status::Internal("libprotobuf could not serialize the " +
                            message_->GetDescriptor()->full_name() + " record");
  }
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
