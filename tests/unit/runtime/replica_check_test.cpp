// SPDX-License-Identifier: Apache-2.0
// The warning `snowcar run` logs for a source without source.group.id in a StatefulSet pod.
#include "snowcar/runtime/replica_check.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace snowcar::runtime {
namespace {

using ::testing::HasSubstr;

TEST(ReplicaCheckTest, StatefulSetPodNames) {
  EXPECT_TRUE(LooksLikeStatefulSetPod("snowcar-app-0"));
  EXPECT_TRUE(LooksLikeStatefulSetPod("app-12"));
  EXPECT_FALSE(LooksLikeStatefulSetPod("snowcar-app-7d9c5b6f4-x2x9q"));  // a Deployment's pod
  EXPECT_FALSE(LooksLikeStatefulSetPod("snowcar"));
  EXPECT_FALSE(LooksLikeStatefulSetPod("app-"));
  EXPECT_FALSE(LooksLikeStatefulSetPod("-3"));
  EXPECT_FALSE(LooksLikeStatefulSetPod(""));
}

TEST(ReplicaCheckTest, WarnsOnlyForASourceWithoutGroupInAReplica) {
  SidecarSettings s;
  s.source_enabled = true;
  EXPECT_THAT(SourceWithoutGroupWarning(s, "snowcar-app-1"),
              HasSubstr("the source is on without source.group.id in pod snowcar-app-1"));
  EXPECT_EQ(SourceWithoutGroupWarning(s, nullptr), "");
  EXPECT_EQ(SourceWithoutGroupWarning(s, "laptop"), "");
  s.source_group_id = "acme-tables";
  EXPECT_EQ(SourceWithoutGroupWarning(s, "snowcar-app-1"), "");
  s.source_group_id.clear();
  s.source_enabled = false;
  EXPECT_EQ(SourceWithoutGroupWarning(s, "snowcar-app-1"), "");
}

}  // namespace
}  // namespace snowcar::runtime
