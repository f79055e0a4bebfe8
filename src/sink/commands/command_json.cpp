// SPDX-License-Identifier: Apache-2.0
#include "command_json.h"

#include <algorithm>
#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/string_view.hpp>
#include <cstdint>
#include <limits>

#include "command_text.h"

namespace snowcar::sink {
namespace {

namespace json = boost::json;

// Builds JsonNode trees from the parser's events. Open containers live on a stack by value,
// so growing a parent never invalidates a child being filled.
class TreeBuilder {
 public:
  static constexpr std::size_t max_array_size = static_cast<std::size_t>(-1);
  static constexpr std::size_t max_object_size = static_cast<std::size_t>(-1);
  static constexpr std::size_t max_string_size = static_cast<std::size_t>(-1);
  static constexpr std::size_t max_key_size = static_cast<std::size_t>(-1);

  JsonNode TakeRoot() { return std::move(root_); }
  const std::string& duplicate() const { return duplicate_; }

  bool on_document_begin(json::error_code&) { return true; }
  bool on_document_end(json::error_code&) { return true; }
  bool on_array_begin(json::error_code&) { return Open(JsonNode::Kind::kArray); }
  bool on_array_end(std::size_t, json::error_code& ec) { return Close(ec); }
  bool on_object_begin(json::error_code&) { return Open(JsonNode::Kind::kObject); }
  bool on_object_end(std::size_t, json::error_code& ec) { return Close(ec); }
  bool on_string_part(json::string_view s, std::size_t, json::error_code&) {
    buffer_.append(s.data(), s.size());
    return true;
  }
  bool on_string(json::string_view s, std::size_t, json::error_code&) {
    buffer_.append(s.data(), s.size());
    JsonNode node;
    node.kind = JsonNode::Kind::kString;
    node.text = std::move(buffer_);
    buffer_.clear();
    return Add(std::move(node));
  }
  bool on_key_part(json::string_view s, std::size_t, json::error_code&) {
    buffer_.append(s.data(), s.size());
    return true;
  }
  bool on_key(json::string_view s, std::size_t, json::error_code&) {
    buffer_.append(s.data(), s.size());
    open_.back().names.push_back(std::move(buffer_));
    buffer_.clear();
    return true;
  }
  bool on_number_part(json::string_view s, json::error_code&) {
    buffer_.append(s.data(), s.size());
    return true;
  }
  bool on_int64(int64_t, json::string_view s, json::error_code&) { return Number(s); }
  bool on_uint64(uint64_t, json::string_view s, json::error_code&) { return Number(s); }
  bool on_double(double, json::string_view s, json::error_code&) { return Number(s); }
  bool on_bool(bool b, json::error_code&) {
    JsonNode node;
    node.kind = JsonNode::Kind::kBool;
    node.boolean = b;
    return Add(std::move(node));
  }
  bool on_null(json::error_code&) { return Add(JsonNode{}); }
  bool on_comment_part(json::string_view, json::error_code&) { return true; }
  bool on_comment(json::string_view, json::error_code&) { return true; }

 private:
  bool Open(JsonNode::Kind kind) {
    JsonNode node;
    node.kind = kind;
    open_.push_back(std::move(node));
    return true;
  }

  bool Close(json::error_code& ec) {
    JsonNode node = std::move(open_.back());
    open_.pop_back();
    if (node.kind == JsonNode::Kind::kObject && node.names.size() > 1) {
      std::vector<std::string_view> sorted(node.names.begin(), node.names.end());
      std::sort(sorted.begin(), sorted.end());
      const auto dup = std::adjacent_find(sorted.begin(), sorted.end());
      if (dup != sorted.end()) {
        duplicate_ = std::string(*dup);
        ec = json::error::syntax;
        return false;
      }
    }
    return Add(std::move(node));
  }

  bool Number(json::string_view s) {
    buffer_.append(s.data(), s.size());
    JsonNode node;
    node.kind = JsonNode::Kind::kNumber;
    node.text = NormalizeNumberText(buffer_);
    buffer_.clear();
    return Add(std::move(node));
  }

  bool Add(JsonNode node) {
    if (open_.empty()) {
      root_ = std::move(node);
    } else {
      open_.back().items.push_back(std::move(node));
    }
    return true;
  }

  std::vector<JsonNode> open_;
  JsonNode root_;
  std::string buffer_;
  std::string duplicate_;
};

void AppendQuoted(std::string& out, std::string_view text) {
  out += json::serialize(json::string_view(text.data(), text.size()));
}

void Write(const JsonNode& node, std::string& out) {
  switch (node.kind) {
    case JsonNode::Kind::kNull:
      out += "null";
      return;
    case JsonNode::Kind::kBool:
      out += node.boolean ? "true" : "false";
      return;
    case JsonNode::Kind::kNumber:
      out += node.text;
      return;
    case JsonNode::Kind::kString:
      AppendQuoted(out, node.text);
      return;
    case JsonNode::Kind::kArray:
      out += '[';
      for (size_t i = 0; i < node.items.size(); ++i) {
        if (i > 0) out += ',';
        Write(node.items[i], out);
      }
      out += ']';
      return;
    case JsonNode::Kind::kObject:
      out += '{';
      for (size_t i = 0; i < node.items.size(); ++i) {
        if (i > 0) out += ',';
        AppendQuoted(out, node.names[i]);
        out += ':';
        Write(node.items[i], out);
      }
      out += '}';
      return;
  }
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Numbers written out in full up to this many zeros; beyond, an exponent keeps them short.
constexpr int64_t kMaxPlainZeros = 40;

}  // namespace

const JsonNode* JsonNode::Find(std::string_view name) const {
  if (kind != Kind::kObject) return nullptr;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return &items[i];
  }
  return nullptr;
}

std::string_view KindName(JsonNode::Kind kind) {
  switch (kind) {
    case JsonNode::Kind::kNull:
      return "null";
    case JsonNode::Kind::kBool:
      return "a boolean";
    case JsonNode::Kind::kNumber:
      return "a number";
    case JsonNode::Kind::kString:
      return "a string";
    case JsonNode::Kind::kArray:
      return "an array";
    case JsonNode::Kind::kObject:
      return "an object";
  }
  return "null";
}

Result<JsonNode> ParseJson(std::string_view text) {
  json::parse_options options;
  options.max_depth = kMaxJsonDepth;
  json::basic_parser<TreeBuilder> parser(options);
  json::error_code ec;
  const size_t used = parser.write_some(false, text.data(), text.size(), ec);
  if (!ec && used != text.size()) ec = json::error::extra_data;
  if (ec) {
    if (!parser.handler().duplicate().empty()) {
      return Status::InvalidArgument("the member name " + Quote(parser.handler().duplicate()) +
                                     " appears twice in one object");
    }
    if (ec == json::error::too_deep) {
      return Status::InvalidArgument("nested deeper than " + std::to_string(kMaxJsonDepth) +
                                     " levels");
    }
    return Status::InvalidArgument("not valid JSON (" + ec.message() + " at byte " +
                                   std::to_string(used) + ")");
  }
  return parser.handler().TakeRoot();
}

std::string WriteCompactJson(const JsonNode& node) {
  std::string out;
  Write(node, out);
  return out;
}

std::string NormalizeNumberText(std::string_view literal) {
  size_t i = 0;
  const bool negative = i < literal.size() && literal[i] == '-';
  if (negative) ++i;
  std::string digits;
  int64_t exponent = 0;
  while (i < literal.size() && IsDigit(literal[i])) digits += literal[i++];
  if (i < literal.size() && literal[i] == '.') {
    ++i;
    while (i < literal.size() && IsDigit(literal[i])) {
      digits += literal[i++];
      --exponent;
    }
  }
  if (i < literal.size() && (literal[i] == 'e' || literal[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < literal.size() && (literal[i] == '+' || literal[i] == '-')) {
      exp_negative = literal[i++] == '-';
    }
    // Saturates: an exponent beyond a billion is written with an exponent anyway.
    int64_t e = 0;
    while (i < literal.size() && IsDigit(literal[i])) {
      e = std::min<int64_t>(e * 10 + (literal[i++] - '0'), int64_t{1'000'000'000});
    }
    exponent += exp_negative ? -e : e;
  }
  const size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) return "0";
  digits.erase(0, first);
  const size_t last = digits.find_last_not_of('0');
  exponent += static_cast<int64_t>(digits.size() - 1 - last);
  digits.erase(last + 1);

  const auto n = static_cast<int64_t>(digits.size());
  std::string out = negative ? "-" : "";
  const int64_t point = n + exponent;  // digits before the decimal point
  if (exponent >= 0 && exponent <= kMaxPlainZeros) {
    out += digits;
    out.append(static_cast<size_t>(exponent), '0');
  } else if (exponent < 0 && point > 0) {
    out += digits.substr(0, static_cast<size_t>(point));
    out += '.';
    out += digits.substr(static_cast<size_t>(point));
  } else if (exponent < 0 && -point <= kMaxPlainZeros) {
    out += "0.";
    out.append(static_cast<size_t>(-point), '0');
    out += digits;
  } else {
    out += digits[0];
    if (n > 1) out += "." + digits.substr(1);
    out += "e" + std::to_string(point - 1);
  }
  return out;
}

}  // namespace snowcar::sink
