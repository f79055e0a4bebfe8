// SPDX-License-Identifier: Apache-2.0
// The column types of one ServiceNow table, as sys_dictionary describes them, and the
// logical type each maps to in typed records (snow.source.schema.mode=typed).
//
//   internal_type                                    logical type   carried as
//   integer, longint                                 integer        int64
//   boolean                                          boolean        bool
//   decimal, currency, price                         decimal        its digits, never a double;
//                                                                   `scale` digits after the point
//   float                                            double         IEEE double (what the
//                                                                   instance stores)
//   glide_date_time, due_date                        timestamp      ms since the epoch, UTC
//   glide_date                                       date           days since the epoch
//   reference                                        reference      the sys_id as a string
//                                                                   (+ the display text)
//   anything else (string, choice, GUID, journal..)  string         as received
//
// Every value arrives as a string; "" means null for every type but string, where it stays "".
// The types are cached per (instance, table) in the state store with the time they were
// read (TableTypes below, Encode/Decode) and evolve: a column added on the instance is
// appended, a column no longer listed is kept and marked removed, so every schema written
// stays readable by consumers of the earlier ones (docs/source.md, "Typed records").
#pragma once

#include <boost/json/array.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "snowcar/common/status.h"

namespace snowcar::source {

enum class LogicalType {
  kString,
  kInteger,
  kBoolean,
  kDecimal,
  kDouble,
  kTimestamp,
  kDate,
  kReference
};

std::string_view LogicalTypeName(LogicalType type);
// The logical type of a sys_dictionary internal_type (the table above). Case-sensitive, as
// the instance spells them.
LogicalType LogicalTypeFor(std::string_view internal_type);

// Digits after the point of decimal columns whose attributes name no `scale=N`.
inline constexpr int kDefaultDecimalScale = 2;
// Digits a decimal may have in all (Avro's decimal precision; 38 fits 128 bits).
inline constexpr int kDecimalPrecision = 38;

struct Column {
  std::string name;           // sys_dictionary.element
  std::string internal_type;  // as listed; "" for a field the dictionary never listed
  LogicalType type = LogicalType::kString;
  int64_t max_length = 0;
  int scale = kDefaultDecimalScale;  // decimal columns only
  std::string reference_table;       // reference columns only
  bool removed = false;  // no longer in sys_dictionary: kept (optional) for older readers
};

struct TableTypes {
  std::string table;
  // The table, then its super-classes up to the root (sys_db_object.super_class), as read
  // with the types. Empty in a copy stored before the chain was followed: read again.
  std::vector<std::string> chain;
  int64_t read_at_ms = 0;       // when sys_dictionary was last read
  std::vector<Column> columns;  // stable order: first read sorted by name, later ones appended

  const Column* Find(std::string_view name) const;
  // A field rows carry that sys_dictionary does not list for any table of the chain (a
  // dot-walked or computed field): typed as string so it is still written. Returns it.
  const Column& AddUnlisted(std::string_view name);

  // JSON text for the state store, and back. Decode fails on text it did not write.
  std::string Encode() const;
  static Result<TableTypes> Decode(std::string_view text);
};

// The columns of `table` from a sys_dictionary answer (rows with element, internal_type,
// max_length, reference, attributes; the row with an empty element describes the table and
// is skipped; inactive columns, active=false, are left out). A field given as
// {"value": ...} (reference or display_value=all answers) counts by its value. A row whose
// element is not a usable field name ([A-Za-z_][A-Za-z0-9_]*) is InvalidArgument naming it.
Result<TableTypes> TableTypesFromDictionary(std::string table, const boost::json::array& rows,
                                            int64_t read_at_ms);

// The same over a super-class chain (`chain` = the table first, then its parents): the rows
// of every table in it, each column typed by the nearest table that lists it (a child's
// definition wins over its parent's, whatever the order of the rows). A row whose `name` is
// not in the chain is left out; a row without `name` counts as the table's own.
Result<TableTypes> TableTypesFromDictionary(std::vector<std::string> chain,
                                            const boost::json::array& rows, int64_t read_at_ms);

// The types after a fresh read: `old`'s columns keep their place (their type taken from
// `fresh` when still listed, marked removed when not), `fresh`'s new columns are appended in
// its order. Returns true in `changed` when anything differs from `old`.
TableTypes EvolveTypes(const TableTypes& old, const TableTypes& fresh, bool* changed);

}  // namespace snowcar::source
