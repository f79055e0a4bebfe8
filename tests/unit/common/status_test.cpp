// SPDX-License-Identifier: Apache-2.0
#include "snowcar/common/status.h"

#include <gtest/gtest.h>

namespace snowcar {
namespace {

Result<int> ParsePositive(int v) {
  if (v <= 0) return Status::InvalidArgument("value must be positive, got " + std::to_string(v));
  return v;
}

Result<int> Doubled(int v) {
  SNOWCAR_ASSIGN_OR_RETURN(int x, ParsePositive(v));
  return 2 * x;
}

Status CheckBoth(int a, int b) {
  SNOWCAR_RETURN_IF_ERROR(ParsePositive(a).status());
  SNOWCAR_RETURN_IF_ERROR(ParsePositive(b).status());
  return Status::Ok();
}

TEST(StatusTest, OkByDefaultAndToString) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.ToString(), "OK");
  Status e = Status::NotFound("no table 'x'");
  EXPECT_FALSE(e.ok());
  EXPECT_EQ(e.ToString(), "NOT_FOUND: no table 'x'");
}

TEST(StatusTest, RetriableOnlyForTransientCodes) {
  EXPECT_TRUE(Status::Unavailable("broker down").retriable());
  EXPECT_TRUE(Status::DeadlineExceeded("timeout").retriable());
  EXPECT_FALSE(Status::InvalidArgument("bad").retriable());
  EXPECT_FALSE(Status::DataLoss("corrupt").retriable());
}

TEST(StatusTest, WithContextPrefixesMessageAndKeepsCode) {
  Status s = Status::PermissionDenied("open failed").WithContext("state dir /x");
  EXPECT_EQ(s.code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(s.message(), "state dir /x: open failed");
  EXPECT_TRUE(Status::Ok().WithContext("ignored").ok());
}

TEST(ResultTest, MacrosPropagateErrorsAndValues) {
  auto good = Doubled(21);
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, 42);
  auto bad = Doubled(-1);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("-1"), std::string::npos);
  EXPECT_TRUE(CheckBoth(1, 2).ok());
  EXPECT_EQ(CheckBoth(1, 0).message(), "value must be positive, got 0");
}

}  // namespace
}  // namespace snowcar
