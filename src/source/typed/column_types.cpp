// SPDX-License-Identifier: Apache-2.0
// sys_dictionary rows (of a table and its super-classes) -> TableTypes, the internal_type mapping,
// evolution and the state-store encoding of the types.
#include "snowcar/source/typed/column_types.h"

#include <algorithm>
#include <boost/json.hpp>
#include <cstdlib>
#include <map>

namespace snowcar::source {
namespace {

bool IsFieldName(std::string_view name) {
  if (name.empty()) return false;
  const auto alpha = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
  };
  if (!alpha(name.front())) return false;
  return std::all_of(name.begin(), name.end(),
                     [&](char c) { return alpha(c) || (c >= '0' && c <= '9'); });
}

// A field of a sys_dictionary row as text: a string, a number, or {"value": ...}.
std::string TextOf(const boost::json::object& row, std::string_view name) {
  const boost::json::value* v = row.if_contains(name);
  if (v == nullptr) return "";
  if (v->is_object()) {
    v = v->get_object().if_contains("value");
    if (v == nullptr) return "";
  }
  if (v->is_string()) return std::string(v->get_string());
  if (v->is_int64()) return std::to_string(v->get_int64());
  if (v->is_bool()) return v->get_bool() ? "true" : "false";
  return "";
}

// `scale=N` in a dictionary attributes list ("edge_encryption_enabled=true,scale=4").
int ScaleOf(std::string_view attributes, int fallback) {
  size_t pos = 0;
  while (pos <= attributes.size()) {
    size_t end = attributes.find(',', pos);
    if (end == std::string_view::npos) end = attributes.size();
    std::string_view item = attributes.substr(pos, end - pos);
    if (item.starts_with("scale=")) {
      const int n = std::atoi(std::string(item.substr(6)).c_str());
      if (n >= 0 && n <= kDecimalPrecision) return n;
    }
    pos = end + 1;
  }
  return fallback;
}

Column ColumnFrom(std::string name, std::string internal_type, int64_t max_length,
                  std::string reference, std::string_view attributes) {
  Column c;
  c.name = std::move(name);
  c.type = LogicalTypeFor(internal_type);
  c.internal_type = std::move(internal_type);
  c.max_length = max_length;
  if (c.type == LogicalType::kDecimal) c.scale = ScaleOf(attributes, kDefaultDecimalScale);
  if (c.type == LogicalType::kReference) c.reference_table = std::move(reference);
  return c;
}

bool SameType(const Column& a, const Column& b) {
  return a.type == b.type && a.internal_type == b.internal_type && a.scale == b.scale &&
         a.reference_table == b.reference_table && a.max_length == b.max_length;
}

}  // namespace

std::string_view LogicalTypeName(LogicalType type) {
  switch (type) {
    case LogicalType::kString:
      return "string";
    case LogicalType::kInteger:
      return "integer";
    case LogicalType::kBoolean:
      return "boolean";
    case LogicalType::kDecimal:
      return "decimal";
    case LogicalType::kDouble:
      return "double";
    case LogicalType::kTimestamp:
      return "timestamp";
    case LogicalType::kDate:
      return "date";
    case LogicalType::kReference:
      return "reference";
  }
  return "string";
}

LogicalType LogicalTypeFor(std::string_view t) {
  if (t == "integer" || t == "longint") return LogicalType::kInteger;
  if (t == "boolean") return LogicalType::kBoolean;
  if (t == "decimal" || t == "currency" || t == "price") return LogicalType::kDecimal;
  if (t == "float") return LogicalType::kDouble;
  // due_date holds a date and a time on an instance ("2026-03-01 17:00:00"), like
  // glide_date_time: a date alone would lose the time.
  if (t == "glide_date_time" || t == "due_date") return LogicalType::kTimestamp;
  if (t == "glide_date") return LogicalType::kDate;
  if (t == "reference") return LogicalType::kReference;
  return LogicalType::kString;
}

const Column* TableTypes::Find(std::string_view name) const {
  for (const Column& c : columns) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

const Column& TableTypes::AddUnlisted(std::string_view name) {
  Column c;
  c.name = std::string(name);
  columns.push_back(std::move(c));
  return columns.back();
}

Result<TableTypes> TableTypesFromDictionary(std::string table, const boost::json::array& rows,
                                            int64_t read_at_ms) {
  return TableTypesFromDictionary(std::vector<std::string>{std::move(table)}, rows, read_at_ms);
}

Result<TableTypes> TableTypesFromDictionary(std::vector<std::string> chain,
                                            const boost::json::array& rows, int64_t read_at_ms) {
  TableTypes out;
  out.table = chain.empty() ? std::string() : chain.front();
  out.chain = std::move(chain);
  out.read_at_ms = read_at_ms;
  std::map<std::string, size_t> depth_of;  // element -> depth in the chain of its column
  for (const boost::json::value& v : rows) {
    const boost::json::object* row = v.if_object();
    if (row == nullptr) return Status::InvalidArgument("a sys_dictionary row is not an object");
    std::string element = TextOf(*row, "element");
    if (element.empty()) continue;  // the row describing the table itself
    if (TextOf(*row, "active") == "false") continue;
    const std::string name = TextOf(*row, "name");
    const auto in_chain = std::find(out.chain.begin(), out.chain.end(), name);
    if (!name.empty() && in_chain == out.chain.end()) continue;
    const size_t depth = name.empty() ? 0 : static_cast<size_t>(in_chain - out.chain.begin());
    if (!IsFieldName(element)) {
      return Status::InvalidArgument("sys_dictionary lists the column '" + element + "' of " +
                                     (name.empty() ? out.table : name) +
                                     ", which is not a field name a typed record can carry");
    }
    const auto known = depth_of.find(element);
    // A column listed twice in one table: the first row counts; by a parent and a child: the
    // child's (an instance lets a table override an inherited column's definition).
    if (known != depth_of.end() && known->second <= depth) continue;
    const std::string max_length = TextOf(*row, "max_length");
    Column c = ColumnFrom(element, TextOf(*row, "internal_type"), std::atoll(max_length.c_str()),
                          TextOf(*row, "reference"), TextOf(*row, "attributes"));
    if (known != depth_of.end()) {
      // Listed once so far: exactly one column has the name.
      auto have = std::find_if(out.columns.begin(), out.columns.end(),
                               [&](const Column& x) { return x.name == element; });
      *have = std::move(c);
    } else {
      out.columns.push_back(std::move(c));
    }
    depth_of[element] = depth;
  }
  std::sort(out.columns.begin(), out.columns.end(),
            [](const Column& a, const Column& b) { return a.name < b.name; });
  return out;
}

TableTypes EvolveTypes(const TableTypes& old, const TableTypes& fresh, bool* changed) {
  TableTypes out;
  out.table = fresh.table;
  out.chain = fresh.chain;
  out.read_at_ms = fresh.read_at_ms;
  bool differs = false;
  for (const Column& c : old.columns) {
    const Column* now = fresh.Find(c.name);
    if (now != nullptr) {
      differs = differs || c.removed || !SameType(c, *now);
      out.columns.push_back(*now);
    } else if (c.internal_type.empty()) {
      out.columns.push_back(c);  // never listed: stays an unlisted string field
    } else {
      Column kept = c;
      differs = differs || !c.removed;
      kept.removed = true;
      out.columns.push_back(std::move(kept));
    }
  }
  for (const Column& c : fresh.columns) {
    if (old.Find(c.name) == nullptr) {
      out.columns.push_back(c);
      differs = true;
    }
  }
  if (changed != nullptr) *changed = differs;
  return out;
}

std::string TableTypes::Encode() const {
  boost::json::object o;
  o["v"] = 1;
  o["table"] = table;
  o["read_at_ms"] = read_at_ms;
  boost::json::array names;
  for (const std::string& t : chain) names.emplace_back(t);
  o["chain"] = std::move(names);
  boost::json::array cols;
  for (const Column& c : columns) {
    boost::json::object j;
    j["name"] = c.name;
    j["internal_type"] = c.internal_type;
    j["max_length"] = c.max_length;
    j["scale"] = c.scale;
    j["reference"] = c.reference_table;
    j["removed"] = c.removed;
    cols.push_back(std::move(j));
  }
  o["columns"] = std::move(cols);
  return boost::json::serialize(o);
}

Result<TableTypes> TableTypes::Decode(std::string_view text) {
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(text, ec);
  const boost::json::object* o = ec ? nullptr : v.if_object();
  const auto bad = [] { return Status::DataLoss("stored column types are not readable"); };
  if (o == nullptr || !o->contains("v") || !o->at("v").is_int64() || o->at("v").get_int64() != 1)
    return bad();
  TableTypes out;
  try {
    out.table = std::string(o->at("table").as_string());
    out.read_at_ms = o->at("read_at_ms").as_int64();
    if (const boost::json::value* names =
            o->if_contains("chain")) {  // absent when stored before the chain was followed
      for (const boost::json::value& t : names->as_array()) {
        out.chain.emplace_back(t.as_string());
      }
    }
    for (const boost::json::value& cv : o->at("columns").as_array()) {
      const boost::json::object& j = cv.as_object();
      Column c;
      c.name = std::string(j.at("name").as_string());
      c.internal_type = std::string(j.at("internal_type").as_string());
      c.type = LogicalTypeFor(c.internal_type);
      c.max_length = j.at("max_length").as_int64();
      c.scale = static_cast<int>(j.at("scale").as_int64());
      c.reference_table = std::string(j.at("reference").as_string());
      c.removed = j.at("removed").as_bool();
      out.columns.push_back(std::move(c));
    }
  } catch (const std::exception&) {
    return bad();
  }
  return out;
}

}  // namespace snowcar::source
