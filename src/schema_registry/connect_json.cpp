// SPDX-License-Identifier: Apache-2.0
#include "connect_json.h"

#include <boost/json.hpp>
#include <boost/json/basic_parser_impl.hpp>
#include <charconv>
#include <vector>

#include "logical_text.h"
#include "snowcar/common/base64.h"

namespace snowcar::schema_registry {

namespace json = boost::json;
using Kind = ConnectJsonNode::Kind;

namespace {

Kind KindOfTitle(std::string_view title) {
  if (title == "org.apache.kafka.connect.data.Timestamp") return Kind::kTimestamp;
  if (title == "org.apache.kafka.connect.data.Date") return Kind::kDate;
  if (title == "org.apache.kafka.connect.data.Time") return Kind::kTime;
  if (title == "org.apache.kafka.connect.data.Decimal") return Kind::kDecimal;
  return Kind::kNone;
}

std::string_view KindName(Kind kind) {
  switch (kind) {
    case Kind::kTimestamp:
      return "Connect Timestamp";
    case Kind::kDate:
      return "Connect Date";
    case Kind::kTime:
      return "Connect Time";
    case Kind::kDecimal:
      return "Connect Decimal";
    case Kind::kNone:
      break;
  }
  return "value";
}

bool IsNullSchema(const json::value& v) {
  const json::object* o = v.if_object();
  const json::value* t = o != nullptr ? o->if_contains("type") : nullptr;
  return t != nullptr && t->is_string() && t->get_string() == "null";
}

}  // namespace

// Compiles the schema into nodes; a node is kept only where a logical value can be below it.
class ConnectSchemaWalker {
 public:
  explicit ConnectSchemaWalker(ConnectJsonTypes& out) : out_(out) {}

  Result<const ConnectJsonNode*> Compile(const json::value& schema) {
    const json::object* o = schema.if_object();
    if (o == nullptr) return nullptr;
    // Connect writes an optional field as oneOf [null, the type]: the type is what counts.
    for (const char* combiner : {"oneOf", "anyOf"}) {
      const json::value* branches = o->if_contains(combiner);
      if (branches == nullptr || !branches->is_array()) continue;
      const json::value* only = nullptr;
      size_t others = 0;
      for (const json::value& b : branches->get_array()) {
        if (!IsNullSchema(b)) {
          only = &b;
          ++others;
        }
      }
      return others == 1 ? Compile(*only) : nullptr;
    }
    ConnectJsonNode node;
    if (const json::value* title = o->if_contains("title");
        title != nullptr && title->is_string()) {
      node.kind = KindOfTitle(title->get_string());
    }
    if (node.kind == Kind::kDecimal) {
      SNOWCAR_ASSIGN_OR_RETURN(node.scale, DecimalScale(*o));
    }
    bool useful = node.kind != Kind::kNone;
    if (const json::value* p = o->if_contains("properties"); p != nullptr && p->is_object()) {
      for (const auto& [name, child] : p->get_object()) {
        SNOWCAR_ASSIGN_OR_RETURN(const ConnectJsonNode* c, Compile(child));
        if (c != nullptr) node.properties.emplace(std::string(name), c);
      }
      useful |= !node.properties.empty();
    }
    if (const json::value* a = o->if_contains("additionalProperties"); a != nullptr) {
      SNOWCAR_ASSIGN_OR_RETURN(node.additional, Compile(*a));
      useful |= node.additional != nullptr;
    }
    if (const json::value* i = o->if_contains("items"); i != nullptr) {
      SNOWCAR_ASSIGN_OR_RETURN(node.items, Compile(*i));
      useful |= node.items != nullptr;
    }
    if (!useful) return nullptr;
    return &out_.nodes_.emplace_back(std::move(node));
  }

 private:
  // connect.parameters.scale, a string of digits ("2"); absent means 0.
  static Result<int32_t> DecimalScale(const json::object& o) {
    const json::value* params = o.if_contains("connect.parameters");
    const json::value* s = nullptr;
    if (params != nullptr && params->is_object()) s = params->get_object().if_contains("scale");
    if (s == nullptr) return 0;
    int32_t scale = -1;
    if (s->is_string()) {
      const std::string_view t = s->get_string();
      const auto r = std::from_chars(t.data(), t.data() + t.size(), scale);
      if (r.ec != std::errc() || r.ptr != t.data() + t.size()) scale = -1;
    }
    if (scale < 0 || scale > 1000) {
      return Status::InvalidArgument("the JSON Schema has a Connect Decimal whose scale " +
                                     json::serialize(*s) + " is not a whole number 0-1000");
    }
    return scale;
  }

  ConnectJsonTypes& out_;
};

Result<std::unique_ptr<ConnectJsonTypes>> ConnectJsonTypes::Parse(std::string_view schema_json) {
  json::parse_options options;
  options.max_depth = 1024;
  json::error_code ec;
  const json::value schema = json::parse(schema_json, ec, {}, options);
  if (ec) return Status::InvalidArgument("the JSON Schema is not JSON: " + ec.message());
  std::unique_ptr<ConnectJsonTypes> types(new ConnectJsonTypes());
  ConnectSchemaWalker walker(*types);
  SNOWCAR_ASSIGN_OR_RETURN(types->root_, walker.Compile(schema));
  return types;
}

namespace {

// Copies the payload's tokens to `out`, replacing the values the schema marks.
class Rewriter {
 public:
  static constexpr std::size_t max_array_size = static_cast<std::size_t>(-1);
  static constexpr std::size_t max_object_size = static_cast<std::size_t>(-1);
  static constexpr std::size_t max_string_size = static_cast<std::size_t>(-1);
  static constexpr std::size_t max_key_size = static_cast<std::size_t>(-1);

  explicit Rewriter(const ConnectJsonNode* root) : next_(root) {}

  std::string out;
  Status error;

  bool on_document_begin(json::error_code&) { return true; }
  bool on_document_end(json::error_code&) { return true; }
  bool on_object_begin(json::error_code& ec) { return Open(false, '{', ec); }
  bool on_object_end(std::size_t, json::error_code&) { return Close('}'); }
  bool on_array_begin(json::error_code& ec) { return Open(true, '[', ec); }
  bool on_array_end(std::size_t, json::error_code&) { return Close(']'); }
  bool on_key_part(json::string_view s, std::size_t, json::error_code&) {
    buffer_.append(s.data(), s.size());
    return true;
  }
  bool on_key(json::string_view s, std::size_t, json::error_code&) {
    buffer_.append(s.data(), s.size());
    Frame& f = stack_.back();
    if (!f.first) out.push_back(',');
    f.first = false;
    out += json::serialize(json::string_view(buffer_));
    out.push_back(':');
    next_ = nullptr;
    if (f.node != nullptr) {
      const auto it = f.node->properties.find(buffer_);
      next_ = it != f.node->properties.end() ? it->second : f.node->additional;
    }
    f.key = std::move(buffer_);
    buffer_.clear();
    return true;
  }
  bool on_string_part(json::string_view s, std::size_t, json::error_code&) {
    buffer_.append(s.data(), s.size());
    return true;
  }
  bool on_string(json::string_view s, std::size_t, json::error_code& ec) {
    buffer_.append(s.data(), s.size());
    const ConnectJsonNode* node = Begin();
    const std::string text = std::move(buffer_);
    buffer_.clear();
    if (node != nullptr && node->kind == Kind::kDecimal) {
      // decimal.format=BASE64: the unscaled value's two's-complement bytes.
      const std::optional<std::string> bytes = Base64Decode(text);
      if (!bytes.has_value()) return Fail(node, "is not base64: " + Quoted(text), ec);
      auto digits = DecimalText(*bytes, node->scale);
      if (!digits.ok()) return Fail(node, digits.status().message(), ec);
      out += json::serialize(json::string_view(*digits));
      return true;
    }
    if (node != nullptr && node->kind != Kind::kNone) {
      return Fail(node, "must be an integer, not the string " + Quoted(text), ec);
    }
    out += json::serialize(json::string_view(text));
    return true;
  }
  bool on_number_part(json::string_view s, json::error_code&) {
    buffer_.append(s.data(), s.size());
    return true;
  }
  bool on_int64(int64_t i, json::string_view s, json::error_code& ec) { return Number(&i, s, ec); }
  bool on_uint64(uint64_t, json::string_view s, json::error_code& ec) {
    return Number(nullptr, s, ec);
  }
  bool on_double(double, json::string_view s, json::error_code& ec) {
    return Number(nullptr, s, ec);
  }
  bool on_bool(bool b, json::error_code& ec) {
    const ConnectJsonNode* node = Begin();
    if (node != nullptr && node->kind != Kind::kNone) {
      return Fail(node, std::string("must be a number, not ") + (b ? "true" : "false"), ec);
    }
    out += b ? "true" : "false";
    return true;
  }
  bool on_null(json::error_code&) {
    Begin();
    out += "null";
    return true;
  }
  bool on_comment_part(json::string_view, json::error_code&) { return true; }
  bool on_comment(json::string_view, json::error_code&) { return true; }

 private:
  struct Frame {
    const ConnectJsonNode* node = nullptr;
    bool is_array = false;
    bool first = true;
    size_t index = 0;  // the next item's, in an array
    std::string key;   // the current member's, in an object
  };

  // Starts a value: the comma before an array item, and the value's schema node.
  const ConnectJsonNode* Begin() {
    const ConnectJsonNode* node = next_;
    next_ = nullptr;
    if (!stack_.empty() && stack_.back().is_array) {
      Frame& f = stack_.back();
      if (!f.first) out.push_back(',');
      f.first = false;
      node = f.node != nullptr ? f.node->items : nullptr;
      ++f.index;
    }
    return node;
  }

  bool Open(bool is_array, char brace, json::error_code& ec) {
    const ConnectJsonNode* node = Begin();
    if (node != nullptr && node->kind != Kind::kNone) {
      return Fail(node,
                  is_array ? "must be a number, not an array" : "must be a number, not an object",
                  ec);
    }
    stack_.push_back(Frame{node, is_array, true, 0, {}});
    out.push_back(brace);
    return true;
  }

  bool Close(char brace) {
    stack_.pop_back();
    out.push_back(brace);
    return true;
  }

  bool Number(const int64_t* integer, json::string_view s, json::error_code& ec) {
    buffer_.append(s.data(), s.size());
    const std::string text = std::move(buffer_);
    buffer_.clear();
    const ConnectJsonNode* node = Begin();
    if (node == nullptr || node->kind == Kind::kNone || node->kind == Kind::kDecimal) {
      out += text;  // decimal.format=NUMERIC: already the digits the Table API takes
      return true;
    }
    if (integer == nullptr) {
      return Fail(node, "must be a whole number of 64 bits, not " + text.substr(0, 64), ec);
    }
    Result<std::string> t = Status::InvalidArgument("");
    if (node->kind == Kind::kTimestamp) t = TimestampText(AvroLogical::kTimestampMillis, *integer);
    if (node->kind == Kind::kDate) t = DateText(*integer);
    if (node->kind == Kind::kTime) t = TimeText(AvroLogical::kTimeMillis, *integer);
    if (!t.ok()) return Fail(node, t.status().message(), ec);
    out += json::serialize(json::string_view(*t));
    return true;
  }

  // The value's place for messages: "opened_at", "lines[2].due".
  std::string Path() const {
    std::string p;
    for (size_t i = 0; i < stack_.size(); ++i) {
      const Frame& f = stack_[i];
      if (f.is_array) {
        p += "[" + std::to_string(f.index - 1) + "]";  // Begin counted the item already
      } else {
        if (!p.empty()) p.push_back('.');
        p += Printable(f.key);
      }
    }
    return p.empty() ? "(the value)" : p;
  }

  static std::string Printable(std::string_view s) {
    std::string out;
    for (size_t i = 0; i < s.size() && i < 64; ++i) {
      const auto c = static_cast<unsigned char>(s[i]);
      out.push_back(c >= 0x20 && c < 0x7f ? static_cast<char>(c) : '?');
    }
    return out;
  }
  static std::string Quoted(std::string_view s) { return "'" + Printable(s) + "'"; }

  bool Fail(const ConnectJsonNode* node, const std::string& why, json::error_code& ec) {
    error = Status::InvalidArgument("field '" + Path() + "' (" + std::string(KindName(node->kind)) +
                                    ") " + why);
    ec = json::error::syntax;
    return false;
  }

  const ConnectJsonNode* next_;
  std::vector<Frame> stack_;
  std::string buffer_;
};

}  // namespace

Result<std::string> ConnectJsonTypes::Rewrite(std::string_view payload) const {
  json::parse_options options;
  options.max_depth = 64;  // as deep as the sink's command decoding reads
  json::basic_parser<Rewriter> parser(options, root_);
  json::error_code ec;
  const size_t used = parser.write_some(false, payload.data(), payload.size(), ec);
  if (!parser.handler().error.ok()) return parser.handler().error;
  if (ec) return Status::InvalidArgument("the payload is not JSON: " + ec.message());
  if (payload.substr(used).find_first_not_of(" \t\r\n") != std::string_view::npos) {
    return Status::InvalidArgument("the payload has text left over after its JSON value");
  }
  return std::move(parser.handler().out);
}

}  // namespace snowcar::schema_registry
