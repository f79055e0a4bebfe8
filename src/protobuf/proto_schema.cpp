// SPDX-License-Identifier: Apache-2.0
// ProtoSchema: libprotobuf's .proto parser (compiler/parser.h) and descriptor pool. Nothing
// here reads or writes the Protobuf grammar or wire format by hand.
#include "snowcar/protobuf/proto_schema.h"

#include <google/protobuf/compiler/parser.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/timestamp.pb.h>
#include <google/protobuf/wrappers.pb.h>

#include "snowcar/common/log.h"

namespace snowcar::protobuf {
namespace {

namespace gp = google::protobuf;

// Collects libprotobuf's complaints as one message: "line:column: text; ...".
class Collector final : public gp::io::ErrorCollector, public gp::DescriptorPool::ErrorCollector {
 public:
  void AddError(int line, int column, const std::string& message) override {
    Add(std::to_string(line + 1) + ":" + std::to_string(column + 1) + ": " + message);
  }
  void AddError(const std::string& filename, const std::string& element_name,
                const gp::Message* /*descriptor*/, ErrorLocation /*location*/,
                const std::string& message) override {
    (void)filename;
    Add((element_name.empty() ? std::string() : element_name + ": ") + message);
  }
  const std::string& text() const { return text_; }

 private:
  void Add(const std::string& m) {
    if (!text_.empty()) text_ += "; ";
    text_ += m;
  }
  std::string text_;
};

// libprotobuf writes its own complaints (a record missing a proto2 required field, a string
// that is not UTF-8) to stderr before the call fails; the failure is reported with its reason
// by the caller, so the text goes to the debug log instead of breaking the JSON log lines.
void LibraryLog(gp::LogLevel level, const char* filename, int line, const std::string& message) {
  (void)filename;
  (void)line;
  if (level == gp::LOGLEVEL_FATAL) std::abort();
  SNOWCAR_LOG(kDebug, "protobuf.library", {{"message", message}});
}

// The well-known types live in libprotobuf's generated pool once their code is linked:
// naming their descriptors here keeps the linker from dropping them, so an import of
// google/protobuf/timestamp.proto or wrappers.proto resolves.
void Prepare() {
  static const bool once = [] {
    gp::SetLogHandler(&LibraryLog);
    (void)gp::Timestamp::descriptor();
    (void)gp::StringValue::descriptor();
    return true;
  }();
  (void)once;
}

}  // namespace

ProtoSchema::ProtoSchema()
    : pool_(std::make_unique<gp::DescriptorPool>(gp::DescriptorPool::generated_pool())),
      factory_(pool_.get()) {}

ProtoSchema::~ProtoSchema() = default;

Result<std::shared_ptr<const ProtoSchema>> ProtoSchema::Parse(std::string_view text) {
  gp::io::ArrayInputStream input(text.data(), static_cast<int>(text.size()));
  Collector errors;
  gp::io::Tokenizer tokenizer(&input, &errors);
  gp::compiler::Parser parser;
  parser.RecordErrorsTo(&errors);
  gp::FileDescriptorProto proto;
  if (!parser.Parse(&tokenizer, &proto) || !errors.text().empty()) {
    return Status::InvalidArgument("the Protobuf schema does not parse: " + errors.text());
  }
  return BuildInto(std::shared_ptr<ProtoSchema>(new ProtoSchema()), std::move(proto));
}

Result<std::shared_ptr<const ProtoSchema>> ProtoSchema::Build(
    const gp::FileDescriptorProto& proto) {
  return BuildInto(std::shared_ptr<ProtoSchema>(new ProtoSchema()), proto);
}

Result<std::shared_ptr<const ProtoSchema>> ProtoSchema::BuildInto(
    std::shared_ptr<ProtoSchema> schema, gp::FileDescriptorProto proto) {
  Prepare();
  // The registry's text carries no file name; the pool needs one, and it must not be one of
  // the well-known files' names.
  if (!proto.has_name()) proto.set_name("snowcar/schema.proto");
  for (const std::string& dep : proto.dependency()) {
    if (gp::DescriptorPool::generated_pool()->FindFileByName(dep) == nullptr) {
      return Status::InvalidArgument("the Protobuf schema imports " + dep +
                                     ", which is not a well-known type; schema references "
                                     "are not followed");
    }
  }
  Collector errors;
  schema->file_ = schema->pool_->BuildFileCollectingErrors(proto, &errors);
  if (schema->file_ == nullptr) {
    return Status::InvalidArgument("the Protobuf schema is invalid: " + errors.text());
  }
  return std::shared_ptr<const ProtoSchema>(std::move(schema));
}

Result<const gp::Descriptor*> ProtoSchema::MessageAt(const std::vector<int>& path) const {
  const gp::Descriptor* d = nullptr;
  std::string walked;
  for (size_t i = 0; i < path.size(); ++i) {
    const int index = path[i];
    walked += (i == 0 ? "" : ",") + std::to_string(index);
    // The messages as the .proto text declares them: the entry messages libprotobuf makes
    // for map fields are not in the text, so Confluent's indexes do not count them.
    std::vector<const gp::Descriptor*> level;
    const int count = d == nullptr ? file_->message_type_count() : d->nested_type_count();
    for (int k = 0; k < count; ++k) {
      const gp::Descriptor* m = d == nullptr ? file_->message_type(k) : d->nested_type(k);
      if (!m->options().map_entry()) level.push_back(m);
    }
    if (index < 0 || static_cast<size_t>(index) >= level.size()) {
      return Status::InvalidArgument("the message index path [" + walked +
                                     "] names no message of the schema (" +
                                     std::to_string(level.size()) + " at that level)");
    }
    d = level[static_cast<size_t>(index)];
  }
  if (d == nullptr) return Status::InvalidArgument("an empty message index path");
  return d;
}

std::unique_ptr<gp::Message> ProtoSchema::NewMessage(const gp::Descriptor* type) const {
  return std::unique_ptr<gp::Message>(factory_.GetPrototype(type)->New());
}

}  // namespace snowcar::protobuf
