// SPDX-License-Identifier: Apache-2.0
// TableSchema: system fields, name lookup, projection.
#include "snowcar/testbed/emulator/table_store_schema.h"

#include <utility>

namespace snowcar::emulator {
namespace {

FieldDef SystemField(std::string name, FieldKind kind, std::string def = "") {
  FieldDef f;
  f.name = std::move(name);
  f.kind = kind;
  f.default_value = std::move(def);
  f.system = true;
  return f;
}

// A non-system string field (sys_domain and friends are client-writable).
FieldDef Plain(std::string name, std::string def) {
  FieldDef f;
  f.name = std::move(name);
  f.default_value = std::move(def);
  return f;
}

}  // namespace

std::string_view FieldKindName(FieldKind kind) {
  switch (kind) {
    case FieldKind::kString:
      return "string";
    case FieldKind::kInteger:
      return "integer";
    case FieldKind::kDateTime:
      return "date-time";
    case FieldKind::kReference:
      return "reference";
    case FieldKind::kChoice:
      return "choice";
    case FieldKind::kBoolean:
      return "boolean";
  }
  return "unknown";
}

std::string InternalTypeOf(const FieldDef& field) {
  if (!field.internal_type.empty()) return field.internal_type;
  switch (field.kind) {
    case FieldKind::kString:
      return "string";
    case FieldKind::kInteger:
      return "integer";
    case FieldKind::kDateTime:
      return "glide_date_time";
    case FieldKind::kReference:
      return "reference";
    case FieldKind::kChoice:
      return field.numeric_choice ? "integer" : "string";
    case FieldKind::kBoolean:
      return "boolean";
  }
  return "string";
}

int64_t MaxLengthOf(const FieldDef& field) {
  if (field.max_length > 0) return field.max_length;
  if (field.kind == FieldKind::kReference) return 32;
  return 40;
}

const std::string* FieldDef::ChoiceLabel(std::string_view value) const {
  for (const Choice& c : choices) {
    if (c.value == value) return &c.label;
  }
  return nullptr;
}

TableSchema::TableSchema(std::string name, std::string label, std::vector<FieldDef> fields,
                         bool task_like, const std::string& display_field,
                         std::string number_prefix)
    : name_(std::move(name)),
      label_(std::move(label)),
      task_like_(task_like),
      number_prefix_(std::move(number_prefix)) {
  fields_.push_back(SystemField("sys_id", FieldKind::kString));
  fields_.back().internal_type = "GUID";
  fields_.back().max_length = 32;
  fields_.push_back(SystemField("sys_created_on", FieldKind::kDateTime));
  fields_.push_back(SystemField("sys_created_by", FieldKind::kString));
  fields_.push_back(SystemField("sys_updated_on", FieldKind::kDateTime));
  fields_.push_back(SystemField("sys_updated_by", FieldKind::kString));
  fields_.push_back(SystemField("sys_mod_count", FieldKind::kInteger, "0"));
  fields_.push_back(SystemField("sys_class_name", FieldKind::kString, name_));
  fields_.back().internal_type = "sys_class_name";
  fields_.back().max_length = 80;
  if (task_like_) {
    FieldDef domain = Plain(std::string("sys_domain"), std::string("global"));
    domain.kind = FieldKind::kReference;
    domain.reference_table = std::string("sys_user_group");
    domain.internal_type = "domain_id";
    fields_.push_back(std::move(domain));
    fields_.push_back(Plain(std::string("sys_domain_path"), std::string("/")));
    fields_.back().internal_type = "domain_path";
    fields_.back().max_length = 255;
    fields_.push_back(Plain(std::string("sys_tags"), std::string()));
  }
  for (FieldDef& f : fields) fields_.push_back(std::move(f));
  for (size_t i = 0; i < fields_.size(); ++i) by_name_.emplace(fields_[i].name, i);
  if (auto d = IndexOf(display_field)) display_index_ = *d;
  if (!number_prefix_.empty()) number_index_ = IndexOf("number");
}

std::optional<size_t> TableSchema::IndexOf(std::string_view field_name) const {
  auto it = by_name_.find(field_name);
  if (it == by_name_.end()) return std::nullopt;
  return it->second;
}

std::vector<size_t> TableSchema::Project(const std::vector<std::string>& names) const {
  std::vector<size_t> out;
  std::vector<bool> seen(fields_.size(), false);
  for (const std::string& n : names) {
    auto i = IndexOf(n);
    if (!i || seen[*i]) continue;
    seen[*i] = true;
    out.push_back(*i);
  }
  if (out.empty()) {
    out.resize(fields_.size());
    for (size_t i = 0; i < out.size(); ++i) out[i] = i;
  }
  return out;
}

std::shared_ptr<const TableSchema> TableSchema::WithField(std::string field_name) const {
  auto copy = std::make_shared<TableSchema>(*this);
  FieldDef f;
  f.name = std::move(field_name);
  copy->by_name_.emplace(f.name, copy->fields_.size());
  copy->fields_.push_back(std::move(f));
  return copy;
}

bool IsValidTableName(std::string_view table) {
  if (table.empty() || table.size() > 80) return false;
  if (table[0] < 'a' || table[0] > 'z') return false;
  for (char c : table) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

}  // namespace snowcar::emulator
