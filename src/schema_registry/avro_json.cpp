// SPDX-License-Identifier: Apache-2.0
#include "avro_json.h"

#include <algorithm>
#include <boost/json.hpp>
#include <cmath>
#include <optional>
#include <vector>

#include "logical_text.h"

namespace snowcar::schema_registry {
namespace {

namespace json = boost::json;

std::string AvroError() {
  const char* e = avro_strerror();
  return (e != nullptr && *e != '\0') ? std::string(e) : std::string("no detail from avro-c");
}

// Avro's JSON encoding of bytes: one character (U+0000..U+00FF) per byte.
json::string BytesAsText(const void* data, size_t size) {
  json::string out;
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < size; ++i) {
    if (p[i] < 0x80) {
      out.push_back(static_cast<char>(p[i]));
    } else {
      out.push_back(static_cast<char>(0xC0 | (p[i] >> 6)));
      out.push_back(static_cast<char>(0x80 | (p[i] & 0x3F)));
    }
  }
  return out;
}

// Avro strings are UTF-8 by the specification, but avro-c does not check: text that is not
// would make the rendered JSON invalid, so it is refused here with a message saying so.
bool IsUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t more = 0;
    uint32_t cp = 0;
    uint32_t least = 0;  // the smallest code point that needs this many bytes (no overlongs)
    if ((c & 0xE0) == 0xC0) {
      more = 1, cp = c & 0x1F, least = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
      more = 2, cp = c & 0x0F, least = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
      more = 3, cp = c & 0x07, least = 0x10000;
    } else {
      return false;
    }
    if (s.size() - i <= more) return false;
    for (size_t k = 1; k <= more; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if ((b & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (b & 0x3F);
    }
    if (cp < least || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += more + 1;
  }
  return true;
}

// avro-c reports failures as non-zero returns; any one here means a broken invariant of a
// value avro-c itself just read, so the message says so.
Status Failed(const char* what) {
  return Status::InvalidArgument(std::string("avro value could not be read (") + what +
                                 "): " + AvroError());
}

// NaN and the infinities are valid Avro but have no JSON number (Boost would write "NaN",
// which no JSON reader takes) and no meaning in a ServiceNow number field.
Status NotFinite(const char* type, double d) {
  return Status::InvalidArgument(std::string("an Avro ") + type + " is " +
                                 (std::isnan(d) ? "NaN"
                                  : d > 0       ? "+infinity"
                                                : "-infinity") +
                                 ", which JSON and the Table API have no number for");
}

// Where a value sits in the record, for messages: "opened_at", "lines[2].amount",
// "attrs[key]". Map keys are the record's text, so only a short printable part is kept.
std::string Child(const std::string& path, std::string_view name) {
  return path.empty() ? std::string(name) : path + "." + std::string(name);
}
std::string Item(const std::string& path, std::string_view key) {
  std::string out = path + "[";
  for (size_t i = 0; i < key.size() && i < 32; ++i) {
    const auto c = static_cast<unsigned char>(key[i]);
    out.push_back(c >= 0x20 && c < 0x7f ? static_cast<char>(c) : '?');
  }
  return out + (key.size() > 32 ? "...]" : "]");
}

// The value's text under its logical type, or nullopt when `node` has none or it does not
// match the value's physical type (the schema walk and avro-c disagree: render as physical).
Result<std::optional<json::value>> RenderLogical(avro_value_t& v, const LogicalNode* node,
                                                 const std::string& path) {
  if (node == nullptr || node->logical == AvroLogical::kNone) return std::optional<json::value>();
  const avro_type_t type = avro_value_get_type(&v);
  Result<std::string> text = Status::InvalidArgument("");
  switch (node->logical) {
    case AvroLogical::kNone:
      return std::optional<json::value>();
    case AvroLogical::kTimestampMillis:
    case AvroLogical::kTimestampMicros:
    case AvroLogical::kLocalTimestampMillis:
    case AvroLogical::kLocalTimestampMicros:
    case AvroLogical::kTimeMicros: {
      int64_t i = 0;
      if (type != AVRO_INT64) return std::optional<json::value>();
      if (avro_value_get_long(&v, &i) != 0) return Failed("long");
      text = node->logical == AvroLogical::kTimeMicros ? TimeText(node->logical, i)
                                                       : TimestampText(node->logical, i);
      break;
    }
    case AvroLogical::kDate:
    case AvroLogical::kTimeMillis: {
      int32_t i = 0;
      if (type != AVRO_INT32) return std::optional<json::value>();
      if (avro_value_get_int(&v, &i) != 0) return Failed("int");
      text = node->logical == AvroLogical::kDate ? DateText(i) : TimeText(node->logical, i);
      break;
    }
    case AvroLogical::kDecimal: {
      const void* b = nullptr;
      size_t size = 0;
      if (type == AVRO_BYTES) {
        if (avro_value_get_bytes(&v, &b, &size) != 0) return Failed("bytes");
      } else if (type == AVRO_FIXED) {
        if (avro_value_get_fixed(&v, &b, &size) != 0) return Failed("fixed");
      } else {
        return std::optional<json::value>();
      }
      text = DecimalText(std::string_view(static_cast<const char*>(b), size), node->scale);
      break;
    }
  }
  if (!text.ok()) {
    return text.status().WithContext("field '" + (path.empty() ? "(the value)" : path) + "'");
  }
  return std::optional<json::value>(json::string(*text));
}

// `node` is the value's place in the schema's logical types (null: none below here).
Result<json::value> Render(avro_value_t& v, const LogicalNode* node, const std::string& path,
                           int depth) {
  if (depth > 64) return Status::InvalidArgument("avro value nests deeper than 64 levels");
  SNOWCAR_ASSIGN_OR_RETURN(std::optional<json::value> logical, RenderLogical(v, node, path));
  if (logical.has_value()) return std::move(*logical);
  // The logical node of child `i` (a field or branch), or of every item when `i` is 0.
  auto child_node = [&](size_t i) -> const LogicalNode* {
    return node != nullptr && i < node->children.size() ? node->children[i] : nullptr;
  };
  switch (avro_value_get_type(&v)) {
    case AVRO_NULL:
      return json::value(nullptr);
    case AVRO_BOOLEAN: {
      int b = 0;
      if (avro_value_get_boolean(&v, &b) != 0) return Failed("boolean");
      return json::value(b != 0);
    }
    case AVRO_INT32: {
      int32_t i = 0;
      if (avro_value_get_int(&v, &i) != 0) return Failed("int");
      return json::value(static_cast<int64_t>(i));
    }
    case AVRO_INT64: {
      int64_t i = 0;
      if (avro_value_get_long(&v, &i) != 0) return Failed("long");
      return json::value(i);
    }
    case AVRO_FLOAT: {
      float f = 0;
      if (avro_value_get_float(&v, &f) != 0) return Failed("float");
      if (!std::isfinite(f)) return NotFinite("float", f);
      return json::value(static_cast<double>(f));
    }
    case AVRO_DOUBLE: {
      double d = 0;
      if (avro_value_get_double(&v, &d) != 0) return Failed("double");
      if (!std::isfinite(d)) return NotFinite("double", d);
      return json::value(d);
    }
    case AVRO_STRING: {
      const char* s = nullptr;
      size_t size = 0;  // includes the terminating NUL
      if (avro_value_get_string(&v, &s, &size) != 0) return Failed("string");
      const std::string_view text(s, size > 0 ? size - 1 : 0);
      if (!IsUtf8(text)) return Status::InvalidArgument("an Avro string is not valid UTF-8");
      return json::value(json::string(text));
    }
    case AVRO_BYTES: {
      const void* b = nullptr;
      size_t size = 0;
      if (avro_value_get_bytes(&v, &b, &size) != 0) return Failed("bytes");
      return json::value(BytesAsText(b, size));
    }
    case AVRO_FIXED: {
      const void* b = nullptr;
      size_t size = 0;
      if (avro_value_get_fixed(&v, &b, &size) != 0) return Failed("fixed");
      return json::value(BytesAsText(b, size));
    }
    case AVRO_ENUM: {
      int index = 0;
      if (avro_value_get_enum(&v, &index) != 0) return Failed("enum");
      // avro-c reads an enum's index as written, and avro_schema_enum_get does not check it:
      // an index past the symbols read memory beyond the schema's table (the fuzzer found one
      // that rendered as bytes of a pointer). The index is checked here first.
      const avro_schema_t enum_schema = avro_value_get_schema(&v);
      if (index < 0 || index >= avro_schema_enum_number_of_symbols(enum_schema)) {
        return Status::InvalidArgument("an Avro enum index (" + std::to_string(index) +
                                       ") names no symbol of its schema");
      }
      const char* symbol = avro_schema_enum_get(enum_schema, index);
      if (symbol == nullptr) return Failed("enum symbol");
      return json::value(json::string(symbol));
    }
    case AVRO_RECORD:
    case AVRO_MAP: {
      const bool is_map = avro_value_get_type(&v) == AVRO_MAP;
      size_t count = 0;
      if (avro_value_get_size(&v, &count) != 0) return Failed("record size");
      json::object o;
      for (size_t i = 0; i < count; ++i) {
        avro_value_t child;
        const char* name = nullptr;
        if (avro_value_get_by_index(&v, i, &child, &name) != 0) return Failed("field");
        const std::string_view key = name != nullptr ? name : "";
        if (is_map && !IsUtf8(key))
          return Status::InvalidArgument("an Avro map key is not valid UTF-8");
        const LogicalNode* below = child_node(is_map ? 0 : i);
        // The path only ever names a logical value, so it is built only on their way.
        const std::string at =
            below == nullptr ? std::string() : (is_map ? Item(path, key) : Child(path, key));
        SNOWCAR_ASSIGN_OR_RETURN(json::value rendered, Render(child, below, at, depth + 1));
        o[key] = std::move(rendered);
      }
      return json::value(std::move(o));
    }
    case AVRO_ARRAY: {
      size_t count = 0;
      if (avro_value_get_size(&v, &count) != 0) return Failed("array size");
      json::array a;
      for (size_t i = 0; i < count; ++i) {
        avro_value_t child;
        if (avro_value_get_by_index(&v, i, &child, nullptr) != 0) return Failed("item");
        const LogicalNode* below = child_node(0);
        const std::string at = below == nullptr ? std::string() : Item(path, std::to_string(i));
        SNOWCAR_ASSIGN_OR_RETURN(json::value rendered, Render(child, below, at, depth + 1));
        a.push_back(std::move(rendered));
      }
      return json::value(std::move(a));
    }
    case AVRO_UNION: {
      avro_value_t branch;
      int discriminant = 0;
      if (avro_value_get_discriminant(&v, &discriminant) != 0 ||
          avro_value_get_current_branch(&v, &branch) != 0) {
        return Failed("union branch");
      }
      return Render(branch, child_node(static_cast<size_t>(discriminant)), path, depth + 1);
    }
    case AVRO_LINK:
      break;
  }
  return Status::InvalidArgument("avro value of an unknown type");
}

Status DoesNotDecode(size_t size) {
  return Status::InvalidArgument("the Avro payload of " + std::to_string(size) +
                                 " bytes does not decode with its schema: " + AvroError());
}

// True when every value of `schema` encodes to no bytes at all (null, a record of such
// fields, a zero-size fixed). A link is taken as taking bytes: a record that contains itself
// takes some, or it could never be written.
bool TakesNoBytes(avro_schema_t schema) {
  switch (avro_typeof(schema)) {
    case AVRO_NULL:
      return true;
    case AVRO_FIXED:
      return avro_schema_fixed_size(schema) == 0;
    case AVRO_RECORD:
      for (size_t i = 0; i < avro_schema_record_size(schema); ++i) {
        if (!TakesNoBytes(avro_schema_record_field_get_by_index(schema, static_cast<int>(i)))) {
          return false;
        }
      }
      return true;
    default:
      return false;
  }
}

// The first array in `schema` whose items take no bytes, by a path for the message ("" when
// none). avro-c reads (and skips) an array by looping over the count its blocks claim; with
// items of no bytes, nothing bounds that count by the payload's size, and a record of a few
// bytes could claim 10^18 items and keep a pool thread busy for good.
std::string ArrayOfNothing(avro_schema_t schema, const std::string& path,
                           std::vector<avro_schema_t>& seen) {
  if (schema == nullptr) return "";
  if (is_avro_link(schema)) return "";  // its target is walked where it is defined
  if (std::find(seen.begin(), seen.end(), schema) != seen.end()) return "";
  seen.push_back(schema);
  switch (avro_typeof(schema)) {
    case AVRO_ARRAY: {
      avro_schema_t items = avro_schema_array_items(schema);
      if (TakesNoBytes(items)) return path.empty() ? "the top-level array" : path;
      return ArrayOfNothing(items, path + "[]", seen);
    }
    case AVRO_MAP:
      return ArrayOfNothing(avro_schema_map_values(schema), path + "{}", seen);
    case AVRO_UNION:
      for (size_t i = 0; i < avro_schema_union_size(schema); ++i) {
        std::string found =
            ArrayOfNothing(avro_schema_union_branch(schema, static_cast<int>(i)), path, seen);
        if (!found.empty()) return found;
      }
      return "";
    case AVRO_RECORD:
      for (size_t i = 0; i < avro_schema_record_size(schema); ++i) {
        const char* name = avro_schema_record_field_name(schema, static_cast<int>(i));
        std::string found =
            ArrayOfNothing(avro_schema_record_field_get_by_index(schema, static_cast<int>(i)),
                           (path.empty() ? "" : path + ".") + (name != nullptr ? name : "?"), seen);
        if (!found.empty()) return found;
      }
      return "";
    default:
      return "";
  }
}

}  // namespace

Result<std::unique_ptr<AvroReaderSchema>> AvroReaderSchema::Parse(std::string_view schema_json) {
  std::unique_ptr<AvroReaderSchema> s(new AvroReaderSchema());
  if (avro_schema_from_json_length(schema_json.data(), schema_json.size(), &s->schema_) != 0) {
    s->schema_ = nullptr;
    return Status::InvalidArgument("not an Avro schema: " + AvroError());
  }
  std::vector<avro_schema_t> seen;
  if (const std::string where = ArrayOfNothing(s->schema_, "", seen); !where.empty()) {
    return Status::InvalidArgument("the Avro schema has an array whose items take no bytes (" +
                                   where +
                                   "): its item count cannot be checked against the payload, "
                                   "so values of this schema are refused");
  }
  s->iface_ = avro_generic_class_from_schema(s->schema_);
  if (s->iface_ == nullptr) {
    return Status::InvalidArgument("avro-c cannot read values of this schema: " + AvroError());
  }
  SNOWCAR_ASSIGN_OR_RETURN(s->logical_, AvroLogicalTypes::Parse(schema_json));
  return s;
}

AvroReaderSchema::~AvroReaderSchema() {
  if (iface_ != nullptr) avro_value_iface_decref(iface_);
  if (schema_ != nullptr) avro_schema_decref(schema_);
}

Result<std::string> AvroReaderSchema::ToJson(std::string_view payload) {
  std::lock_guard lock(mu_);
  // avro-c's reader allocates a string or bytes buffer of whatever length the payload claims
  // before it finds the payload shorter, and does not free it on that error: a hostile
  // record could make it allocate gigabytes and leak them. Skipping the value first only
  // moves a cursor and refuses every length that runs past the end, so the read below sees
  // only lengths the payload holds.
  avro_reader_t probe = avro_reader_memory(payload.data(), static_cast<int64_t>(payload.size()));
  const int skipped = avro_skip_data(probe, schema_);
  // A whole value must use up the payload: bytes left over mean it was written with another
  // schema than the one its id names. avro-c has no call for the position, but a reader at
  // the end refuses to skip even one more byte.
  const bool leftover = skipped == 0 && avro_skip(probe, 1) == 0;
  avro_reader_free(probe);
  if (skipped != 0) return DoesNotDecode(payload.size());
  if (leftover) {
    return Status::InvalidArgument(
        "the Avro payload has bytes left over after its value: it was "
        "not written with the schema its id names");
  }
  avro_value_t value;
  if (avro_generic_value_new(iface_, &value) != 0) {
    return Status::Internal("avro-c could not make a value: " + AvroError());
  }
  avro_reader_t reader = avro_reader_memory(payload.data(), static_cast<int64_t>(payload.size()));
  const int read = avro_value_read(reader, &value);
  avro_reader_free(reader);
  Result<std::string> out = Status::InvalidArgument("");
  if (read != 0) {
    out = DoesNotDecode(payload.size());
  } else {
    auto rendered = Render(value, logical_->root(), "", 0);
    if (!rendered.ok()) {
      out = rendered.status();
    } else if (rendered->is_string() && avro_value_get_type(&value) == AVRO_STRING) {
      out = std::string(rendered->as_string());
    } else {
      out = json::serialize(*rendered);
    }
  }
  avro_value_decref(&value);
  return out;
}

}  // namespace snowcar::schema_registry
