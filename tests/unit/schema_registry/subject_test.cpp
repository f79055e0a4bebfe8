// SPDX-License-Identifier: Apache-2.0
#include "snowcar/schema_registry/subject.h"

#include <gtest/gtest.h>

namespace snowcar::schema_registry {
namespace {

TEST(SubjectTest, TopicNameIsTheDefaultShape) {
  EXPECT_EQ(*SubjectName(SubjectStrategy::kTopicName, "snow.incident", false, ""),
            "snow.incident-value");
  EXPECT_EQ(*SubjectName(SubjectStrategy::kTopicName, "snow.incident", true, "ignored"),
            "snow.incident-key");
}

TEST(SubjectTest, RecordStrategiesUseTheFullName) {
  EXPECT_EQ(*SubjectName(SubjectStrategy::kRecordName, "t", false, "com.acme.Incident"),
            "com.acme.Incident");
  EXPECT_EQ(*SubjectName(SubjectStrategy::kTopicRecordName, "t", true, "com.acme.Incident"),
            "t-com.acme.Incident");
}

TEST(SubjectTest, RecordStrategyWithoutANameIsRefused) {
  auto s = SubjectName(SubjectStrategy::kRecordName, "t", false, "");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("record_name"), std::string::npos);
  EXPECT_FALSE(SubjectName(SubjectStrategy::kTopicName, "", false, "x").ok());
}

TEST(SubjectTest, ParsesShortAndConfluentClassNames) {
  EXPECT_EQ(*ParseSubjectStrategy("topic_name"), SubjectStrategy::kTopicName);
  EXPECT_EQ(*ParseSubjectStrategy("io.confluent.kafka.serializers.subject.RecordNameStrategy"),
            SubjectStrategy::kRecordName);
  EXPECT_EQ(*ParseSubjectStrategy("TopicRecordNameStrategy"), SubjectStrategy::kTopicRecordName);
  EXPECT_FALSE(ParseSubjectStrategy("io.confluent.Other").ok());
  for (auto s : {SubjectStrategy::kTopicName, SubjectStrategy::kRecordName,
                 SubjectStrategy::kTopicRecordName}) {
    EXPECT_EQ(*ParseSubjectStrategy(SubjectStrategyName(s)), s);
  }
}

}  // namespace
}  // namespace snowcar::schema_registry
