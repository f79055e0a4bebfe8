// SPDX-License-Identifier: Apache-2.0
#include "avro_datum.h"

namespace snowcar::source {
namespace {

std::string AvroError(std::string_view what) {
  std::string m(what);
  m += ": ";
  m += avro_strerror();
  return m;
}

}  // namespace

Result<std::unique_ptr<AvroDatum>> AvroDatum::Make(std::string_view schema_json) {
  std::unique_ptr<AvroDatum> d(new AvroDatum());
  if (avro_schema_from_json_length(schema_json.data(), schema_json.size(), &d->schema_) != 0) {
    return Status::InvalidArgument(AvroError("the Avro schema is refused"));
  }
  d->iface_ = avro_generic_class_from_schema(d->schema_);
  if (d->iface_ == nullptr || avro_generic_value_new(d->iface_, &d->value_) != 0) {
    return Status::Internal(AvroError("avro-c could not build a value for the schema"));
  }
  d->value_ready_ = true;
  d->buffer_.resize(64 * 1024);
  d->writer_ = avro_writer_memory(d->buffer_.data(), static_cast<int64_t>(d->buffer_.size()));
  return d;
}

AvroDatum::~AvroDatum() {
  if (writer_ != nullptr) avro_writer_free(writer_);
  if (value_ready_) avro_value_decref(&value_);
  if (iface_ != nullptr) avro_value_iface_decref(iface_);
  if (schema_ != nullptr) avro_schema_decref(schema_);
}

void AvroDatum::Reset() { avro_value_reset(&value_); }

avro_value_t* AvroDatum::Branch(size_t index) {
  avro_value_t field;
  avro_value_get_by_index(&value_, index, &field, nullptr);
  avro_value_set_branch(&field, 1, &branch_);
  return &branch_;
}

void AvroDatum::SetNull(size_t index) {
  avro_value_t field;
  avro_value_t null_branch;
  avro_value_get_by_index(&value_, index, &field, nullptr);
  avro_value_set_branch(&field, 0, &null_branch);
  avro_value_set_null(&null_branch);
}

void AvroDatum::SetString(size_t index, std::string_view text) {
  // set_string_len copies `size` bytes, a terminating NUL included: a view need not have
  // one, so the text goes through a reused, terminated scratch string.
  avro_value_t* b = Branch(index);
  scratch_.assign(text);
  avro_value_set_string_len(b, scratch_.c_str(), scratch_.size() + 1);
}

void AvroDatum::SetLong(size_t index, int64_t v) { avro_value_set_long(Branch(index), v); }
void AvroDatum::SetInt(size_t index, int32_t v) { avro_value_set_int(Branch(index), v); }
void AvroDatum::SetBoolean(size_t index, bool v) { avro_value_set_boolean(Branch(index), v); }
void AvroDatum::SetDouble(size_t index, double v) { avro_value_set_double(Branch(index), v); }

void AvroDatum::SetBytes(size_t index, std::string_view bytes) {
  avro_value_set_bytes(Branch(index), const_cast<char*>(bytes.data()), bytes.size());
}

Status AvroDatum::AppendTo(std::string& out) {
  size_t size = 0;
  if (avro_value_sizeof(&value_, &size) != 0) {
    return Status::Internal(AvroError("avro-c could not size the record"));
  }
  if (size > buffer_.size()) {
    avro_writer_free(writer_);
    buffer_.resize(size * 2);
    writer_ = avro_writer_memory(buffer_.data(), static_cast<int64_t>(buffer_.size()));
  }
  avro_writer_reset(writer_);
  if (avro_value_write(writer_, &value_) != 0) {
    return Status::Internal(AvroError("avro-c could not encode the record"));
  }
  out.append(buffer_.data(), static_cast<size_t>(avro_writer_tell(writer_)));
  return Status::Ok();
}

Result<std::string> AvroString(std::string_view text) {
  avro_schema_t schema = avro_schema_string();
  avro_value_iface_t* iface = avro_generic_class_from_schema(schema);
  avro_value_t value;
  std::string out;
  if (iface == nullptr || avro_generic_value_new(iface, &value) != 0) {
    if (iface != nullptr) avro_value_iface_decref(iface);
    avro_schema_decref(schema);
    return Status::Internal(AvroError("avro-c could not build a string value"));
  }
  std::string copy(text);
  avro_value_set_string_len(&value, copy.c_str(), copy.size() + 1);
  std::string buffer(copy.size() + 16, '\0');
  avro_writer_t writer = avro_writer_memory(buffer.data(), static_cast<int64_t>(buffer.size()));
  const int rc = avro_value_write(writer, &value);
  if (rc == 0) out.assign(buffer.data(), static_cast<size_t>(avro_writer_tell(writer)));
  avro_writer_free(writer);
  avro_value_decref(&value);
  avro_value_iface_decref(iface);
  avro_schema_decref(schema);
  if (rc != 0) return Status::Internal(AvroError("avro-c could not encode a string"));
  return out;
}

}  // namespace snowcar::source
