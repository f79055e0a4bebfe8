// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include "snowcar/state/state_store.h"
#include "support/state_fixture.h"

namespace snowcar::state {
namespace {

class CorrelationTest : public testsupport::StateStoreTest {};

TEST_F(CorrelationTest, GetPutOverwriteErase) {
  TempDir tmp;
  auto store = OpenOrDie(tmp.path());
  auto missing = store->GetCorrelation("incident", "correlation_id", "ext-1");
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());

  ASSERT_TRUE(store->PutCorrelation("incident", "correlation_id", "ext-1", "id-1").ok());
  EXPECT_EQ(store->GetCorrelation("incident", "correlation_id", "ext-1")->value_or(""), "id-1");

  ASSERT_TRUE(store->PutCorrelation("incident", "correlation_id", "ext-1", "id-2").ok());
  EXPECT_EQ(store->GetCorrelation("incident", "correlation_id", "ext-1")->value_or(""), "id-2");

  ASSERT_TRUE(store->EraseCorrelation("incident", "correlation_id", "ext-1").ok());
  EXPECT_FALSE(store->GetCorrelation("incident", "correlation_id", "ext-1")->has_value());
  // Erasing what is not there is fine (a 404 on PATCH drops the id, maybe twice).
  EXPECT_TRUE(store->EraseCorrelation("incident", "correlation_id", "ext-1").ok());
}

TEST_F(CorrelationTest, KeysDoNotRunIntoEachOther) {
  TempDir tmp;
  auto store = OpenOrDie(tmp.path());
  ASSERT_TRUE(store->PutCorrelation("a", "bc", "d", "one").ok());
  ASSERT_TRUE(store->PutCorrelation("ab", "c", "d", "two").ok());
  ASSERT_TRUE(store->PutCorrelation("a", "b", "cd", "three").ok());
  EXPECT_EQ(store->GetCorrelation("a", "bc", "d")->value_or(""), "one");
  EXPECT_EQ(store->GetCorrelation("ab", "c", "d")->value_or(""), "two");
  EXPECT_EQ(store->GetCorrelation("a", "b", "cd")->value_or(""), "three");
  // An empty value is a value like any other.
  ASSERT_TRUE(store->PutCorrelation("a", "b", "", "four").ok());
  EXPECT_EQ(store->GetCorrelation("a", "b", "")->value_or(""), "four");
}

TEST_F(CorrelationTest, SurvivesReopen) {
  TempDir tmp;
  {
    auto store = OpenOrDie(tmp.path());
    ASSERT_TRUE(store->PutCorrelation("incident", "u_ext", "E-9", "abc").ok());
  }
  auto store = OpenOrDie(tmp.path());
  EXPECT_EQ(store->GetCorrelation("incident", "u_ext", "E-9")->value_or(""), "abc");
}

TEST_F(CorrelationTest, BadInputIsRefusedClearly) {
  TempDir tmp;
  auto store = OpenOrDie(tmp.path());
  auto s = store->PutCorrelation("incident", "", "v", "id");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("field"), std::string::npos);
  EXPECT_EQ(store->PutCorrelation("incident", "f", "v", "").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store->GetCorrelation("", "f", "v").status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace snowcar::state
