// SPDX-License-Identifier: Apache-2.0
// Subject name strategies: which subject a topic's key or value schema is registered under.
// The names follow Confluent's serializers (`key.subject.name.strategy`,
// `value.subject.name.strategy`), so subjects written by snowcar match those of Connect.
#pragma once

#include <string>
#include <string_view>

#include "snowcar/common/status.h"

namespace snowcar::schema_registry {

enum class SubjectStrategy {
  kTopicName,        // "<topic>-key" / "<topic>-value" (the default)
  kRecordName,       // "<record full name>": one subject per record type across topics
  kTopicRecordName,  // "<topic>-<record full name>"
};

// Accepts snowcar's names (topic_name, record_name, topic_record_name) and Confluent's class
// names (io.confluent.kafka.serializers.subject.TopicNameStrategy, ...).
Result<SubjectStrategy> ParseSubjectStrategy(std::string_view text);
std::string_view SubjectStrategyName(SubjectStrategy strategy);

// The subject for a key (`is_key`) or value schema. `record_name` is the schema's full name
// (Avro: namespace.name; JSON Schema: its "title"); the record strategies need it and refuse
// an empty one with InvalidArgument.
Result<std::string> SubjectName(SubjectStrategy strategy, std::string_view topic, bool is_key,
                                std::string_view record_name);

}  // namespace snowcar::schema_registry
