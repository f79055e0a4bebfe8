// SPDX-License-Identifier: Apache-2.0
#include "snowcar/kafka/topic_creation.h"

#include <algorithm>
#include <regex>
#include <set>
#include <string_view>

#include "snowcar/common/text.h"

namespace snowcar::kafka {

struct TopicCreation::Compiled {
  struct Group {
    std::vector<std::regex> include;
    std::vector<std::regex> exclude;
  };
  std::vector<Group> groups;  // parallel to groups_
};

namespace {

constexpr std::string_view kPrefix = "topic.creation.";
constexpr std::string_view kDefault = "default";

std::vector<std::string> SplitList(std::string_view text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    const std::string_view item = TrimSpace(text.substr(start, comma - start));
    if (!item.empty()) out.emplace_back(item);
    start = comma + 1;
  }
  return out;
}

bool IsGroupName(std::string_view name) {
  return !name.empty() && name.find_first_not_of(
                              "abcdefghijklmnopqrstuvwxyz"
                              "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == std::string_view::npos;
}

// -1 (the broker's default) or a whole number from 1 to `max`.
std::optional<int32_t> Count(std::string_view text, int64_t max) {
  text = TrimSpace(text);
  if (text == "-1") return -1;
  if (text.empty() || text.size() > 10 ||
      text.find_first_not_of("0123456789") != std::string_view::npos) {
    return std::nullopt;
  }
  const int64_t n = std::stoll(std::string(text));
  if (n < 1 || n > max) return std::nullopt;
  return static_cast<int32_t>(n);
}

struct Given {
  TopicCreationGroup group;
  std::optional<int32_t> partitions;
  std::optional<int32_t> replication_factor;
  TopicCreation::Compiled::Group compiled;
};

class Parser {
 public:
  explicit Parser(std::vector<std::string>& errors) : errors_(errors) {}

  void Error(std::string_view key, const std::string& problem) {
    errors_.push_back(std::string(kPrefix) + std::string(key) + ": " + problem);
  }

  void Patterns(std::string_view key, std::string_view value, std::vector<std::string>& texts,
                std::vector<std::regex>& compiled) {
    for (std::string& pattern : SplitList(value)) {
      try {
        compiled.emplace_back(pattern, std::regex::ECMAScript);
        texts.push_back(std::move(pattern));
      } catch (const std::regex_error& e) {
        Error(key, "'" + pattern + "' is not a regular expression (" + e.what() + ")");
      }
    }
  }

  // One `<group>.<setting>` key of a known group.
  void Setting(std::string_view key, std::string_view setting, std::string_view value, Given& g) {
    const bool is_default = g.group.name == kDefault;
    if (setting == "include" || setting == "exclude") {
      if (is_default) {
        Error(key,
              "the default group takes every topic no listed group takes, so it has no "
              "include or exclude list; put the patterns on a group named in "
              "topic.creation.groups");
        return;
      }
      if (setting == "include") {
        Patterns(key, value, g.group.include, g.compiled.include);
      } else {
        Patterns(key, value, g.group.exclude, g.compiled.exclude);
      }
    } else if (setting == "partitions") {
      g.partitions = Count(value, 2147483647);
      if (!g.partitions) Error(key, "'" + std::string(value) + "' must be -1 or 1 to 2147483647");
    } else if (setting == "replication.factor") {
      g.replication_factor = Count(value, 32767);
      if (!g.replication_factor) {
        Error(key, "'" + std::string(value) + "' must be -1 or 1 to 32767");
      }
    } else {
      // Any other name is a topic config; the broker checks name and value at creation.
      g.group.configs[std::string(setting)] = std::string(TrimSpace(value));
    }
  }

 private:
  std::vector<std::string>& errors_;
};

}  // namespace

Result<TopicCreation> TopicCreation::Parse(bool enable,
                                           const std::map<std::string, std::string>& keys) {
  std::vector<std::string> errors;
  Parser parser(errors);
  std::vector<std::string> order;
  std::map<std::string, Given, std::less<>> given;
  given[std::string(kDefault)].group.name = std::string(kDefault);
  if (const auto it = keys.find("groups"); it != keys.end()) {
    for (std::string& name : SplitList(it->second)) {
      if (name == kDefault) {
        parser.Error("groups",
                     "'default' is the group every other topic falls back to; it is "
                     "configured as topic.creation.default.* without being listed");
      } else if (!IsGroupName(name)) {
        parser.Error("groups", "'" + name + "' is not a group name (letters, digits, '_', '-')");
      } else if (given.count(name) != 0) {
        parser.Error("groups", "'" + name + "' is listed twice");
      } else {
        given[name].group.name = name;
        order.push_back(std::move(name));
      }
    }
  }
  for (const auto& [key, value] : keys) {
    if (key == "enable" || key == "groups") continue;
    const size_t dot = key.find('.');
    if (dot == std::string::npos || dot + 1 == key.size()) {
      parser.Error(key, "expected topic.creation.<group>.<setting>");
      continue;
    }
    const std::string_view group = std::string_view(key).substr(0, dot);
    const auto it = given.find(group);
    if (it == given.end()) {
      parser.Error(key,
                   "the group '" + std::string(group) + "' is not listed in topic.creation.groups");
      continue;
    }
    parser.Setting(key, std::string_view(key).substr(dot + 1), value, it->second);
  }

  Given& def = given[std::string(kDefault)];
  if (def.partitions.has_value() != def.replication_factor.has_value()) {
    parser.Error(def.partitions ? "default.replication.factor" : "default.partitions",
                 std::string("is required with topic.creation.default.") +
                     (def.partitions ? "partitions" : "replication.factor") +
                     " (both turn topic creation on; -1 takes the broker's default)");
  }
  for (const std::string& name : order) {
    if (given[name].group.include.empty()) {
      parser.Error(name + ".include",
                   "is required for the group '" + name + "' listed in topic.creation.groups");
    }
  }
  if (!errors.empty()) {
    std::string message;
    for (const std::string& e : errors) message += (message.empty() ? "" : "\n") + e;
    return Status::InvalidArgument(message);
  }

  TopicCreation out;
  out.active_ = enable && def.partitions.has_value() && def.replication_factor.has_value();
  out.default_ = def.group;
  out.default_.partitions = def.partitions.value_or(-1);
  out.default_.replication_factor = def.replication_factor.value_or(-1);
  auto compiled = std::make_shared<Compiled>();
  for (const std::string& name : order) {
    Given& g = given[name];
    g.group.partitions = g.partitions.value_or(out.default_.partitions);
    g.group.replication_factor = g.replication_factor.value_or(out.default_.replication_factor);
    out.groups_.push_back(g.group);
    compiled->groups.push_back(std::move(g.compiled));
  }
  out.compiled_ = std::move(compiled);
  return out;
}

std::optional<NewTopicSpec> TopicCreation::For(const std::string& topic) const {
  if (!active_) return std::nullopt;
  const TopicCreationGroup* chosen = &default_;
  for (size_t i = 0; compiled_ && i < groups_.size(); ++i) {
    const Compiled::Group& g = compiled_->groups[i];
    const auto matches = [&topic](const std::regex& re) { return std::regex_match(topic, re); };
    if (std::any_of(g.include.begin(), g.include.end(), matches) &&
        std::none_of(g.exclude.begin(), g.exclude.end(), matches)) {
      chosen = &groups_[i];
      break;
    }
  }
  return NewTopicSpec{.name = topic,
                      .group = chosen->name,
                      .partitions = chosen->partitions,
                      .replication_factor = chosen->replication_factor,
                      .configs = chosen->configs};
}

}  // namespace snowcar::kafka
