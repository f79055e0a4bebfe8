// SPDX-License-Identifier: Apache-2.0
// The registry double's Protobuf rule (compatibility.h).
#include <string>

#include "compatibility.h"

namespace snowcar::registry {
namespace {

namespace gp = google::protobuf;
using FD = gp::FieldDescriptor;

// Types whose values read as each other on the wire: the same class number.
int WireClass(const FD* f) {
  switch (f->type()) {
    case FD::TYPE_INT32:
    case FD::TYPE_INT64:
    case FD::TYPE_UINT32:
    case FD::TYPE_UINT64:
    case FD::TYPE_BOOL:
    case FD::TYPE_ENUM:
      return 1;
    case FD::TYPE_SINT32:
    case FD::TYPE_SINT64:
      return 2;
    case FD::TYPE_FIXED32:
    case FD::TYPE_SFIXED32:
      return 3;
    case FD::TYPE_FIXED64:
    case FD::TYPE_SFIXED64:
      return 4;
    case FD::TYPE_STRING:
    case FD::TYPE_BYTES:
      return 5;
    case FD::TYPE_FLOAT:
      return 6;
    case FD::TYPE_DOUBLE:
      return 7;
    case FD::TYPE_MESSAGE:
      return 8;
    case FD::TYPE_GROUP:
      return 9;
  }
  return 0;
}

std::string TypeText(const FD* f) {
  if (f->message_type() != nullptr) return f->message_type()->full_name();
  if (f->enum_type() != nullptr) return "enum " + f->enum_type()->full_name();
  return f->type_name();
}

void CheckMessage(const gp::Descriptor* reader, const gp::Descriptor* writer, std::string& out) {
  const auto line = [&](const std::string& m) { out += reader->full_name() + ": " + m + "\n"; };
  for (int i = 0; i < writer->field_count(); ++i) {
    const FD* w = writer->field(i);
    const FD* r = reader->FindFieldByNumber(w->number());
    const std::string num = "field number " + std::to_string(w->number());
    if (r == nullptr) {
      if (w->is_required()) line("required field " + w->name() + " (" + num + ") was removed");
      continue;
    }
    if (r->is_repeated() != w->is_repeated()) {
      line(num + " (" + r->name() + ") changed between repeated and singular");
    } else if (WireClass(r) != WireClass(w) ||
               (r->message_type() != nullptr &&
                r->message_type()->full_name() != w->message_type()->full_name()) ||
               ((r->enum_type() != nullptr) && (w->enum_type() != nullptr) &&
                r->enum_type()->full_name() != w->enum_type()->full_name())) {
      line(num + " (" + r->name() + ") changed type from " + TypeText(w) + " to " + TypeText(r));
    }
  }
  for (int i = 0; i < reader->field_count(); ++i) {
    const FD* r = reader->field(i);
    if (r->is_required() && writer->FindFieldByNumber(r->number()) == nullptr) {
      line("required field " + r->name() + " (field number " + std::to_string(r->number()) +
           ") was added");
    }
  }
  for (int i = 0; i < writer->nested_type_count(); ++i) {
    const gp::Descriptor* wn = writer->nested_type(i);
    if (wn->options().map_entry()) continue;  // a map field's entry, checked as its field
    const gp::Descriptor* rn = reader->FindNestedTypeByName(wn->name());
    if (rn == nullptr) {
      out += "message " + wn->full_name() + " was removed\n";
    } else {
      CheckMessage(rn, wn, out);
    }
  }
}

}  // namespace

std::string ProtobufIncompatibilities(const protobuf::ProtoSchema& reader,
                                      const protobuf::ProtoSchema& writer) {
  std::string out;
  const gp::FileDescriptor* rf = reader.file();
  const gp::FileDescriptor* wf = writer.file();
  for (int i = 0; i < wf->message_type_count(); ++i) {
    const gp::Descriptor* w = wf->message_type(i);
    const gp::Descriptor* r = rf->pool()->FindMessageTypeByName(w->full_name());
    if (r == nullptr || r->file() != rf) {
      out += "message " + w->full_name() + " was removed\n";
      continue;
    }
    CheckMessage(r, w, out);
  }
  if (!out.empty()) out.pop_back();
  return out;
}

}  // namespace snowcar::registry
