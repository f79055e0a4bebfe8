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
  // The record's fields live inside the record's own memory, so their handles stay valid
  // for the datum's life: looked up once here, not once per field and row.
  size_t count = 0;
  avro_value_get_size(&d->value_, &count);
  d->fields_.resize(count);
  for (size_t i = 0; i < count; ++i) {
    if (avro_value_get_by_index(&d->value_, i, &d->fields_[i], nullptr) != 0) {
      return Status::Internal(AvroError("avro-c could not reach a field of the record"));
    }
  }
  d->buffer_.resize(size_t{64} * 1024);
  d->writer_ = avro_writer_memory(d->buffer_.data(), static_cast<int64_t>(d->buffer_.size()));
  return d;
}

AvroDatum::~AvroDatum() {
  if (writer_ != nullptr) avro_writer_free(writer_);
  if (value_ready_) avro_value_decref(&value_);
  if (iface_ != nullptr) avro_value_iface_decref(iface_);
  if (schema_ != nullptr) avro_schema_decref(schema_);
}

avro_value_t* AvroDatum::Branch(size_t index) {
  avro_value_set_branch(&fields_[index], 1, &branch_);
  return &branch_;
}

void AvroDatum::SetNull(size_t index) {
  avro_value_t null_branch;
  avro_value_set_branch(&fields_[index], 0, &null_branch);
  avro_value_set_null(&null_branch);
}

void AvroDatum::SetString(size_t index, std::string_view text) {
  // set_string_len copies `size` bytes, a terminating NUL included: a view need not have
  // one, so the text goes through a reused, terminated scratch string.
  scratch_.assign(text);
  SetTerminatedString(index, scratch_);
}

void AvroDatum::SetTerminatedString(size_t index, std::string_view text) {
  if (text.data() == nullptr) text = "";  // an empty view need not point anywhere
  avro_value_set_string_len(Branch(index), text.data(), text.size() + 1);
}

void AvroDatum::SetLong(size_t index, int64_t v) { avro_value_set_long(Branch(index), v); }
void AvroDatum::SetInt(size_t index, int32_t v) { avro_value_set_int(Branch(index), v); }
void AvroDatum::SetBoolean(size_t index, bool v) { avro_value_set_boolean(Branch(index), v); }
void AvroDatum::SetDouble(size_t index, double v) { avro_value_set_double(Branch(index), v); }

void AvroDatum::SetBytes(size_t index, std::string_view bytes) {
  avro_value_set_bytes(Branch(index), const_cast<char*>(bytes.data()), bytes.size());
}

Status AvroDatum::AppendTo(std::string& out) {
  // Written straight into the 64 KiB buffer; only a record that does not fit is sized
  // (avro_value_sizeof walks the whole value, as the write does) and written again.
  avro_writer_reset(writer_);
  if (avro_value_write(writer_, &value_) != 0) {
    size_t size = 0;
    if (avro_value_sizeof(&value_, &size) != 0) {
      return Status::Internal(AvroError("avro-c could not size the record"));
    }
    if (size <= buffer_.size()) {
      return Status::Internal(AvroError("avro-c could not encode the record"));
    }
    avro_writer_free(writer_);
    buffer_.resize(size * 2);
    writer_ = avro_writer_memory(buffer_.data(), static_cast<int64_t>(buffer_.size()));
    if (avro_value_write(writer_, &value_) != 0) {
      return Status::Internal(AvroError("avro-c could not encode the record"));
    }
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
