// SPDX-License-Identifier: Apache-2.0
// AckTracker: the committable cursor is the end of the contiguous acknowledged prefix.
#include "snowcar/source/rows/ack_tracker.h"

#include <gtest/gtest.h>

namespace snowcar::source {
namespace {

state::Cursor At(int64_t ts, std::string id) { return state::Cursor{ts, std::move(id)}; }

TEST(AckTrackerTest, NothingToCommitAtFirst) {
  AckTracker tracker;
  EXPECT_FALSE(tracker.TakeCommittable().has_value());
  const auto t = tracker.Add(At(1, "a"));
  EXPECT_FALSE(tracker.TakeCommittable().has_value());  // added, not acknowledged
  EXPECT_EQ(tracker.outstanding(), 1u);
  tracker.Ack(t);
  EXPECT_EQ(tracker.TakeCommittable(), At(1, "a"));
  EXPECT_EQ(tracker.outstanding(), 0u);
  EXPECT_FALSE(tracker.TakeCommittable().has_value());  // taken once
}

TEST(AckTrackerTest, OutOfOrderAcksWaitForThePrefix) {
  AckTracker tracker;
  const auto a = tracker.Add(At(1, "a"));
  const auto b = tracker.Add(At(1, "b"));
  const auto c = tracker.Add(At(2, "c"));
  tracker.Ack(c);
  tracker.Ack(b);
  EXPECT_FALSE(tracker.TakeCommittable().has_value());
  EXPECT_EQ(tracker.outstanding(), 3u);
  tracker.Ack(a);
  EXPECT_EQ(tracker.TakeCommittable(), At(2, "c"));
  EXPECT_EQ(tracker.outstanding(), 0u);
}

TEST(AckTrackerTest, PartialPrefix) {
  AckTracker tracker;
  const auto a = tracker.Add(At(1, "a"));
  const auto b = tracker.Add(At(1, "b"));
  const auto c = tracker.Add(At(2, "c"));
  tracker.Ack(a);
  tracker.Ack(c);
  EXPECT_EQ(tracker.TakeCommittable(), At(1, "a"));
  EXPECT_EQ(tracker.outstanding(), 2u);
  tracker.Ack(b);
  EXPECT_EQ(tracker.TakeCommittable(), At(2, "c"));
}

TEST(AckTrackerTest, RepeatedAndUnknownTicketsAreIgnored) {
  AckTracker tracker;
  const auto a = tracker.Add(At(1, "a"));
  tracker.Ack(a);
  tracker.Ack(a);
  tracker.Ack(a + 100);  // never issued
  EXPECT_EQ(tracker.TakeCommittable(), At(1, "a"));
  tracker.Ack(a);  // already taken
  const auto b = tracker.Add(At(2, "b"));
  EXPECT_FALSE(tracker.TakeCommittable().has_value());
  tracker.Ack(b);
  EXPECT_EQ(tracker.TakeCommittable(), At(2, "b"));
}

TEST(AckTrackerTest, FailureBlocksEverythingFromTheFailedRowOn) {
  AckTracker tracker;
  const auto a = tracker.Add(At(1, "a"));
  const auto b = tracker.Add(At(1, "b"));
  const auto c = tracker.Add(At(2, "c"));
  tracker.Ack(a);
  tracker.Fail(b);
  tracker.Ack(c);
  EXPECT_TRUE(tracker.failed());
  EXPECT_EQ(tracker.TakeCommittable(), At(1, "a"));  // before the failure: still committable
  tracker.Ack(b);  // a late ack of the failed row does not lift the failure
  EXPECT_FALSE(tracker.TakeCommittable().has_value());
  EXPECT_TRUE(tracker.failed());
}

TEST(AckTrackerTest, FailingATakenTicketChangesNothing) {
  AckTracker tracker;
  const auto a = tracker.Add(At(1, "a"));
  tracker.Ack(a);
  EXPECT_EQ(tracker.TakeCommittable(), At(1, "a"));
  tracker.Fail(a);
  EXPECT_FALSE(tracker.failed());
  const auto b = tracker.Add(At(2, "b"));
  tracker.Ack(b);
  EXPECT_EQ(tracker.TakeCommittable(), At(2, "b"));
}

TEST(AckTrackerTest, EarlierFailureWins) {
  AckTracker tracker;
  const auto a = tracker.Add(At(1, "a"));
  const auto b = tracker.Add(At(1, "b"));
  tracker.Fail(b);
  tracker.Fail(a);
  tracker.Ack(a);
  tracker.Ack(b);
  EXPECT_FALSE(tracker.TakeCommittable().has_value());
}

TEST(AckTrackerTest, ResetForgetsEverythingAndIgnoresLateReports) {
  AckTracker tracker;
  const auto a = tracker.Add(At(1, "a"));
  const auto b = tracker.Add(At(1, "b"));
  tracker.Fail(b);
  tracker.Reset();
  EXPECT_FALSE(tracker.failed());
  EXPECT_EQ(tracker.outstanding(), 0u);
  const auto c = tracker.Add(At(5, "c"));
  EXPECT_NE(c, a);
  EXPECT_NE(c, b);
  tracker.Ack(a);  // from before the reset
  EXPECT_FALSE(tracker.TakeCommittable().has_value());
  tracker.Ack(c);
  EXPECT_EQ(tracker.TakeCommittable(), At(5, "c"));
}

TEST(AckTrackerTest, ManyRowsInOrder) {
  AckTracker tracker;
  std::vector<AckTracker::Ticket> tickets;
  tickets.reserve(1000);
  for (int i = 0; i < 1000; ++i) tickets.push_back(tracker.Add(At(i, "x")));
  for (size_t i = tickets.size(); i-- > 1;) tracker.Ack(tickets[i]);  // all but the first
  EXPECT_FALSE(tracker.TakeCommittable().has_value());
  tracker.Ack(tickets[0]);
  EXPECT_EQ(tracker.TakeCommittable(), At(999, "x"));
}

}  // namespace
}  // namespace snowcar::source
