// SPDX-License-Identifier: Apache-2.0
#include "avro_logical.h"

#include <boost/json.hpp>
#include <map>
#include <string>

namespace snowcar::schema_registry {

namespace json = boost::json;

std::string_view AvroLogicalName(AvroLogical logical) {
  switch (logical) {
    case AvroLogical::kNone:
      return "none";
    case AvroLogical::kTimestampMillis:
      return "timestamp-millis";
    case AvroLogical::kTimestampMicros:
      return "timestamp-micros";
    case AvroLogical::kLocalTimestampMillis:
      return "local-timestamp-millis";
    case AvroLogical::kLocalTimestampMicros:
      return "local-timestamp-micros";
    case AvroLogical::kDate:
      return "date";
    case AvroLogical::kTimeMillis:
      return "time-millis";
    case AvroLogical::kTimeMicros:
      return "time-micros";
    case AvroLogical::kDecimal:
      return "decimal";
  }
  return "none";
}

namespace {

bool IsPrimitive(std::string_view t) {
  return t == "null" || t == "boolean" || t == "int" || t == "long" || t == "float" ||
         t == "double" || t == "bytes" || t == "string";
}

// The logical type `name` on physical type `physical`, or kNone when this reader does not
// know it or it does not belong on that type (both mean: use the physical type).
AvroLogical LogicalFor(std::string_view name, std::string_view physical) {
  if (physical == "long") {
    if (name == "timestamp-millis") return AvroLogical::kTimestampMillis;
    if (name == "timestamp-micros") return AvroLogical::kTimestampMicros;
    if (name == "local-timestamp-millis") return AvroLogical::kLocalTimestampMillis;
    if (name == "local-timestamp-micros") return AvroLogical::kLocalTimestampMicros;
    if (name == "time-micros") return AvroLogical::kTimeMicros;
  }
  if (physical == "int") {
    if (name == "date") return AvroLogical::kDate;
    if (name == "time-millis") return AvroLogical::kTimeMillis;
  }
  if ((physical == "bytes" || physical == "fixed") && name == "decimal")
    return AvroLogical::kDecimal;
  return AvroLogical::kNone;  // uuid among them: its string is written as it is
}

const json::string* StringMember(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr ? v->if_string() : nullptr;
}

}  // namespace

// Compiles the schema JSON into LogicalNodes, keeping the named types seen so far so a
// reference (a name in place of a type) resolves to the node of its definition.
class LogicalSchemaWalker {
 public:
  explicit LogicalSchemaWalker(AvroLogicalTypes& out) : out_(out) {}

  Result<const LogicalNode*> Compile(const json::value& schema, const std::string& ns) {
    if (const json::string* s = schema.if_string()) return Reference(*s, ns);
    if (const json::array* branches = schema.if_array()) {
      LogicalNode& node = out_.nodes_.emplace_back();
      for (const json::value& b : *branches) {
        SNOWCAR_ASSIGN_OR_RETURN(const LogicalNode* child, Compile(b, ns));
        node.children.push_back(child);
      }
      return &node;
    }
    const json::object* o = schema.if_object();
    if (o == nullptr) return nullptr;
    const json::value* type = o->if_contains("type");
    if (type == nullptr) return nullptr;
    const json::string* type_name = type->if_string();
    // {"type": {...}} or {"type": [...]}: the annotations belong to the inner type.
    if (type_name == nullptr) return Compile(*type, ns);
    if (*type_name == "record" || *type_name == "error") return Record(*o, ns);
    if (*type_name == "enum") {
      Define(*o, ns, nullptr);
      return nullptr;
    }
    if (*type_name == "fixed") {
      LogicalNode* node = nullptr;
      SNOWCAR_ASSIGN_OR_RETURN(node, Annotated(*o, "fixed"));
      Define(*o, ns, node);
      return node;
    }
    if (*type_name == "array" || *type_name == "map") {
      const json::value* inner = o->if_contains(*type_name == "array" ? "items" : "values");
      if (inner == nullptr) return nullptr;
      LogicalNode& node = out_.nodes_.emplace_back();
      SNOWCAR_ASSIGN_OR_RETURN(const LogicalNode* child, Compile(*inner, ns));
      node.children.push_back(child);
      return &node;
    }
    if (IsPrimitive(*type_name)) {
      SNOWCAR_ASSIGN_OR_RETURN(LogicalNode * node, Annotated(*o, *type_name));
      return node;
    }
    // {"type": "SomeNamedType"}: a reference written as an object.
    return Reference(*type_name, ns);
  }

 private:
  // A node for a primitive or fixed type object carrying a usable logicalType, else null.
  Result<LogicalNode*> Annotated(const json::object& o, std::string_view physical) {
    const json::string* name = StringMember(o, "logicalType");
    if (name == nullptr) return nullptr;
    const AvroLogical logical = LogicalFor(*name, physical);
    if (logical == AvroLogical::kNone) return nullptr;
    int64_t scale = 0;
    if (logical == AvroLogical::kDecimal) {
      // The specification's rules for a valid decimal: scale 0 <= scale <= precision. An
      // absent scale is 0; an absent precision is tolerated (the scale is all rendering needs).
      const json::value* s = o.if_contains("scale");
      const json::value* p = o.if_contains("precision");
      if (s != nullptr && !s->is_int64()) return nullptr;
      if (p != nullptr && (!p->is_int64() || p->as_int64() < 1)) return nullptr;
      scale = s != nullptr ? s->as_int64() : 0;
      if (scale < 0 || (p != nullptr && scale > p->as_int64())) return nullptr;
      if (scale > AvroLogicalTypes::kMaxDecimalScale) {
        return Status::InvalidArgument("the schema has a decimal with scale " +
                                       std::to_string(scale) + "; this reader takes at most " +
                                       std::to_string(AvroLogicalTypes::kMaxDecimalScale));
      }
    }
    LogicalNode& node = out_.nodes_.emplace_back();
    node.logical = logical;
    node.scale = static_cast<int32_t>(scale);
    return &node;
  }

  Result<const LogicalNode*> Record(const json::object& o, const std::string& ns) {
    LogicalNode& node = out_.nodes_.emplace_back();
    // Defined before its fields are read, so a field of the record's own type finds it.
    const std::string inner_ns = Define(o, ns, &node);
    const json::value* fields = o.if_contains("fields");
    if (fields == nullptr || !fields->is_array()) return &node;
    for (const json::value& f : fields->get_array()) {
      const json::object* field = f.if_object();
      const json::value* type = field != nullptr ? field->if_contains("type") : nullptr;
      const LogicalNode* child = nullptr;
      if (type != nullptr) {
        SNOWCAR_ASSIGN_OR_RETURN(child, Compile(*type, inner_ns));
      }
      node.children.push_back(child);
    }
    return &node;
  }

  // Records the named type of `o` under its full name and returns the namespace its own
  // definitions inherit: a dotted name carries its namespace, else `namespace`, else the
  // enclosing one.
  std::string Define(const json::object& o, const std::string& ns, const LogicalNode* node) {
    const json::string* name = StringMember(o, "name");
    if (name == nullptr) return ns;
    std::string full(name->data(), name->size());
    std::string own_ns = ns;
    if (const size_t dot = full.rfind('.'); dot != std::string::npos) {
      own_ns = full.substr(0, dot);
    } else {
      if (const json::string* n = StringMember(o, "namespace")) own_ns.assign(n->data(), n->size());
      if (!own_ns.empty()) full = own_ns + "." + full;
    }
    named_.emplace(full, node);
    return own_ns;
  }

  // A type given by name: a primitive, or a named type defined earlier (looked up in the
  // enclosing namespace first, then as written).
  const LogicalNode* Reference(std::string_view name, const std::string& ns) {
    if (IsPrimitive(name)) return nullptr;
    if (name.find('.') == std::string_view::npos && !ns.empty()) {
      if (auto it = named_.find(ns + "." + std::string(name)); it != named_.end()) {
        return it->second;
      }
    }
    auto it = named_.find(std::string(name));
    return it != named_.end() ? it->second : nullptr;
  }

  AvroLogicalTypes& out_;
  std::map<std::string, const LogicalNode*> named_;
};

Result<std::unique_ptr<AvroLogicalTypes>> AvroLogicalTypes::Parse(std::string_view schema_json) {
  json::parse_options options;
  options.max_depth = 1024;  // avro-c's own limit is far deeper than Boost's default of 32
  json::error_code ec;
  const json::value schema = json::parse(schema_json, ec, {}, options);
  if (ec) return Status::InvalidArgument("the Avro schema is not JSON: " + ec.message());
  std::unique_ptr<AvroLogicalTypes> types(new AvroLogicalTypes());
  LogicalSchemaWalker walker(*types);
  SNOWCAR_ASSIGN_OR_RETURN(const LogicalNode* root, walker.Compile(schema, ""));
  for (const LogicalNode& n : types->nodes_) {
    // Only a schema that has a logical type somewhere needs walking beside its values.
    if (n.logical != AvroLogical::kNone) {
      types->root_ = root;
      break;
    }
  }
  return types;
}

}  // namespace snowcar::schema_registry
