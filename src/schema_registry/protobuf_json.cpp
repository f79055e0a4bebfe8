// SPDX-License-Identifier: Apache-2.0
#include "protobuf_json.h"

#include <google/protobuf/stubs/common.h>

#include <charconv>
#include <cmath>

#include "logical_text.h"
#include "snowcar/common/base64.h"
#include "snowcar/common/json_escape.h"
#include "snowcar/schema_registry/protobuf_framing.h"

namespace snowcar::schema_registry {
namespace {

namespace gp = google::protobuf;
using Cpp = gp::FieldDescriptor::CppType;

// proto3 parsing refuses a string that is not UTF-8, proto2 parsing does not; JSON must be.
Status Utf8(const gp::FieldDescriptor* f, const std::string& s) {
  if (gp::internal::IsStructurallyValidUTF8(s.data(), static_cast<int>(s.size()))) {
    return Status::Ok();
  }
  return Status::InvalidArgument("field " + f->full_name() + " holds a string that is not UTF-8");
}

class Renderer {
 public:
  explicit Renderer(std::string& out) : out_(out) {}

  Status Message(const gp::Message& m) {
    const gp::Descriptor* d = m.GetDescriptor();
    if (d->full_name() == "google.protobuf.Timestamp") return Timestamp(m);
    const gp::Reflection* r = m.GetReflection();
    out_ += '{';
    bool first = true;
    for (int i = 0; i < d->field_count(); ++i) {
      const gp::FieldDescriptor* f = d->field(i);
      const gp::OneofDescriptor* oneof = f->real_containing_oneof();
      if (oneof != nullptr && !r->HasField(m, f)) continue;
      if (!first) out_ += ',';
      first = false;
      AppendJsonString(out_, f->name());
      out_ += ':';
      SNOWCAR_RETURN_IF_ERROR(Field(m, r, f));
    }
    out_ += '}';
    return Status::Ok();
  }

 private:
  Status Field(const gp::Message& m, const gp::Reflection* r, const gp::FieldDescriptor* f) {
    if (f->is_map()) return Map(m, r, f);
    if (f->is_repeated()) {
      out_ += '[';
      const int n = r->FieldSize(m, f);
      for (int i = 0; i < n; ++i) {
        if (i > 0) out_ += ',';
        SNOWCAR_RETURN_IF_ERROR(Value(m, r, f, i));
      }
      out_ += ']';
      return Status::Ok();
    }
    if (f->has_presence() && !r->HasField(m, f)) {
      out_ += "null";
      return Status::Ok();
    }
    return Value(m, r, f, -1);
  }

  Status Map(const gp::Message& m, const gp::Reflection* r, const gp::FieldDescriptor* f) {
    const gp::FieldDescriptor* key = f->message_type()->map_key();
    const gp::FieldDescriptor* value = f->message_type()->map_value();
    out_ += '{';
    const int n = r->FieldSize(m, f);
    for (int i = 0; i < n; ++i) {
      const gp::Message& entry = r->GetRepeatedMessage(m, f, i);
      const gp::Reflection* er = entry.GetReflection();
      if (i > 0) out_ += ',';
      if (key->cpp_type() == Cpp::CPPTYPE_STRING) {
        const std::string text = er->GetString(entry, key);
        SNOWCAR_RETURN_IF_ERROR(Utf8(f, text));
        AppendJsonString(out_, text);
      } else {
        // Integer and bool keys: their text, quoted, as JSON object keys must be.
        std::string text;
        (void)Renderer(text).Value(entry, er, key, -1);  // integer and bool keys cannot fail
        AppendJsonString(out_, text);
      }
      out_ += ':';
      SNOWCAR_RETURN_IF_ERROR(Value(entry, er, value, -1));
    }
    out_ += '}';
    return Status::Ok();
  }

  template <typename T>
  void Number(T v) {
    char buf[32];
    auto res = std::to_chars(buf, buf + sizeof(buf), v);
    out_.append(buf, res.ptr);
  }

  // One value of `f`: element `i` of a repeated field, or the field itself when i < 0.
  Status Value(const gp::Message& m, const gp::Reflection* r, const gp::FieldDescriptor* f, int i) {
    const bool rep = i >= 0;
    switch (f->cpp_type()) {
      case Cpp::CPPTYPE_INT32:
        Number(rep ? r->GetRepeatedInt32(m, f, i) : r->GetInt32(m, f));
        break;
      case Cpp::CPPTYPE_INT64:
        Number(rep ? r->GetRepeatedInt64(m, f, i) : r->GetInt64(m, f));
        break;
      case Cpp::CPPTYPE_UINT32:
        Number(rep ? r->GetRepeatedUInt32(m, f, i) : r->GetUInt32(m, f));
        break;
      case Cpp::CPPTYPE_UINT64:
        Number(rep ? r->GetRepeatedUInt64(m, f, i) : r->GetUInt64(m, f));
        break;
      case Cpp::CPPTYPE_DOUBLE:
      case Cpp::CPPTYPE_FLOAT: {
        const double v = f->cpp_type() == Cpp::CPPTYPE_DOUBLE
                             ? (rep ? r->GetRepeatedDouble(m, f, i) : r->GetDouble(m, f))
                             : (rep ? r->GetRepeatedFloat(m, f, i) : r->GetFloat(m, f));
        if (!std::isfinite(v)) {
          return Status::InvalidArgument("field " + f->full_name() +
                                         " holds a non-finite number, which JSON cannot carry");
        }
        Number(v);
        break;
      }
      case Cpp::CPPTYPE_BOOL:
        out_ += (rep ? r->GetRepeatedBool(m, f, i) : r->GetBool(m, f)) ? "true" : "false";
        break;
      case Cpp::CPPTYPE_ENUM: {
        const int n = rep ? r->GetRepeatedEnumValue(m, f, i) : r->GetEnumValue(m, f);
        const gp::EnumValueDescriptor* e = f->enum_type()->FindValueByNumber(n);
        if (e != nullptr) {
          AppendJsonString(out_, e->name());
        } else {
          Number(n);
        }
        break;
      }
      case Cpp::CPPTYPE_STRING: {
        std::string scratch;
        const std::string& s = rep ? r->GetRepeatedStringReference(m, f, i, &scratch)
                                   : r->GetStringReference(m, f, &scratch);
        if (f->type() == gp::FieldDescriptor::TYPE_BYTES) {
          AppendJsonString(out_, Base64Encode(s));
        } else {
          SNOWCAR_RETURN_IF_ERROR(Utf8(f, s));
          AppendJsonString(out_, s);
        }
        break;
      }
      case Cpp::CPPTYPE_MESSAGE: {
        const gp::Message& sub = rep ? r->GetRepeatedMessage(m, f, i) : r->GetMessage(m, f);
        if (IsWrapper(f->message_type())) {
          const gp::FieldDescriptor* inner = f->message_type()->field(0);
          return Value(sub, sub.GetReflection(), inner, -1).WithContext("field " + f->full_name());
        }
        Status s = Message(sub);
        if (!s.ok() && f->message_type()->full_name() == "google.protobuf.Timestamp") {
          return s.WithContext("field " + f->full_name());
        }
        return s;
      }
    }
    return Status::Ok();
  }

  static bool IsWrapper(const gp::Descriptor* d) {
    return d->file()->name() == "google/protobuf/wrappers.proto" && d->field_count() == 1;
  }

  Status Timestamp(const gp::Message& m) {
    const gp::Descriptor* d = m.GetDescriptor();
    const gp::Reflection* r = m.GetReflection();
    const int64_t seconds = r->GetInt64(m, d->FindFieldByName("seconds"));
    // Whole seconds only (the Table API keeps no fraction): the nanos are dropped. The bound
    // keeps the multiplication below in range; TimestampText refuses such years anyway.
    if (seconds < -(int64_t{1} << 50) || seconds > (int64_t{1} << 50)) {
      return Status::InvalidArgument("timestamp of " + std::to_string(seconds) +
                                     " seconds is outside years 0001-9999");
    }
    SNOWCAR_ASSIGN_OR_RETURN(std::string text,
                             TimestampText(AvroLogical::kTimestampMillis, seconds * 1000));
    AppendJsonString(out_, text);
    return Status::Ok();
  }

  std::string& out_;
};

}  // namespace

Result<std::string> ProtobufToJson(const protobuf::ProtoSchema& schema, std::string_view payload) {
  SNOWCAR_ASSIGN_OR_RETURN(std::vector<int> path, ReadMessageIndexes(payload));
  SNOWCAR_ASSIGN_OR_RETURN(const gp::Descriptor* type, schema.MessageAt(path));
  std::unique_ptr<gp::Message> message = schema.NewMessage(type);
  if (!message->ParseFromArray(payload.data(), static_cast<int>(payload.size()))) {
    return Status::InvalidArgument("the payload of " + std::to_string(payload.size()) +
                                   " bytes does not parse as Protobuf message " +
                                   type->full_name());
  }
  std::string out;
  SNOWCAR_RETURN_IF_ERROR(Renderer(out).Message(*message));
  return out;
}

}  // namespace snowcar::schema_registry
