// SPDX-License-Identifier: Apache-2.0
#include "converter_keys.h"

#include <optional>
#include <string_view>

#include "value_normalize.h"

namespace snowcar::config {
namespace {

struct ConverterClass {
  std::string_view name;
  std::string_view value_format;  // what value.converter=<name> means
  std::string_view key_format;    // what key.converter=<name> means
};

constexpr ConverterClass kConverters[] = {
    {"io.confluent.connect.avro.AvroConverter", "avro", "avro"},
    {"io.confluent.connect.json.JsonSchemaConverter", "json_schema", "json_schema"},
    {"io.confluent.connect.protobuf.ProtobufConverter", "protobuf", "protobuf"},
    {"org.apache.kafka.connect.json.JsonConverter", "json", "json"},
    {"org.apache.kafka.connect.storage.StringConverter", "json", "string"},
};

// Converter settings that carry over to a snowcar key of another name.
std::optional<std::string> TargetOf(std::string_view setting) {
  if (setting == "schema.registry.url") return "schema.registry.url";
  if (setting == "basic.auth.user.info" || setting == "schema.registry.basic.auth.user.info") {
    return "schema.registry.basic.auth.user.info";
  }
  if (setting == "basic.auth.credentials.source" ||
      setting == "schema.registry.basic.auth.credentials.source") {
    return "schema.registry.basic.auth.credentials.source";
  }
  for (std::string_view kept :
       {"schema.registry.ssl.ca.location", "schema.registry.ssl.certificate.location",
        "schema.registry.ssl.key.location", "schema.registry.ssl.key.password",
        "schema.registry.ssl.endpoint.identification.algorithm", "key.subject.name.strategy",
        "value.subject.name.strategy"}) {
    if (setting == kept) return std::string(kept);
  }
  return std::nullopt;
}

class ConverterRewriter {
 public:
  ConverterRewriter(std::map<std::string, RawValue>& merged, std::vector<std::string>& errors,
                    std::vector<std::string>& notes)
      : merged_(merged), errors_(errors), notes_(notes) {}

  void Run() {
    for (std::string_view side : {"key", "value"}) {
      RewriteClass(std::string(side));
      RewriteSettings(std::string(side));
    }
    for (auto& [target, put] : puts_) merged_[target] = std::move(put);
  }

 private:
  void RewriteClass(const std::string& side) {
    const std::string key = side + ".converter";
    const auto it = merged_.find(key);
    if (it == merged_.end()) return;
    const RawValue raw = std::move(it->second);
    merged_.erase(it);
    const std::string cls = Trim(raw.value);
    for (const ConverterClass& c : kConverters) {
      if (cls != c.name) continue;
      const std::string format(side == "key" ? c.key_format : c.value_format);
      Put(side + ".format", format, key, raw);
      std::string note = key;
      note.append(" [").append(raw.origin).append("] sets ").append(side).append(".format=");
      notes_.push_back(note.append(format));
      return;
    }
    errors_.push_back(key + ": converter '" + cls +
                      "' has no snowcar counterpart; snowcar reads and writes "
                      "io.confluent.connect.avro.AvroConverter, "
                      "io.confluent.connect.json.JsonSchemaConverter, "
                      "io.confluent.connect.protobuf.ProtobufConverter, "
                      "org.apache.kafka.connect.json.JsonConverter and (keys) "
                      "org.apache.kafka.connect.storage.StringConverter [" +
                      raw.origin + "]");
  }

  void RewriteSettings(const std::string& side) {
    const std::string prefix = side + ".converter.";
    for (auto it = merged_.lower_bound(prefix);
         it != merged_.end() && it->first.compare(0, prefix.size(), prefix) == 0;) {
      const std::string key = it->first;
      const RawValue raw = std::move(it->second);
      it = merged_.erase(it);
      const std::string setting = key.substr(prefix.size());
      if (auto target = TargetOf(setting); target.has_value()) {
        Put(*target, raw.value, key, raw);
      } else {
        notes_.push_back(key + " [" + raw.origin +
                         "] is a converter setting without meaning for snowcar; ignored");
      }
    }
  }

  // Sets `target` from `from`. The key and value converters may both name the registry: the
  // same value twice is fine, two different ones are an error (snowcar has one registry).
  void Put(const std::string& target, std::string value, const std::string& from,
           const RawValue& raw) {
    if (GivenBothWays(merged_, target, from, raw, errors_)) return;
    if (const auto it = puts_.find(target); it != puts_.end()) {
      if (Trim(it->second.value) != Trim(value)) {
        errors_.push_back("'" + from + "' [" + raw.origin + "] and " + it->second.origin +
                          " give different values for '" + target + "'; snowcar uses one");
      }
      return;
    }
    puts_[target] = RawValue{std::move(value), from + " [" + raw.origin + "]"};
  }

  std::map<std::string, RawValue>& merged_;
  std::vector<std::string>& errors_;
  std::vector<std::string>& notes_;
  std::map<std::string, RawValue> puts_;
};

}  // namespace

void RewriteConverterKeys(std::map<std::string, RawValue>& merged, std::vector<std::string>& errors,
                          std::vector<std::string>& notes) {
  ConverterRewriter(merged, errors, notes).Run();
}

}  // namespace snowcar::config
