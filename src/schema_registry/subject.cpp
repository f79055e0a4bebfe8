// SPDX-License-Identifier: Apache-2.0
#include "snowcar/schema_registry/subject.h"

namespace snowcar::schema_registry {
namespace {

constexpr std::string_view kClassPackage = "io.confluent.kafka.serializers.subject.";

}  // namespace

Result<SubjectStrategy> ParseSubjectStrategy(std::string_view text) {
  if (text.starts_with(kClassPackage)) text.remove_prefix(kClassPackage.size());
  if (text == "topic_name" || text == "TopicNameStrategy") return SubjectStrategy::kTopicName;
  if (text == "record_name" || text == "RecordNameStrategy") return SubjectStrategy::kRecordName;
  if (text == "topic_record_name" || text == "TopicRecordNameStrategy") {
    return SubjectStrategy::kTopicRecordName;
  }
  return Status::InvalidArgument("unknown subject name strategy '" + std::string(text) +
                                 "': expected topic_name, record_name or topic_record_name");
}

std::string_view SubjectStrategyName(SubjectStrategy strategy) {
  switch (strategy) {
    case SubjectStrategy::kTopicName:
      return "topic_name";
    case SubjectStrategy::kRecordName:
      return "record_name";
    case SubjectStrategy::kTopicRecordName:
      return "topic_record_name";
  }
  return "topic_name";
}

Result<std::string> SubjectName(SubjectStrategy strategy, std::string_view topic, bool is_key,
                                std::string_view record_name) {
  if (strategy != SubjectStrategy::kRecordName && topic.empty()) {
    return Status::InvalidArgument("a subject name needs the topic, and none was given");
  }
  if (strategy != SubjectStrategy::kTopicName && record_name.empty()) {
    return Status::InvalidArgument("subject name strategy " +
                                   std::string(SubjectStrategyName(strategy)) +
                                   " needs the record's full name, and the schema has none");
  }
  switch (strategy) {
    case SubjectStrategy::kTopicName:
      return std::string(topic) + (is_key ? "-key" : "-value");
    case SubjectStrategy::kRecordName:
      return std::string(record_name);
    case SubjectStrategy::kTopicRecordName:
      return std::string(topic) + "-" + std::string(record_name);
  }
  return Status::Internal("unhandled subject name strategy");
}

}  // namespace snowcar::schema_registry
