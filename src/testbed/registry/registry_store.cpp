// SPDX-License-Identifier: Apache-2.0
#include "registry_store.h"

#include <avro.h>

#include <boost/json.hpp>

#include "compatibility.h"

namespace snowcar::registry {
namespace {

namespace json = boost::json;

constexpr const char* kLevels[] = {"NONE",           "BACKWARD",           "BACKWARD_TRANSITIVE",
                                   "FORWARD",        "FORWARD_TRANSITIVE", "FULL",
                                   "FULL_TRANSITIVE"};

bool IsLevel(const std::string& level) {
  for (const char* l : kLevels) {
    if (level == l) return true;
  }
  return false;
}

Answer SubjectNotFound(const std::string& subject) {
  return ErrorAnswer(404, 40401, "Subject '" + subject + "' not found.");
}

}  // namespace

Answer ErrorAnswer(int status, int code, std::string_view message) {
  json::object body;
  body["error_code"] = code;
  body["message"] = message;
  return Answer{status, std::move(body)};
}

std::optional<RegistryStore::Schema> RegistryStore::ParseRequest(const json::value& request,
                                                                 Answer& error) const {
  const auto* o = request.if_object();
  const auto* text = o ? o->if_contains("schema") : nullptr;
  if (text == nullptr || !text->is_string()) {
    error = ErrorAnswer(422, 42201, "Invalid schema: the request has no \"schema\" string");
    return std::nullopt;
  }
  Schema s;
  s.type = "AVRO";
  if (const auto* t = o->if_contains("schemaType"); t && t->is_string()) {
    s.type = std::string(t->as_string());
  }
  if (s.type != "AVRO" && s.type != "JSON" && s.type != "PROTOBUF") {
    error = ErrorAnswer(422, 42201,
                        "Invalid schema: schemaType " + s.type +
                            " is not served by this test double (AVRO, JSON, PROTOBUF)");
    return std::nullopt;
  }
  if (const auto* refs = o->if_contains("references");
      refs && refs->is_array() && !refs->as_array().empty()) {
    error = ErrorAnswer(422, 42201,
                        "Invalid schema: schema references are not served by this "
                        "test double");
    return std::nullopt;
  }
  s.text = std::string(text->as_string());
  if (s.type == "PROTOBUF") {
    auto parsed = protobuf::ProtoSchema::Parse(s.text);
    if (!parsed.ok()) {
      error = ErrorAnswer(422, 42201, "Invalid schema: " + parsed.status().message());
      return std::nullopt;
    }
    s.proto = std::move(parsed).value();
    // libprotobuf's rendering: the same file written with other spacing or comments is the
    // same schema, as the registry's normalization makes it.
    s.canonical = s.type + "\n" + s.proto->Text();
    return s;
  }
  boost::system::error_code ec;
  s.parsed = json::parse(s.text, ec);
  if (ec) {
    error = ErrorAnswer(422, 42201, "Invalid schema: not JSON: " + ec.message());
    return std::nullopt;
  }
  if (s.type == "AVRO") {
    avro_schema_t parsed = nullptr;
    if (avro_schema_from_json_length(s.text.data(), s.text.size(), &parsed) != 0) {
      error = ErrorAnswer(422, 42201, std::string("Invalid schema: ") + avro_strerror());
      return std::nullopt;
    }
    avro_schema_decref(parsed);
  } else if (!s.parsed.is_object() && !s.parsed.is_bool()) {
    error = ErrorAnswer(422, 42201, "Invalid schema: a JSON Schema is an object or a boolean");
    return std::nullopt;
  }
  s.canonical = s.type + "\n" + json::serialize(s.parsed);
  return s;
}

std::string RegistryStore::LevelOf(const std::string& subject) const {
  auto it = subject_levels_.find(subject);
  return it != subject_levels_.end() ? it->second : global_level_;
}

std::string RegistryStore::Incompatibilities(const std::string& level, const Schema& candidate,
                                             const std::vector<int64_t>& ids) const {
  if (level == "NONE" || ids.empty()) return "";
  const bool transitive = level.ends_with("_TRANSITIVE");
  const bool backward = level.starts_with("BACKWARD") || level.starts_with("FULL");
  const bool forward = level.starts_with("FORWARD") || level.starts_with("FULL");
  std::string out;
  const size_t first = transitive ? 0 : ids.size() - 1;
  for (size_t i = first; i < ids.size(); ++i) {
    const Schema& old = schemas_.at(ids[i]);
    if (old.type != candidate.type) {
      out += "version " + std::to_string(i + 1) + " is of type " + old.type + "\n";
      continue;
    }
    auto check = [&](const Schema& reader, const Schema& writer) {
      if (candidate.type == "PROTOBUF")
        return ProtobufIncompatibilities(*reader.proto, *writer.proto);
      return candidate.type == "AVRO" ? AvroIncompatibilities(reader.parsed, writer.parsed)
                                      : JsonSchemaIncompatibilities(reader.parsed, writer.parsed);
    };
    std::string found;
    if (backward) found += check(candidate, old);
    if (forward) {
      std::string f = check(old, candidate);
      if (!f.empty()) found += (found.empty() ? "" : "\n") + f;
    }
    if (!found.empty()) {
      out += "against version " + std::to_string(i + 1) + ": " + found + "\n";
    }
  }
  if (!out.empty()) out.pop_back();
  return out;
}

json::object RegistryStore::VersionBody(const std::string& subject, size_t version) const {
  const int64_t id = subjects_.at(subject).ids.at(version - 1);
  const Schema& s = schemas_.at(id);
  json::object body;
  body["subject"] = subject;
  body["version"] = version;
  body["id"] = id;
  if (s.type != "AVRO") body["schemaType"] = s.type;
  body["schema"] = s.text;
  return body;
}

Answer RegistryStore::Register(const std::string& subject, const json::value& request) {
  Answer error;
  auto schema = ParseRequest(request, error);
  if (!schema) return error;
  std::lock_guard lock(mu_);
  auto& versions = subjects_[subject];
  for (int64_t id : versions.ids) {
    if (schemas_.at(id).canonical == schema->canonical)
      return Answer{200, json::object{{"id", id}}};
  }
  const std::string problems = Incompatibilities(LevelOf(subject), *schema, versions.ids);
  if (!problems.empty()) {
    if (versions.ids.empty()) subjects_.erase(subject);
    return ErrorAnswer(409, 409,
                       "Schema being registered is incompatible with an earlier schema for "
                       "subject \"" +
                           subject + "\" (" + LevelOf(subject) + "): " + problems);
  }
  // One id per distinct schema across subjects, as the registry does.
  int64_t id = 0;
  for (const auto& [known_id, known] : schemas_) {
    if (known.canonical == schema->canonical) id = known_id;
  }
  if (id == 0) {
    id = schemas_.empty() ? 1 : schemas_.rbegin()->first + 1;
    schemas_.emplace(id, std::move(*schema));
  }
  versions.ids.push_back(id);
  return Answer{200, json::object{{"id", id}}};
}

Answer RegistryStore::Lookup(const std::string& subject, const json::value& request) {
  Answer error;
  auto schema = ParseRequest(request, error);
  if (!schema) return error;
  std::lock_guard lock(mu_);
  auto it = subjects_.find(subject);
  if (it == subjects_.end()) return SubjectNotFound(subject);
  for (size_t v = 1; v <= it->second.ids.size(); ++v) {
    if (schemas_.at(it->second.ids[v - 1]).canonical == schema->canonical) {
      return Answer{200, VersionBody(subject, v)};
    }
  }
  return ErrorAnswer(404, 40403, "Schema not found");
}

Answer RegistryStore::Subjects() {
  std::lock_guard lock(mu_);
  json::array names;
  for (const auto& [name, versions] : subjects_) names.emplace_back(name);
  return Answer{200, std::move(names)};
}

Answer RegistryStore::Versions(const std::string& subject) {
  std::lock_guard lock(mu_);
  auto it = subjects_.find(subject);
  if (it == subjects_.end()) return SubjectNotFound(subject);
  json::array out;
  for (size_t v = 1; v <= it->second.ids.size(); ++v) out.emplace_back(v);
  return Answer{200, std::move(out)};
}

Answer RegistryStore::Version(const std::string& subject, const std::string& version) {
  std::lock_guard lock(mu_);
  auto it = subjects_.find(subject);
  if (it == subjects_.end()) return SubjectNotFound(subject);
  const size_t count = it->second.ids.size();
  size_t v = 0;
  if (version == "latest" || version == "-1") {
    v = count;
  } else if (!version.empty() && version.size() < 10 &&
             version.find_first_not_of("0123456789") == std::string::npos) {
    v = std::stoul(version);
  } else {
    return ErrorAnswer(422, 42202,
                       "The specified version '" + version + "' is not a valid version id.");
  }
  if (v == 0 || v > count) return ErrorAnswer(404, 40402, "Version " + version + " not found.");
  return Answer{200, VersionBody(subject, v)};
}

Answer RegistryStore::DeleteSubject(const std::string& subject) {
  std::lock_guard lock(mu_);
  auto it = subjects_.find(subject);
  if (it == subjects_.end()) return SubjectNotFound(subject);
  json::array out;
  for (size_t v = 1; v <= it->second.ids.size(); ++v) out.emplace_back(v);
  subjects_.erase(it);
  subject_levels_.erase(subject);
  return Answer{200, std::move(out)};
}

Answer RegistryStore::SchemaById(int64_t id) {
  std::lock_guard lock(mu_);
  auto it = schemas_.find(id);
  if (it == schemas_.end())
    return ErrorAnswer(404, 40403, "Schema " + std::to_string(id) + " not found");
  json::object body;
  if (it->second.type != "AVRO") body["schemaType"] = it->second.type;
  body["schema"] = it->second.text;
  return Answer{200, std::move(body)};
}

Answer RegistryStore::Compatibility(const std::string& subject, const std::string& version,
                                    const json::value& request, bool verbose) {
  Answer error;
  auto schema = ParseRequest(request, error);
  if (!schema) return error;
  std::lock_guard lock(mu_);
  auto it = subjects_.find(subject);
  if (it == subjects_.end() || it->second.ids.empty()) return SubjectNotFound(subject);
  std::vector<int64_t> against = it->second.ids;
  std::string level = LevelOf(subject);
  if (version != "latest") {
    const bool number = !version.empty() && version.size() < 10 &&
                        version.find_first_not_of("0123456789") == std::string::npos;
    const size_t v = number ? std::stoul(version) : 0;
    if (v == 0 || v > against.size()) {
      return ErrorAnswer(404, 40402, "Version " + version + " not found.");
    }
    against = {against[v - 1]};
    if (level.ends_with("_TRANSITIVE"))
      level.resize(level.size() - std::string("_TRANSITIVE").size());
  }
  const std::string problems = Incompatibilities(level, *schema, against);
  json::object body;
  body["is_compatible"] = problems.empty();
  if (verbose) {
    json::array messages;
    size_t start = 0;
    while (!problems.empty() && start <= problems.size()) {
      size_t nl = problems.find('\n', start);
      if (nl == std::string::npos) nl = problems.size();
      messages.emplace_back(problems.substr(start, nl - start));
      start = nl + 1;
    }
    body["messages"] = std::move(messages);
  }
  return Answer{200, std::move(body)};
}

Answer RegistryStore::GetConfig(const std::string& subject, bool default_to_global) {
  std::lock_guard lock(mu_);
  if (subject.empty()) return Answer{200, json::object{{"compatibilityLevel", global_level_}}};
  auto it = subject_levels_.find(subject);
  if (it == subject_levels_.end()) {
    if (default_to_global) return Answer{200, json::object{{"compatibilityLevel", global_level_}}};
    return ErrorAnswer(404, 40408,
                       "Subject '" + subject +
                           "' does not have subject-level compatibility "
                           "configured");
  }
  return Answer{200, json::object{{"compatibilityLevel", it->second}}};
}

Answer RegistryStore::PutConfig(const std::string& subject, const json::value& request) {
  const auto* o = request.if_object();
  const auto* level = o ? o->if_contains("compatibility") : nullptr;
  const std::string text = (level && level->is_string()) ? std::string(level->as_string()) : "";
  if (!IsLevel(text)) {
    return ErrorAnswer(422, 42203, "Invalid compatibility level '" + text + "'");
  }
  std::lock_guard lock(mu_);
  (subject.empty() ? global_level_ : subject_levels_[subject]) = text;
  return Answer{200, json::object{{"compatibility", text}}};
}

}  // namespace snowcar::registry
