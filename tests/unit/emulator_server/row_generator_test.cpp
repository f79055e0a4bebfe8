// SPDX-License-Identifier: Apache-2.0
// The row generator: rows appear, many in one second, late-visible rows.
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <thread>

#include "emulator_fixture.h"

namespace snowcar::emulator::testing {
namespace {

// A timestamp as it goes into a URL.
std::string Encoded(int64_t epoch_seconds) {
  std::string t = FormatSnowTimestamp(epoch_seconds);
  return t.replace(10, 1, "%20");
}

class RowGeneratorTest : public EmulatorTest {
 protected:
  // Waits (bounded) until `done` holds.
  template <typename F>
  bool WaitFor(F done, std::chrono::milliseconds limit = std::chrono::seconds(10)) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));  // poll interval, not a sync
    }
    return true;
  }
  std::string NewestUpdatedOn() {
    auto r =
        Get(Url("/api/now/table/incident?sysparm_limit=1&sysparm_query=ORDERBYDESCsys_updated_on"));
    return std::string(Json(r.body).at("result").at(0).at("sys_updated_on").as_string());
  }
};

TEST_F(RowGeneratorTest, ManyRowsInOneSecond) {
  server_->clock().FreezeAt(1'790'000'000'000);
  ASSERT_TRUE(server_->row_generator().WriteNow("incident", 200, 0, 0).ok());
  auto r = Get(Url("/api/now/table/incident?sysparm_query=sys_updated_on%3D" +
                   Encoded(1'790'000'000) + "&sysparm_limit=1"));
  EXPECT_EQ(r.Header("x-total-count"), "200");
  EXPECT_EQ(server_->row_generator().stats().inserted, 200u);
}

TEST_F(RowGeneratorTest, LateVisibleRowIsOlderThanRowsAlreadyRead) {
  server_->clock().FreezeAt(1'790'000'000'000);
  ASSERT_TRUE(server_->row_generator().WriteNow("incident", 3, 0, 0).ok());
  const std::string newest_read = NewestUpdatedOn();
  ASSERT_TRUE(server_->row_generator().WriteNow("incident", 1, 0, 5).ok());
  auto r = Get(
      Url("/api/now/table/incident?sysparm_query=sys_updated_on%3D" + Encoded(1'790'000'000 - 5)));
  ASSERT_EQ(r.Header("x-total-count"), "1");
  const std::string late(Json(r.body).at("result").at(0).at("sys_updated_on").as_string());
  EXPECT_LT(late, newest_read);
  EXPECT_EQ(server_->row_generator().stats().late, 1u);
}

TEST_F(RowGeneratorTest, UpdatesBumpModCount) {
  ASSERT_TRUE(server_->row_generator().WriteNow("incident", 0, 5, 0).ok());
  size_t updated = 0;
  auto snapshot = server_->store().Snapshot("incident");
  ASSERT_TRUE(snapshot.ok());
  for (const auto& row : *snapshot) {
    if (row->Get(TableSchema::kSysModCount) != "0") ++updated;
  }
  EXPECT_GE(updated, 1u);
  EXPECT_EQ(server_->row_generator().stats().updated, 5u);
}

TEST_F(RowGeneratorTest, BackgroundGeneratorWritesUntilStopped) {
  RowGeneratorOptions o;
  o.tables = {"incident"};
  o.rows_per_second = 500;
  o.update_share = 0.5;
  ASSERT_TRUE(server_->row_generator().Start(o).ok());
  EXPECT_FALSE(server_->row_generator().Start(o).ok());  // already running
  // Pages keep being read while the writer runs.
  ASSERT_TRUE(WaitFor([&] {
    EXPECT_EQ(Get(Url("/api/now/table/incident?sysparm_limit=20")).status, 200);
    const auto s = server_->row_generator().stats();
    return s.inserted >= 10 && s.updated >= 10;
  }));
  server_->row_generator().Stop();
  EXPECT_FALSE(server_->row_generator().running());
  const auto count = server_->store().Count("incident");
  EXPECT_EQ(count, 73 + server_->row_generator().stats().inserted);
}

TEST_F(RowGeneratorTest, BurstsWriteManyRowsInOneSecond) {
  server_->clock().FreezeAt(1'790'000'000'000);
  RowGeneratorOptions o;
  o.tables = {"incident"};
  o.rows_per_second = 0;
  o.burst_rows = 40;
  o.burst_interval_ms = 50;
  ASSERT_TRUE(server_->row_generator().Start(o).ok());
  ASSERT_TRUE(WaitFor([&] { return server_->row_generator().stats().inserted >= 40; }));
  server_->row_generator().Stop();
  auto r = Get(Url("/api/now/table/incident?sysparm_limit=1&sysparm_query=sys_updated_on%3D" +
                   Encoded(1'790'000'000)));
  EXPECT_GE(std::stoul(r.Header("x-total-count")), 40u);
}

TEST_F(RowGeneratorTest, RejectsUnknownTable) {
  RowGeneratorOptions o;
  o.tables = {"nope"};
  EXPECT_EQ(server_->row_generator().Start(o).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace snowcar::emulator::testing
