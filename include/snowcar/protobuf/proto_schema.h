// SPDX-License-Identifier: Apache-2.0
// A Protobuf schema (one .proto file) held by libprotobuf: parsed from the text a Schema
// Registry stores, or built from a FileDescriptorProto, with the descriptor pool and message
// factory that make and read its messages at run time (no generated code). Used by the source
// (value.format=protobuf), the registry client's decoder and the registry double.
//
// Imports resolve only to the well-known types compiled into libprotobuf
// (google/protobuf/timestamp.proto, wrappers.proto, ...): schema references to other
// registered schemas are not followed.
//
// Thread safety: a ProtoSchema is immutable after Parse/Build; its pool may be read from any
// thread, and the factory's GetPrototype is thread-safe (libprotobuf's DynamicMessageFactory).
#pragma once

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/dynamic_message.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "snowcar/common/status.h"

namespace snowcar::protobuf {

class ProtoSchema {
 public:
  // Parses `.proto` text (proto2 or proto3) with libprotobuf's parser. InvalidArgument with
  // libprotobuf's messages (line:column) when the text does not parse or does not build (an unknown
  // type, a number used twice, an import that is not a well-known type).
  static Result<std::shared_ptr<const ProtoSchema>> Parse(std::string_view text);
  // Builds the file `proto` describes. InvalidArgument as above.
  static Result<std::shared_ptr<const ProtoSchema>> Build(
      const google::protobuf::FileDescriptorProto& proto);

  ProtoSchema(const ProtoSchema&) = delete;
  ProtoSchema& operator=(const ProtoSchema&) = delete;
  ~ProtoSchema();

  const google::protobuf::FileDescriptor* file() const { return file_; }
  // The file as .proto text, rendered by libprotobuf (FileDescriptor::DebugString): what the
  // source registers, and the form two schemas are compared in.
  std::string Text() const { return file_->DebugString(); }

  // The message a Confluent message-index path names: {0} is the file's first message, {1, 0}
  // the first message nested in the second (the entry messages of map fields, which the text
  // does not declare, are not counted). InvalidArgument naming the path when there is no
  // such message.
  Result<const google::protobuf::Descriptor*> MessageAt(const std::vector<int>& path) const;

  // An empty message of `type` (a descriptor of this schema's pool), made by the factory.
  std::unique_ptr<google::protobuf::Message> NewMessage(
      const google::protobuf::Descriptor* type) const;

 private:
  ProtoSchema();
  static Result<std::shared_ptr<const ProtoSchema>> BuildInto(
      std::shared_ptr<ProtoSchema> schema, google::protobuf::FileDescriptorProto proto);

  std::unique_ptr<google::protobuf::DescriptorPool> pool_;
  mutable google::protobuf::DynamicMessageFactory factory_;
  const google::protobuf::FileDescriptor* file_ = nullptr;
};

}  // namespace snowcar::protobuf
