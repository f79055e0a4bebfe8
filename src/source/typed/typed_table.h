// SPDX-License-Identifier: Apache-2.0
// One table's typed records (snow.source.schema.mode=typed, or a key.format with a schema):
// its column types, kept in step with sys_dictionary and cached in the state store, the
// encoder of the current schema version, and the schema ids when a registry is configured.
// Used on the table poller's strand only (typed_poller.cpp drives it).
//
// How the types are read: the super-class chain from sys_db_object (super_class_walk.h), then
// sys_dictionary for every table of the chain, each column typed by the nearest table that
// lists it. When: before the first page when the state store has none (or has a copy stored
// without its chain), when they are older than snow.source.schema.refresh.ms, and when a page
// carries a field they lack. After a read, a field sys_dictionary still does not list (a
// dot-walked field: see docs/source.md) is kept as a string column, so a page never waits for
// the dictionary twice for the same field.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <memory>
#include <optional>
#include <string>

#include "snowcar/kafka/record.h"
#include "snowcar/source/rows/row.h"
#include "snowcar/source/source_settings.h"
#include "snowcar/source/typed/column_types.h"
#include "snowcar/source/typed/super_class_walk.h"
#include "snowcar/source/typed/typed_record.h"
#include "snowcar/state/state_store.h"
#include "typed_snapshot.h"

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
  // The next read the types wait for: "/api/now/table/sys_db_object?..." while the chain is
  // walked, then "/api/now/table/sys_dictionary?..." for the columns of every table in it. A
  // read that failed is asked again by the next call (the walk resumes where it stopped).
  std::string TypesTarget();
  // The table the last TypesTarget reads: "sys_db_object" or "sys_dictionary".
  std::string_view TypesSource() const;
  // The answer to TypesTarget. false: another read is needed (ask TypesTarget again). true:
  // the sys_dictionary answer was applied: the types evolve (column_types.h), fields of
  // `rows` they still lack are kept as strings, and the types and chain are written to the
  // state store. An error (a chain that is broken, loops or is too deep: super_class_walk.h)
  // restarts the walk at the next read.
  Result<bool> OnTypesAnswer(const boost::json::array& answer, const boost::json::array& rows,
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

  // After Ready and RegisterSchemas: the types and schema ids records are written with; the
  // same pointer until one of them changes.
  std::shared_ptr<const TypedSnapshot> Snapshot();
  // For a table that writes another's records (a deletes stream, reconciliation): takes the
  // types and schema ids of `snapshot` instead of reading or registering its own, and builds
  // the encoder for them (Ready).
  Status Adopt(const std::shared_ptr<const TypedSnapshot>& snapshot);

 private:
  TypedTable(const SourceSettings& source, const TableSettings& table, state::StateStore* store,
             SchemaRegistrar registrar);

  const SourceSettings& source_;
  Status OnDictionary(const boost::json::array& answer, const boost::json::array& rows,
                      int64_t now_ms);

  const TableSettings& table_;
  state::StateStore* store_;
  SchemaRegistrar registrar_;
  bool typed_values_ = false;
  std::optional<TableTypes> types_;
  std::optional<SuperClassWalk> walk_;     // the read under way, if any
  std::unique_ptr<TypedEncoder> encoder_;  // null until Ready after a change of types
  std::optional<int32_t> value_schema_id_;
  std::optional<int32_t> key_schema_id_;
  std::string value_buffer_;
  std::shared_ptr<const TypedSnapshot> snapshot_;  // null until asked, and after a change
};

}  // namespace snowcar::source
