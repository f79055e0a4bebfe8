// SPDX-License-Identifier: Apache-2.0
// The body of a write: a record value (a JSON object) turned into column -> string.
#include <map>
#include <set>

#include "command_parts.h"
#include "command_text.h"

namespace snowcar::sink {
namespace {

namespace json = boost::json;

// One member on its way to the body.
struct Member {
  std::string name;
  const JsonNode* value;
};

// Step 1: renames apply to the record's own names at once (a:b,b:a swaps); two members
// ending with the same name are an error rather than a silent overwrite.
Result<std::vector<Member>> Rename(const JsonNode& value, const SinkSettings& settings) {
  std::map<std::string_view, std::string_view> renames;
  for (const auto& [from, to] : settings.renames) renames.emplace(from, to);
  std::vector<Member> members;
  members.reserve(value.items.size());
  std::map<std::string_view, std::string_view> origin;  // new name -> record name
  for (size_t i = 0; i < value.items.size(); ++i) {
    const std::string& name = value.names[i];
    const auto it = renames.find(name);
    const std::string_view target = it == renames.end() ? std::string_view(name) : it->second;
    const auto [pos, inserted] = origin.emplace(target, name);
    if (!inserted) {
      return Status::InvalidArgument("fields " + Quote(pos->second) + " and " + Quote(name) +
                                     " both become " + Quote(target) +
                                     " after snow.sink.field.rename");
    }
    members.push_back(Member{std::string(target), &value.items[i]});
  }
  return members;
}

// Steps 2 and 3: allow/deny list, then the names the sink never writes.
bool Keep(std::string_view name, const SinkSettings& settings) {
  const std::string key(name);
  if (!settings.field_allowlist.empty() && settings.field_allowlist.count(key) == 0) return false;
  if (settings.field_denylist.count(key) != 0) return false;
  return !IsReservedFieldName(name, settings);
}

class BodyBuilder {
 public:
  explicit BodyBuilder(const SinkSettings& settings) : settings_(settings) {}

  // Steps 4 to 6 for one member.
  Status Add(const std::string& name, const JsonNode& node) {
    if (node.kind == JsonNode::Kind::kNull) return AddNull(name);
    if (!node.is_nested()) return Put(name, RenderScalar(node));
    switch (settings_.nested) {
      case NestedBehavior::kReject:
        return Status::InvalidArgument(
            "field " + Quote(name) + " is " + std::string(KindName(node.kind)) +
            ", and snow.sink.nested.behavior is reject (flatten or stringify accept it)");
      case NestedBehavior::kStringify:
        return Put(name, WriteCompactJson(node));
      case NestedBehavior::kFlatten:
        return Flatten(name, node);
    }
    return Status::Ok();
  }

  json::object Take() { return std::move(body_); }

 private:
  Status AddNull(const std::string& name) {
    switch (settings_.null_behavior) {
      case NullBehavior::kOmit:
        return Status::Ok();
      case NullBehavior::kClear:
        return Put(name, "");
      case NullBehavior::kReject:
        return Status::InvalidArgument("field " + Quote(name) +
                                       " is null, and snow.sink.null.behavior is reject");
    }
    return Status::Ok();
  }

  // Objects open into `name<delimiter>member` at every depth (the parser bounds the depth);
  // arrays have no member names to open into and are written as compact JSON.
  Status Flatten(const std::string& name, const JsonNode& node) {
    if (node.kind == JsonNode::Kind::kArray) return Put(name, WriteCompactJson(node));
    for (size_t i = 0; i < node.items.size(); ++i) {
      const std::string inner = name + settings_.flatten_delimiter + node.names[i];
      if (IsReservedFieldName(inner, settings_)) continue;
      const JsonNode& child = node.items[i];
      if (child.kind == JsonNode::Kind::kNull) {
        SNOWCAR_RETURN_IF_ERROR(AddNull(inner));
      } else if (child.is_nested()) {
        SNOWCAR_RETURN_IF_ERROR(Flatten(inner, child));
      } else {
        SNOWCAR_RETURN_IF_ERROR(Put(inner, RenderScalar(child)));
      }
    }
    return Status::Ok();
  }

  Status Put(const std::string& name, std::string_view value) {
    if (body_.contains(name)) {
      return Status::InvalidArgument("field " + Quote(name) +
                                     " is produced twice (a flattened field has the name of "
                                     "another field)");
    }
    body_.emplace(name, json::string(value));
    return Status::Ok();
  }

  const SinkSettings& settings_;
  json::object body_;
};

}  // namespace

std::string RenderScalar(const JsonNode& node) {
  switch (node.kind) {
    case JsonNode::Kind::kBool:
      return node.boolean ? "true" : "false";
    case JsonNode::Kind::kString:
    case JsonNode::Kind::kNumber:
      return node.text;
    default:
      return "";
  }
}

Result<json::object> MapFields(const JsonNode& value, const SinkSettings& settings) {
  if (value.kind != JsonNode::Kind::kObject) {
    return Status::InvalidArgument("the record value is " + std::string(KindName(value.kind)) +
                                   "; a command's value must be a JSON object of fields");
  }
  SNOWCAR_ASSIGN_OR_RETURN(std::vector<Member> members, Rename(value, settings));
  BodyBuilder body(settings);
  for (const Member& m : members) {
    if (!Keep(m.name, settings)) continue;
    if (m.name.empty()) {
      // No column has an empty name; the instance would drop it without a word.
      return Status::InvalidArgument(
          "the record value has a field with an empty name (\"\"); every field must name a "
          "column");
    }
    SNOWCAR_RETURN_IF_ERROR(body.Add(m.name, *m.value));
  }
  return body.Take();
}

}  // namespace snowcar::sink
