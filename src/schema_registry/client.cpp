// SPDX-License-Identifier: Apache-2.0
// SchemaRegistryClient over http_call.h: retries (each answer read by answer_status.h, the
// error mapping of client.h), and the id cache (in memory, and in the state store when one is
// given).
#include "snowcar/schema_registry/client.h"

#include <boost/json.hpp>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

#include "answer_status.h"
#include "http_call.h"
#include "snowcar/common/log.h"
#include "snowcar/common/redact.h"
#include "snowcar/state/state_store.h"

namespace snowcar::schema_registry {
namespace {

namespace json = boost::json;

class CurlRegistryClient final : public SchemaRegistryClient {
 public:
  CurlRegistryClient(RegistryOptions options, state::StateStore* store)
      : options_(std::move(options)),
        display_url_(DisplayUrl(options_.url)),
        store_(store),
        jitter_(servicenow::DefaultJitter()) {}

  Result<int32_t> RegisterSchema(std::string_view subject, SchemaType type,
                                 std::string_view schema) override {
    if (subject.empty()) return Status::InvalidArgument("schema registry: the subject is empty");
    const std::string key = SubjectKey(subject, type, schema);
    {
      std::lock_guard lock(mu_);
      if (auto it = ids_by_subject_.find(key); it != ids_by_subject_.end()) return it->second;
    }
    if (auto stored = LoadStored(key); stored.has_value()) {
      if (auto id = ParseId(*stored); id.has_value()) {
        Remember(key, *id, type, schema);
        return *id;
      }
    }
    const std::string path = "/subjects/" + EscapePathSegment(subject) + "/versions";
    SNOWCAR_ASSIGN_OR_RETURN(json::value answer,
                             Call("POST", path, RequestBody(type, schema), subject));
    const auto* id = answer.is_object() ? answer.as_object().if_contains("id") : nullptr;
    if (id == nullptr || !id->is_int64()) {
      return Status::Unavailable("schema registry " + display_url_ + ": POST " + path +
                                 " answered without an integer \"id\"");
    }
    const auto value = static_cast<int32_t>(id->as_int64());
    Remember(key, value, type, schema);
    Store(key, std::to_string(value));
    Store(IdKey(value), std::string(SchemaTypeName(type)) + "\n" + std::string(schema));
    return value;
  }

  Result<RegisteredSchema> SchemaById(int32_t id) override {
    {
      std::lock_guard lock(mu_);
      if (auto it = schemas_by_id_.find(id); it != schemas_by_id_.end()) return it->second;
    }
    if (auto stored = LoadStored(IdKey(id)); stored.has_value()) {
      const size_t nl = stored->find('\n');
      if (nl != std::string::npos) {
        if (auto type = ParseSchemaType(std::string_view(*stored).substr(0, nl)); type.ok()) {
          RegisteredSchema s{id, *type, stored->substr(nl + 1)};
          std::lock_guard lock(mu_);
          schemas_by_id_[id] = s;
          return s;
        }
      }
    }
    const std::string path = "/schemas/ids/" + std::to_string(id);
    SNOWCAR_ASSIGN_OR_RETURN(json::value answer,
                             Call("GET", path, "", "schema id " + std::to_string(id)));
    const auto* o = answer.if_object();
    const auto* text = o ? o->if_contains("schema") : nullptr;
    if (text == nullptr || !text->is_string()) {
      return Status::Unavailable("schema registry " + display_url_ + ": GET " + path +
                                 " answered without a \"schema\" string");
    }
    SchemaType type = SchemaType::kAvro;
    if (const auto* t = o->if_contains("schemaType"); t && t->is_string()) {
      auto parsed = ParseSchemaType(std::string(t->as_string()));
      if (!parsed.ok()) {
        return Status::InvalidArgument(
            "schema id " + std::to_string(id) + " is of type " + std::string(t->as_string()) +
            ", which snowcar does not read (AVRO, JSON and PROTOBUF only)");
      }
      type = *parsed;
    }
    RegisteredSchema s{id, type, std::string(text->as_string())};
    {
      std::lock_guard lock(mu_);
      schemas_by_id_[id] = s;
    }
    Store(IdKey(id), std::string(SchemaTypeName(type)) + "\n" + s.schema);
    return s;
  }

  Result<bool> IsCompatible(std::string_view subject, SchemaType type,
                            std::string_view schema) override {
    const std::string path =
        "/compatibility/subjects/" + EscapePathSegment(subject) + "/versions/latest";
    auto answer = Call("POST", path, RequestBody(type, schema), subject);
    if (!answer.ok()) {
      // A subject with no version yet accepts any schema.
      if (answer.status().code() == StatusCode::kNotFound) return true;
      return answer.status();
    }
    const auto* o = answer->if_object();
    const auto* ok = o ? o->if_contains("is_compatible") : nullptr;
    if (ok == nullptr || !ok->is_bool()) {
      return Status::Unavailable("schema registry " + display_url_ + ": POST " + path +
                                 " answered without \"is_compatible\"");
    }
    return ok->as_bool();
  }

 private:
  static std::string RequestBody(SchemaType type, std::string_view schema) {
    json::object body;
    body["schema"] = json::string(schema);
    if (type != SchemaType::kAvro) body["schemaType"] = SchemaTypeName(type);
    return json::serialize(body);
  }

  // Cache keys carry the registry URL, so a state dir moved to another registry never reuses
  // ids that mean something else there.
  std::string SubjectKey(std::string_view subject, SchemaType type, std::string_view schema) const {
    std::string k = "subject/" + display_url_ + '\n' + std::string(subject) + '\n';
    k += SchemaTypeName(type);
    k += '\n';
    k += schema;
    return k;
  }
  std::string IdKey(int32_t id) const { return "id/" + display_url_ + '\n' + std::to_string(id); }

  static std::optional<int32_t> ParseId(const std::string& text) {
    if (text.empty() || text.size() > 10 ||
        text.find_first_not_of("0123456789") != std::string::npos) {
      return std::nullopt;
    }
    return static_cast<int32_t>(std::stoll(text));
  }

  void Remember(const std::string& key, int32_t id, SchemaType type, std::string_view schema) {
    std::lock_guard lock(mu_);
    ids_by_subject_[key] = id;
    schemas_by_id_.try_emplace(id, RegisteredSchema{id, type, std::string(schema)});
  }

  std::optional<std::string> LoadStored(const std::string& key) {
    if (store_ == nullptr) return std::nullopt;
    auto got = store_->GetRegistryEntry(key);
    if (!got.ok()) {
      SNOWCAR_LOG(kWarn, "schema_registry.cache_read_failed", {{"error", got.status().ToString()}});
      return std::nullopt;
    }
    return *got;
  }

  // A failed write costs a round trip after the next restart, nothing else.
  void Store(const std::string& key, const std::string& value) {
    if (store_ == nullptr) return;
    if (Status s = store_->PutRegistryEntry(key, value); !s.ok()) {
      SNOWCAR_LOG(kWarn, "schema_registry.cache_write_failed", {{"error", s.ToString()}});
    }
  }

  // One logical call with retries. `what` names the subject or id for messages.
  Result<json::value> Call(std::string_view method, const std::string& path,
                           const std::string& body, std::string_view what) {
    const auto start = std::chrono::steady_clock::now();
    for (int attempt = 1;; ++attempt) {
      HttpAnswer answer = PerformHttp(options_, method, path, body);
      const std::string where =
          "schema registry " + display_url_ + ": " + std::string(method) + " " + path;
      AnswerReading reading = ReadAnswer(answer, where, what);
      if (reading.json.has_value()) return std::move(*reading.json);
      if (!reading.retry) return reading.failure;
      const Status& failure = reading.failure;
      const int64_t elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::steady_clock::now() - start)
                                  .count();
      const auto wait =
          servicenow::NextRetryWaitMs(options_.retry, attempt, elapsed, std::nullopt, jitter_);
      if (!wait.has_value()) {
        return Status(failure.code(), redact::Mask(failure.message() + " (after " +
                                                   std::to_string(attempt) + " attempts)"));
      }
      SNOWCAR_LOG(
          kWarn, "schema_registry.retry",
          {{"error", redact::Mask(failure.message())}, {"attempt", attempt}, {"wait_ms", *wait}});
      std::this_thread::sleep_for(std::chrono::milliseconds(*wait));
    }
  }

  const RegistryOptions options_;
  const std::string display_url_;
  state::StateStore* const store_;
  const servicenow::JitterSource jitter_;
  std::mutex mu_;
  std::map<std::string, int32_t> ids_by_subject_;
  std::map<int32_t, RegisteredSchema> schemas_by_id_;
};

}  // namespace

std::string_view SchemaTypeName(SchemaType type) {
  switch (type) {
    case SchemaType::kJson:
      return "JSON";
    case SchemaType::kProtobuf:
      return "PROTOBUF";
    case SchemaType::kAvro:
      break;
  }
  return "AVRO";
}

Result<SchemaType> ParseSchemaType(std::string_view text) {
  std::string upper;
  for (char c : text)
    upper.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  if (upper.empty() || upper == "AVRO") return SchemaType::kAvro;
  if (upper == "JSON") return SchemaType::kJson;
  if (upper == "PROTOBUF") return SchemaType::kProtobuf;
  return Status::InvalidArgument("unknown schema type '" + std::string(text) +
                                 "': expected AVRO, JSON or PROTOBUF");
}

bool IsRegistryRefusal(const Status& status) {
  switch (status.code()) {
    case StatusCode::kFailedPrecondition:
    case StatusCode::kInvalidArgument:
    case StatusCode::kNotFound:
    case StatusCode::kPermissionDenied:
      return true;
    default:
      return false;
  }
}

Result<std::unique_ptr<SchemaRegistryClient>> SchemaRegistryClient::Create(
    const RegistryOptions& options, state::StateStore* store) {
  if (options.url.empty()) {
    return Status::InvalidArgument("schema.registry.url is not set, and a registry is needed");
  }
  SNOWCAR_RETURN_IF_ERROR(options.Validate());
  redact::RegisterSecret(options.basic_auth_user_info);
  if (auto colon = options.basic_auth_user_info.find(':'); colon != std::string::npos) {
    redact::RegisterSecret(options.basic_auth_user_info.substr(colon + 1));
  }
  // basic.auth.credentials.source=URL: the password inside the URL is a secret as well.
  if (const size_t scheme = options.url.find("://"); scheme != std::string::npos) {
    const size_t start = scheme + 3;
    const size_t end = options.url.find('/', start);
    const std::string authority =
        options.url.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (const size_t at = authority.rfind('@'); at != std::string::npos) {
      const std::string user_info = authority.substr(0, at);
      redact::RegisterSecret(user_info);
      if (const size_t colon = user_info.find(':'); colon != std::string::npos) {
        redact::RegisterSecret(user_info.substr(colon + 1));
      }
    }
  }
  return std::unique_ptr<SchemaRegistryClient>(new CurlRegistryClient(options, store));
}

}  // namespace snowcar::schema_registry
