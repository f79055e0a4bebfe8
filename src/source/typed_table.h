// SPDX-License-Identifier: Apache-2.0
// One table's typed records (snow.source.schema.mode=typed, or a key.format with a schema):
// its column types, kept in step with sys_dictionary and cached in the state store, the
// encoder of the current schema version, and the schema ids when a registry is configured.
// Used on the table poller's strand only (typed_poller.cpp drives it).
//
// When the types are read again: before the first page when the state store has none, when
// they are older than snow.source.schema.refresh.ms, and when a page carries a field they
// lack. After a read, a field sys_dictionary still does not list (a dot-walked field, a column
// of a parent table: see docs/source.md) is kept as a string column, so a page never waits
// for the dictionary twice for the same field.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <memory>
#include <optional>
#include <string>

#include "snowcar/kafka/record.h"
#include "snowcar/source/column_types.h"
#include "snowcar/source/row.h"
#include "snowcar/source/source_settings.h"
#include "snowcar/source/typed_record.h"
#include "snowcar/state/state_store.h"

namespace snowcar::schema_registry {
class SchemaRegistryClient;
struct RegistryOptions;
}  // namespace snowcar::schema_registry

namespace snowcar::source {

// The registrar of a configured registry: registers through `client` (ids cached in memory
// and in the state store by the client) under the subject strategies of `options`.
SchemaRegistrar MakeSchemaRegistrar(std::shared_ptr<schema_registry::SchemaRegistryClient> client,
                                    const schema_registry::RegistryOptions& options);

class TypedTable {
 public:
  // Null when the table needs none (schema.mode is not typed and key.format has no schema).
  static std::unique_ptr<TypedTable> MakeIfNeeded(const SourceSettings& source,
                                                  const TableSettings& table,
                                                  state::StateStore* store,
                                                  SchemaRegistrar registrar);

  // Reads the cached types from the state store. A stored copy that cannot be read is
  // logged and dropped (the dictionary is read again); a store error is returned.
  Status Load();

  // True when `rows` must wait for a read of sys_dictionary (see above).
  bool NeedsDictionary(const boost::json::array& rows, int64_t now_ms) const;
  // "/api/now/table/sys_dictionary?..." for the table's columns.
  std::string DictionaryTarget() const;
  // A sys_dictionary answer: the types evolve (column_types.h), fields of `rows` it still
  // lacks are kept as strings, and the types are written to the state store.
  Status OnDictionary(const boost::json::array& answer, const boost::json::array& rows,
                      int64_t now_ms);

  // Builds the encoder for the current types. An error here is not about a row: the caller
  // backs off and reads the page again.
  Status Ready();
  // After Ready: registers the key and value schemas not registered yet, when a registry is
  // configured. An error is the registrar's (the registry client's, client.h), with the topic
  // named; the caller acts on its cell in the outcome table (schema_registry/outcomes.h,
  // column kRegisterSchema).
  Status RegisterSchemas();

  // The record of one row. InvalidArgument: a value that does not parse as its type (the
  // bad-row policy decides).
  Result<kafka::OutRecord> Build(const boost::json::object& row, const RowKey& key,
                                 int64_t extracted_at_ms);

  const TableTypes* types() const { return types_ ? &*types_ : nullptr; }

 private:
  TypedTable(const SourceSettings& source, const TableSettings& table, state::StateStore* store,
             SchemaRegistrar registrar);

  const SourceSettings& source_;
  const TableSettings& table_;
  state::StateStore* store_;
  SchemaRegistrar registrar_;
  bool typed_values_ = false;
  std::optional<TableTypes> types_;
  std::unique_ptr<TypedEncoder> encoder_;  // null until Ready after a change of types
  std::optional<int32_t> value_schema_id_;
  std::optional<int32_t> key_schema_id_;
  std::string value_buffer_;
};

}  // namespace snowcar::source
