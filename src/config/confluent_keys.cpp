// SPDX-License-Identifier: Apache-2.0
#include "confluent_keys.h"

#include <cstdint>
#include <optional>
#include <string_view>

#include "value_checks.h"
#include "value_normalize.h"

namespace snowcar::config {
namespace {

enum class Role { kUnknown, kSource, kSink };

class Rewriter {
 public:
  Rewriter(std::map<std::string, RawValue>& merged, std::vector<std::string>& errors,
           std::vector<std::string>& notes)
      : merged_(merged), errors_(errors), notes_(notes) {}

  // Removes `key` and returns its value, or nothing when it was not given.
  std::optional<RawValue> Take(const std::string& key) {
    const auto it = merged_.find(key);
    if (it == merged_.end()) return std::nullopt;
    RawValue raw = std::move(it->second);
    merged_.erase(it);
    return raw;
  }

  bool Has(const std::string& key) const { return merged_.count(key) != 0; }

  // Puts back a key Take removed, for keys that are read here and also loaded as they are.
  void Restore(const std::string& key, RawValue raw) { merged_[key] = std::move(raw); }

  // Sets `target` from the Confluent key `from`, unless the file gives `target` itself.
  void Put(const std::string& target, std::string value, const std::string& from,
           const RawValue& raw) {
    if (GivenBothWays(merged_, target, from, raw, errors_)) return;
    merged_[target] = RawValue{std::move(value), from + " [" + raw.origin + "]"};
  }

  void Error(const std::string& key, const RawValue& raw, const std::string& problem) {
    errors_.push_back(key + ": " + problem + " [" + raw.origin + "]");
  }

  // A whole number at least `min`, or an error naming the key.
  std::optional<int64_t> WholeNumber(const std::string& key, const RawValue& raw, int64_t min) {
    const std::string text = Trim(raw.value);
    const bool digits = !text.empty() && text.size() <= 9 &&
                        text.find_first_not_of("0123456789") == std::string::npos;
    if (!digits || std::stoll(text) < min) {
      Error(key, raw,
            "'" + text + "' is not a whole number from " + std::to_string(min) + " to 999999999");
      return std::nullopt;
    }
    return std::stoll(text);
  }

  void Note(std::string note) { notes_.push_back(std::move(note)); }

 private:
  std::map<std::string, RawValue>& merged_;
  std::vector<std::string>& errors_;
  std::vector<std::string>& notes_;
};

Role RoleOf(const std::map<std::string, RawValue>& merged) {
  if (const auto it = merged.find("connector.class"); it != merged.end()) {
    const std::string value = Trim(it->second.value);
    if (value.ends_with("SourceConnector")) return Role::kSource;
    if (value.ends_with("SinkConnector")) return Role::kSink;
  }
  if (merged.count("kafka.topic") != 0) return Role::kSource;
  if (merged.count("topics") != 0 || merged.count("snow.sink.topics") != 0) return Role::kSink;
  return Role::kUnknown;
}

// A Connect file runs only the direction its connector had, unless the file says otherwise.
void DirectionFromConnectorClass(Rewriter& r, const std::map<std::string, RawValue>& merged) {
  const auto it = merged.find("connector.class");
  if (it == merged.end()) return;
  const std::string value = Trim(it->second.value);
  const std::string origin = "connector.class [" + it->second.origin + "]";
  if (value.ends_with("SourceConnector") && !r.Has("sink.enabled")) {
    r.Put("sink.enabled", "false", "connector.class", it->second);
    r.Note(origin +
           " names a source connector, so the sink is off (set sink.enabled=true "
           "to run it too)");
  } else if (value.ends_with("SinkConnector") && !r.Has("source.enabled")) {
    r.Put("source.enabled", "false", "connector.class", it->second);
    r.Note(origin +
           " names a sink connector, so the source is off (set source.enabled=true "
           "to run it too)");
  }
}

void RewriteTable(Rewriter& r, Role role, const std::string& today) {
  const std::optional<RawValue> table = r.Take("servicenow.table");
  std::optional<RawValue> topic = r.Take("kafka.topic");
  std::optional<RawValue> since = r.Take("servicenow.since");
  if (table) {
    const std::string name = Trim(table->value);
    if (const std::string problem = CheckTableName(name); !problem.empty() || name.empty()) {
      r.Error("servicenow.table", *table,
              "'" + name + "' " + (name.empty() ? "must not be empty" : problem));
    } else if (role == Role::kSink) {
      r.Put("snow.sink.table", name, "servicenow.table", *table);
    } else if (role == Role::kSource) {
      r.Put("snow.tables", name, "servicenow.table", *table);
      r.Put("snow.table." + name + ".name", name, "servicenow.table", *table);
      if (topic) {
        r.Put("snow.table." + name + ".topic", Trim(topic->value), "kafka.topic", *topic);
        topic.reset();
      } else {
        r.Error("servicenow.table", *table,
                "a source table needs kafka.topic, the topic its rows go to");
      }
      const std::string key = "snow.table." + name + ".start.timestamp";
      if (since) {
        r.Put(key, Trim(since->value) + " 00:00:00", "servicenow.since", *since);
        since.reset();
      } else {
        r.Put(key, today + " 00:00:00", "servicenow.table without servicenow.since", *table);
      }
    } else {
      r.Error("servicenow.table", *table,
              "cannot tell a source file from a sink file: give connector.class, kafka.topic "
              "(source) or topics (sink)");
    }
  }
  if (topic) {
    r.Error("kafka.topic", *topic,
            "only a Confluent source connector's servicenow.table takes its topic this way; "
            "it is not a librdkafka property, so it is not passed on (a snowcar source table "
            "takes its topic from snow.table.<alias>.topic)");
  }
  if (since) {
    r.Error("servicenow.since", *since,
            "only a Confluent source connector's servicenow.table takes its start this way (a "
            "snowcar source table starts at snow.table.<alias>.start.timestamp)");
  }
}

void RewriteNumbers(Rewriter& r) {
  if (const auto poll = r.Take("poll.interval.s")) {
    if (const auto seconds = r.WholeNumber("poll.interval.s", *poll, 1)) {
      r.Put("snow.source.poll.interval.ms", std::to_string(*seconds * 1000), "poll.interval.s",
            *poll);
    }
  }
  if (const auto retries = r.Take("retry.max.times")) {
    if (const auto times = r.WholeNumber("retry.max.times", *retries, 0)) {
      r.Put("snow.retry.max.attempts", std::to_string(*times + 1), "retry.max.times", *retries);
    }
  }
}

// A Connect worker runs a sink connector in the consumer group `connect-<name>`; taking that
// group keeps the connector's committed offsets.
void GroupFromConnectorName(Rewriter& r, Role role) {
  if (role != Role::kSink || r.Has("kafka.group.id") || !r.Has("name")) return;
  const std::optional<RawValue> name = r.Take("name");
  const std::string text = Trim(name->value);
  if (!text.empty()) {
    r.Put("kafka.group.id", "connect-" + text, "name", *name);
    r.Note("kafka.group.id is connect-" + text +
           ", the group Kafka Connect gave the sink "
           "connector '" +
           text + "', so the sink goes on from its committed offsets");
  }
  r.Restore("name", *name);
}

}  // namespace

void RewriteConfluentKeys(std::map<std::string, RawValue>& merged, const std::string& today,
                          std::vector<std::string>& errors, std::vector<std::string>& notes) {
  const Role role = RoleOf(merged);
  Rewriter r(merged, errors, notes);
  DirectionFromConnectorClass(r, merged);
  RewriteTable(r, role, today);
  RewriteNumbers(r);
  GroupFromConnectorName(r, role);
}

}  // namespace snowcar::config
