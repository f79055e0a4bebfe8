// SPDX-License-Identifier: Apache-2.0
#include "snowcar/kafka/static_membership.h"

#include <gtest/gtest.h>

#include <string>

namespace snowcar::kafka {
namespace {

TEST(StaticMembership, AStatefulSetPodNameIsTheDefaultId) {
  auto m = ResolveStaticMembership("", "snowcar-app-2");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->id, "snowcar-app-2");
  EXPECT_EQ(m->origin, "POD_NAME");
}

TEST(StaticMembership, OffWithoutAStableName) {
  for (const char* pod : {static_cast<const char*>(nullptr), ""}) {
    auto m = ResolveStaticMembership("", pod);
    ASSERT_TRUE(m.ok());
    EXPECT_EQ(m->id, "");
    EXPECT_NE(m->origin.find("off"), std::string::npos) << m->origin;
  }
}

TEST(StaticMembership, AnExplicitIdWinsOverThePodName) {
  auto m = ResolveStaticMembership("orders-sync-1", "snowcar-app-0");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->id, "orders-sync-1");
  EXPECT_EQ(m->origin, "kafka.group.instance.id");
}

TEST(StaticMembership, OffTurnsItOffEvenInAPod) {
  auto m = ResolveStaticMembership("off", "snowcar-app-0");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->id, "");
  EXPECT_EQ(m->origin, "off: kafka.group.instance.id=off");
}

TEST(StaticMembership, APodNameKafkaWouldRefuseIsAnErrorNamingIt) {
  auto m = ResolveStaticMembership("", "team/app 0");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(m.status().message().find("POD_NAME"), std::string::npos) << m.status().message();
  EXPECT_NE(m.status().message().find("letters, digits"), std::string::npos);

  auto long_name = ResolveStaticMembership("", std::string(250, 'a').c_str());
  ASSERT_FALSE(long_name.ok());
  EXPECT_NE(long_name.status().message().find("249"), std::string::npos);
  EXPECT_TRUE(ResolveStaticMembership("", std::string(249, 'a').c_str()).ok());
}

TEST(StaticMembership, AnInvalidExplicitIdIsAnErrorNamingTheKey) {
  auto m = ResolveStaticMembership("a:b", nullptr);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("kafka.group.instance.id"), std::string::npos);
}

TEST(StaticMembership, ApplySetsOrRemovesTheLibrdkafkaProperty) {
  std::map<std::string, std::string> properties = {{"group.id", "g"}, {"group.instance.id", "off"}};
  ApplyStaticMembership({.id = "", .origin = "off"}, properties);
  EXPECT_FALSE(properties.contains("group.instance.id"));
  ApplyStaticMembership({.id = "snowcar-app-0", .origin = "POD_NAME"}, properties);
  EXPECT_EQ(properties.at("group.instance.id"), "snowcar-app-0");
  EXPECT_EQ(properties.at("group.id"), "g");
}

}  // namespace
}  // namespace snowcar::kafka
