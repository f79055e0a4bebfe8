// SPDX-License-Identifier: Apache-2.0
#include "typed_table.h"

#include "snowcar/common/log.h"
#include "snowcar/common/time.h"
#include "snowcar/schema_registry/client.h"
#include "snowcar/schema_registry/protobuf_framing.h"
#include "snowcar/schema_registry/registry_options.h"
#include "snowcar/schema_registry/subject.h"
#include "snowcar/schema_registry/wire_format.h"
#include "snowcar/source/rows/keyset_query.h"
#include "snowcar/source/rows/record_builder.h"

namespace snowcar::source {
namespace {

// The columns of one table: an instance has hundreds at most.
constexpr int kDictionaryLimit = 10000;

bool HasSchema(RecordFormat f) {
  return f == RecordFormat::kAvro || f == RecordFormat::kJsonSchema || f == RecordFormat::kProtobuf;
}

// Confluent's wire format; a Protobuf record also names its message (the first of the
// schema, the only one the source writes).
std::string FrameFor(RecordFormat f, int32_t schema_id, std::string_view payload) {
  return f == RecordFormat::kProtobuf ? schema_registry::FrameProtobuf(schema_id, payload)
                                      : schema_registry::Frame(schema_id, payload);
}

}  // namespace

SchemaRegistrar MakeSchemaRegistrar(std::shared_ptr<schema_registry::SchemaRegistryClient> client,
                                    const schema_registry::RegistryOptions& options) {
  return SchemaRegistrar([client = std::move(client), key_strategy = options.key_subject_strategy,
                          value_strategy = options.value_subject_strategy](
                             const std::string& topic, bool is_key, RecordFormat format,
                             const std::string& record_name,
                             const std::string& schema) -> Result<int32_t> {
    SNOWCAR_ASSIGN_OR_RETURN(std::string subject,
                             schema_registry::SubjectName(is_key ? key_strategy : value_strategy,
                                                          topic, is_key, record_name));
    const auto type = format == RecordFormat::kAvro       ? schema_registry::SchemaType::kAvro
                      : format == RecordFormat::kProtobuf ? schema_registry::SchemaType::kProtobuf
                                                          : schema_registry::SchemaType::kJson;
    return client->RegisterSchema(subject, type, schema);
  });
}

std::unique_ptr<TypedTable> TypedTable::MakeIfNeeded(const SourceSettings& source,
                                                     const TableSettings& table,
                                                     state::StateStore* store,
                                                     SchemaRegistrar registrar) {
  const bool typed = source.schema_mode == SchemaMode::kTyped;
  if (!typed && source.key_format == RecordFormat::kString) return nullptr;
  std::unique_ptr<TypedTable> t(new TypedTable(source, table, store, std::move(registrar)));
  t->typed_values_ = typed;
  return t;
}

TypedTable::TypedTable(const SourceSettings& source, const TableSettings& table,
                       state::StateStore* store, SchemaRegistrar registrar)
    : source_(source), table_(table), store_(store), registrar_(std::move(registrar)) {}

Status TypedTable::Load() {
  if (!typed_values_ || store_ == nullptr) return Status::Ok();
  auto stored = store_->LoadTableTypes(source_.instance, table_.name);
  if (!stored.ok()) return stored.status();
  if (!stored->has_value()) return Status::Ok();
  auto types = TableTypes::Decode(**stored);
  if (!types.ok()) {
    SNOWCAR_LOG(kWarn, "source.column_types_unreadable",
                {{"table", table_.alias}, {"error", types.status().message()}});
    return Status::Ok();
  }
  types_ = std::move(types).value();
  SNOWCAR_LOG(kInfo, "source.column_types_loaded",
              {{"table", table_.alias},
               {"columns", static_cast<int64_t>(types_->columns.size())},
               {"read_at_ms", types_->read_at_ms}});
  return Status::Ok();
}

bool TypedTable::NeedsDictionary(const boost::json::array& rows, int64_t now_ms) const {
  if (!typed_values_) return false;
  if (!types_ || types_->chain.empty()) return true;  // none, or stored without the chain
  if (now_ms - types_->read_at_ms >= source_.schema_refresh_ms) return true;
  for (const boost::json::value& v : rows) {
    const boost::json::object* row = v.if_object();
    if (row == nullptr) continue;
    for (const auto& field : *row) {
      if (types_->Find(field.key()) == nullptr) return true;
    }
  }
  return false;
}

std::string TypedTable::TypesTarget() {
  if (!walk_) walk_.emplace(table_.name);
  PageRequestOptions options;
  if (!walk_->done()) {
    TableSettings objects;
    objects.name = "sys_db_object";
    objects.fields = {"name", "super_class"};
    objects.query_domain = false;
    options.limit = 1;
    return PageTarget(objects, walk_->Query(), options);
  }
  TableSettings dictionary;
  dictionary.name = "sys_dictionary";
  dictionary.fields = {"name",      "element",    "internal_type", "max_length",
                       "reference", "attributes", "active"};
  dictionary.query_domain = false;
  options.limit = kDictionaryLimit;
  const std::vector<std::string>& chain = walk_->chain();
  std::string query = chain.size() == 1 ? "name=" + chain.front() : "nameIN";
  for (size_t i = 0; chain.size() > 1 && i < chain.size(); ++i) {
    if (i > 0) query += ',';
    query += chain[i];
  }
  return PageTarget(dictionary, query, options);
}

std::string_view TypedTable::TypesSource() const {
  return walk_ && walk_->done() ? "sys_dictionary" : "sys_db_object";
}

Result<bool> TypedTable::OnTypesAnswer(const boost::json::array& answer,
                                       const boost::json::array& rows, int64_t now_ms) {
  if (!walk_) return Status::Internal("a column types answer without a read under way");
  if (!walk_->done()) {
    if (Status s = walk_->OnAnswer(answer); !s.ok()) {
      walk_.reset();
      return s;
    }
    return false;  // walked one step: the next one, or the dictionary, is read next
  }
  Status s = OnDictionary(answer, rows, now_ms);
  walk_.reset();
  if (!s.ok()) return s;
  return true;
}

Status TypedTable::OnDictionary(const boost::json::array& answer, const boost::json::array& rows,
                                int64_t now_ms) {
  auto fresh = TableTypesFromDictionary(walk_->chain(), answer, now_ms);
  if (!fresh.ok()) return fresh.status();
  bool changed = true;
  TableTypes next = types_ ? EvolveTypes(*types_, *fresh, &changed) : std::move(fresh).value();
  for (const boost::json::value& v : rows) {
    const boost::json::object* row = v.if_object();
    if (row == nullptr) continue;
    for (const auto& field : *row) {
      if (next.Find(field.key()) == nullptr) {
        next.AddUnlisted(field.key());
        changed = true;
      }
    }
  }
  if (next.columns.empty()) {
    return Status::FailedPrecondition(
        "sys_dictionary lists no column of " + table_.name +
        " and no row named one; the integration user may lack read access to sys_dictionary");
  }
  if (changed || !types_) {
    SNOWCAR_LOG(kInfo, "source.column_types_read",
                {{"table", table_.alias},
                 {"columns", static_cast<int64_t>(next.columns.size())},
                 {"chain", static_cast<int64_t>(next.chain.size())},
                 {"changed", changed}});
    encoder_.reset();
    value_schema_id_.reset();
    snapshot_.reset();
  }
  types_ = std::move(next);
  if (store_ != nullptr) {
    SNOWCAR_RETURN_IF_ERROR(
        store_->StoreTableTypes(source_.instance, table_.name, types_->Encode()));
  }
  return Status::Ok();
}

Status TypedTable::Ready() {
  if (typed_values_ && !encoder_) {
    if (!types_) return Status::FailedPrecondition("the column types were not read yet");
    auto encoder = TypedEncoder::Make(*types_, table_, source_.value_format);
    if (!encoder.ok()) return encoder.status();
    encoder_ = std::move(encoder).value();
  }
  return Status::Ok();
}

Status TypedTable::RegisterSchemas() {
  if (!registrar_) return Status::Ok();
  if (typed_values_ && HasSchema(source_.value_format) && !value_schema_id_) {
    auto id = registrar_(table_.topic, /*is_key=*/false, source_.value_format,
                         RecordFullName(table_, source_.value_format), encoder_->schema_text());
    if (!id.ok()) {
      return Status(id.status().code(), "registering the value schema of topic " + table_.topic +
                                            " with the schema registry: " + id.status().message());
    }
    value_schema_id_ = *id;
    snapshot_.reset();
  }
  if (HasSchema(source_.key_format) && !key_schema_id_) {
    auto id = registrar_(table_.topic, /*is_key=*/true, source_.key_format, "",
                         KeySchemaText(source_.key_format));
    if (!id.ok()) {
      return Status(id.status().code(), "registering the key schema of topic " + table_.topic +
                                            " with the schema registry: " + id.status().message());
    }
    key_schema_id_ = *id;
    snapshot_.reset();
  }
  return Status::Ok();
}

std::shared_ptr<const TypedSnapshot> TypedTable::Snapshot() {
  if (!snapshot_) {
    snapshot_ = std::make_shared<const TypedSnapshot>(
        TypedSnapshot{types_, value_schema_id_, key_schema_id_});
  }
  return snapshot_;
}

Status TypedTable::Adopt(const std::shared_ptr<const TypedSnapshot>& snapshot) {
  if (snapshot == snapshot_) return Status::Ok();
  types_ = snapshot->types;
  value_schema_id_ = snapshot->value_schema_id;
  key_schema_id_ = snapshot->key_schema_id;
  encoder_.reset();
  snapshot_ = snapshot;
  Status s = Ready();
  if (!s.ok()) snapshot_.reset();  // the next Adopt of it tries again
  return s;
}

Result<kafka::OutRecord> TypedTable::Build(const boost::json::object& row, const RowKey& key,
                                           int64_t extracted_at_ms) {
  kafka::OutRecord record;
  if (typed_values_) {
    // The headers, timestamp and topic are the untyped record's; only the value differs.
    record.topic = table_.topic;
    record.timestamp_ms = key.ts * 1000;
    record.headers.reserve(4);
    record.headers.push_back({kOperationHeader, std::string("UPSERT")});
    record.headers.push_back({kTableHeader, table_.name});
    record.headers.push_back({kInstanceHeader, source_.instance});
    record.headers.push_back({kExtractedAtHeader, FormatIso8601Millis(extracted_at_ms)});
    value_buffer_.clear();
    SNOWCAR_RETURN_IF_ERROR(encoder_->Encode(row, key.sys_id, value_buffer_));
    record.value = value_schema_id_
                       ? FrameFor(source_.value_format, *value_schema_id_, value_buffer_)
                       : value_buffer_;
  } else {
    record = BuildRecord(row, key, table_, source_, extracted_at_ms);
  }
  auto k = EncodeKey(key.sys_id, source_.key_format);
  if (!k.ok()) return k.status();
  record.key =
      key_schema_id_ ? FrameFor(source_.key_format, *key_schema_id_, *k) : std::move(k).value();
  return record;
}

}  // namespace snowcar::source
