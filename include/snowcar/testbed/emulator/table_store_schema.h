// SPDX-License-Identifier: Apache-2.0
// Table schemas and immutable rows of the ServiceNow emulator.
//
// A schema says, per field, how values compare (strings, integers, date-times), how they are
// rendered (references become {link,value}, choices have display labels) and what an insert
// fills in. Every table starts with the same seven system fields at fixed positions, so the
// hot paths (index, rendering) never look them up by name.
//
// A Row is an immutable, compact value list (one allocation holding offsets and characters).
// Updates build a new Row and swap it in, so a page handed to a renderer stays valid and
// consistent while writers carry on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace snowcar::emulator {

// Hash for string-keyed maps that look up by std::string_view without building a string.
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

// Field values as given by a client or a seed file, in the order given.
using Fields = std::vector<std::pair<std::string, std::string>>;

enum class FieldKind {
  kString,
  kInteger,    // compares as a number when both sides look numeric
  kDateTime,   // "YYYY-MM-DD HH:MM:SS" UTC; its text order is its time order
  kReference,  // sys_id of a row in `reference_table`
  kChoice,     // stored value with a display label
  kBoolean,    // "true" / "false"
};

std::string_view FieldKindName(FieldKind kind);

struct Choice {
  std::string value;
  std::string label;
};

// The default of date-time fields such as opened_at: the store puts in the time of the
// insert, as an instance does for this script default.
inline constexpr std::string_view kNowDefault = "javascript:gs.nowDateTime()";

struct FieldDef {
  std::string name;
  FieldKind kind = FieldKind::kString;
  std::string reference_table;  // kReference only
  std::vector<Choice> choices;  // kChoice only
  std::string default_value;    // filled in on insert when the client gives no value
  bool numeric_choice = false;  // kChoice whose values are integers (priority, state, ...)
  bool system = false;          // maintained by the store (sys_created_on, sys_mod_count, ...)
  // sys_dictionary's internal_type when the kind alone does not say it (GUID, currency, ...);
  // empty: derived from the kind (InternalTypeOf).
  std::string internal_type;
  int64_t max_length = 0;  // sys_dictionary's max_length; 0: the kind's usual length

  // Integer fields and integer-valued choices compare numerically.
  bool CompareAsNumber() const {
    return kind == FieldKind::kInteger || (kind == FieldKind::kChoice && numeric_choice);
  }
  // The display label of a choice value, or nullptr when the value has none.
  const std::string* ChoiceLabel(std::string_view value) const;
};

class TableSchema {
 public:
  // Fixed positions of the system fields every table has.
  static constexpr size_t kSysId = 0;
  static constexpr size_t kSysCreatedOn = 1;
  static constexpr size_t kSysCreatedBy = 2;
  static constexpr size_t kSysUpdatedOn = 3;
  static constexpr size_t kSysUpdatedBy = 4;
  static constexpr size_t kSysModCount = 5;
  static constexpr size_t kSysClassName = 6;
  static constexpr size_t kFirstTableField = 7;

  // Builds a schema: the seven system fields, then (task-like tables) sys_domain and sys_tags,
  // then `fields` in order. `display_field` names the field shown as a row's display value
  // (e.g. "number" for incident, "name" for sys_user); empty means sys_id.
  TableSchema(std::string name, std::string label, std::vector<FieldDef> fields, bool task_like,
              const std::string& display_field, std::string number_prefix = "");

  const std::string& name() const { return name_; }
  // Human label, e.g. "Incident" (the display value of sys_class_name).
  const std::string& label() const { return label_; }
  bool task_like() const { return task_like_; }
  // Prefix of auto-assigned numbers ("INC" → INC0010001); empty when the table has none.
  const std::string& number_prefix() const { return number_prefix_; }
  const std::vector<FieldDef>& fields() const { return fields_; }
  const FieldDef& field(size_t index) const { return fields_[index]; }
  size_t size() const { return fields_.size(); }
  std::optional<size_t> IndexOf(std::string_view field_name) const;
  // Index of the display field (sys_id when the table names none).
  size_t display_index() const { return display_index_; }
  // Index of "number" when the table auto-numbers, else nullopt.
  std::optional<size_t> number_index() const { return number_index_; }

  // Schema indices for a sysparm_fields list: unknown names dropped, duplicates kept once,
  // order as requested. An empty list, or one where no name is known, means every field.
  std::vector<size_t> Project(const std::vector<std::string>& names) const;

  // A copy with one more string field appended (generic tables learn fields from writes).
  std::shared_ptr<const TableSchema> WithField(std::string field_name) const;

 private:
  std::string name_;
  std::string label_;
  bool task_like_ = false;
  std::string number_prefix_;
  std::vector<FieldDef> fields_;
  std::unordered_map<std::string, size_t, StringHash, std::equal_to<>> by_name_;
  size_t display_index_ = kSysId;
  std::optional<size_t> number_index_;
};

// What the emulator's sys_dictionary lists for a field: the instance's internal_type (string,
// integer, boolean, glide_date_time, reference, GUID, ...; an integer-valued choice is an
// integer column, another choice a string one) and max_length.
std::string InternalTypeOf(const FieldDef& field);
int64_t MaxLengthOf(const FieldDef& field);

// Realistic schema of a table the emulator knows (incident, change_request, problem,
// sys_user, sys_user_group, cmdb_ci), or nullptr.
std::shared_ptr<const TableSchema> KnownTableSchema(std::string_view table);
// Known schema when there is one, else the generic schema (system fields plus a few common
// string fields; more fields are added as writes name them).
std::shared_ptr<const TableSchema> SchemaForTable(std::string_view table);
// True for names ServiceNow would accept as a table name: [a-z0-9_]+ starting with a letter.
bool IsValidTableName(std::string_view table);

// An immutable row: value i belongs to schema field i; positions past the end read as "".
class Row : public std::enable_shared_from_this<Row> {
  struct Private {};

 public:
  static std::shared_ptr<const Row> Make(const std::vector<std::string_view>& values);
  static std::shared_ptr<const Row> Make(const std::vector<std::string>& values);

  size_t size() const { return count_; }
  std::string_view Get(size_t index) const {
    if (index >= count_) return {};
    const uint32_t* off = Offsets();
    return std::string_view(Chars() + off[index], off[index + 1] - off[index]);
  }
  std::string_view sys_id() const { return Get(TableSchema::kSysId); }
  std::string_view sys_updated_on() const { return Get(TableSchema::kSysUpdatedOn); }
  // The whole encoded row (offsets and characters), e.g. to prefetch it before rendering.
  std::string_view Bytes() const { return buf_; }
  // All values as owned strings (for tests and copy-modify-write).
  std::vector<std::string> Values() const;

  Row(Private, size_t count, std::string buffer) : count_(count), buf_(std::move(buffer)) {}

 private:
  const uint32_t* Offsets() const { return reinterpret_cast<const uint32_t*>(buf_.data()); }
  const char* Chars() const { return buf_.data() + (count_ + 1) * sizeof(uint32_t); }

  size_t count_ = 0;
  std::string buf_;  // uint32 offsets[count + 1], then the characters
};

using RowPtr = std::shared_ptr<const Row>;

// Resolves the display value of a referenced row (e.g. a sys_user's name) for rendering
// with sysparm_display_value. TableStore implements it.
class DisplayLookup {
 public:
  virtual ~DisplayLookup() = default;
  // The display value of `sys_id` in `table`; "" when there is no such row.
  virtual std::string DisplayOf(std::string_view table, std::string_view sys_id) const = 0;
};

}  // namespace snowcar::emulator
