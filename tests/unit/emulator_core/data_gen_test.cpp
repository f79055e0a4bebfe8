// SPDX-License-Identifier: Apache-2.0
// Generated data and seed files.
#include "snowcar/testbed/emulator/data_gen.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "test_clock.h"

namespace snowcar::emulator {
namespace {

TEST(DataGen, DeterministicForASeed) {
  testing::TestClock clock(testing::kBaseTime);
  auto schema = SchemaForTable("incident");
  GenOptions o;
  o.rows = 200;
  GenReferences refs{{"u1", "u2"}, {"g1"}, {"c1"}};
  auto a = GenerateRows(*schema, o, clock, refs);
  auto b = GenerateRows(*schema, o, clock, refs);
  EXPECT_EQ(a, b);
  o.seed = 2;
  EXPECT_NE(a, GenerateRows(*schema, o, clock, refs));
}

TEST(DataGen, IncidentsLookReal) {
  testing::TestClock clock(testing::kBaseTime);
  TableStore store(clock);
  GenOptions o;
  o.rows = 2000;
  o.span_seconds = 3600;
  o.rows_per_second = 4;
  ASSERT_TRUE(Populate(store, "incident", o).ok());
  EXPECT_EQ(store.Count("incident"), 2000u);
  EXPECT_EQ(store.Count("sys_user"), o.users);
  EXPECT_EQ(store.Count("sys_user_group"), o.groups);
  auto schema = store.Schema("incident");
  auto rows = *store.Snapshot("incident");
  std::set<std::string> seconds, numbers;
  size_t callers = 0, in_order = 0, fields_set = 0;
  const auto caller = *schema->IndexOf("caller_id");
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = *rows[i];
    EXPECT_TRUE(IsSysId(r.sys_id()));
    auto ts = ParseSnowTimestamp(r.sys_updated_on());
    ASSERT_TRUE(ts.ok());
    EXPECT_GE(*ts, testing::kBaseTime - 3600);
    EXPECT_LE(*ts, testing::kBaseTime);
    seconds.emplace(r.sys_updated_on());
    numbers.emplace(r.Get(*schema->IndexOf("number")));
    if (!r.Get(caller).empty()) {
      ++callers;
      EXPECT_FALSE(store.DisplayOf("sys_user", r.Get(caller)).empty());
    }
    if (i > 0 && rows[i - 1]->sys_updated_on() <= r.sys_updated_on()) ++in_order;
    for (size_t f = 0; f < schema->size(); ++f) fields_set += r.Get(f).empty() ? 0 : 1;
  }
  EXPECT_EQ(numbers.size(), 2000u);
  EXPECT_TRUE(numbers.count("INC0010001"));
  EXPECT_LT(seconds.size(), 1000u);  // many rows share a second
  EXPECT_GT(callers, 1000u);
  EXPECT_LT(in_order, 1900u);  // inserted out of timestamp order
  EXPECT_GT(fields_set / rows.size(), 20u);
  EXPECT_GE(schema->size(), 30u);
}

class SeedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("emucore_seed_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& text) {
    auto p = dir_ / "seed.json";
    std::ofstream(p) << text;
    return p.string();
  }
  std::filesystem::path dir_;
  testing::TestClock clock_{testing::kBaseTime};
  TableStore store_{clock_};
};

TEST_F(SeedTest, LoadsRowsKeepingGivenSystemFields) {
  const std::string path = Write(R"({
    "incident": [
      {"sys_id": "0123456789abcdef0123456789abcdef", "number": "INC0000042",
       "sys_updated_on": "2025-06-01 10:00:00", "sys_mod_count": 3, "priority": 1,
       "active": false, "closed_at": null},
      {"short_description": "second"}
    ],
    "u_things": [{"u_color": "red"}]
  })");
  ASSERT_TRUE(LoadSeedFile(store_, path).ok());
  auto first = store_.Get("incident", "0123456789abcdef0123456789abcdef");
  ASSERT_TRUE(first.ok());
  auto schema = store_.Schema("incident");
  EXPECT_EQ((*first)->sys_updated_on(), "2025-06-01 10:00:00");
  EXPECT_EQ((*first)->Get(TableSchema::kSysModCount), "3");
  EXPECT_EQ((*first)->Get(*schema->IndexOf("priority")), "1");
  EXPECT_EQ((*first)->Get(*schema->IndexOf("active")), "false");
  auto rows = *store_.Snapshot("incident");
  ASSERT_EQ(rows.size(), 2u);
  // The number counter runs on its own (like an instance's), skipping past numbers loaded.
  EXPECT_EQ(rows[1]->Get(*schema->IndexOf("number")), "INC0010001");
  EXPECT_EQ(rows[1]->sys_updated_on(), "2026-03-01 12:00:00");
  EXPECT_EQ(store_.Count("u_things"), 1u);
}

TEST_F(SeedTest, ErrorsNameFileAndPosition) {
  auto check = [&](const std::string& text, const std::vector<std::string>& parts) {
    const std::string path = Write(text);
    Status s = LoadSeedFile(store_, path);
    ASSERT_FALSE(s.ok()) << text;
    EXPECT_NE(s.message().find(path), std::string::npos) << s.message();
    for (const auto& p : parts) EXPECT_NE(s.message().find(p), std::string::npos) << s.message();
  };
  check("{\"incident\": [\n  {\"a\": }\n]}", {"line 2"});
  check("[1,2]", {"top level"});
  check(R"({"incident": {"a": 1}})", {"'incident'", "array"});
  check(R"({"incident": [{"a": "b"}, 7]})", {"row 1", "not an object"});
  check(R"({"incident": [{"caller_id": {"value": "x"}}]})", {"row 0", "caller_id", "an object"});
  check(R"({"incident": [{"sys_updated_on": "yesterday"}]})", {"row 0", "sys_updated_on"});
  check(R"({"incident": [{"sys_id": "XYZ"}]})", {"row 0", "sys_id"});
  check(R"({"incident": [{"sys_mod_count": "-1"}]})", {"sys_mod_count"});
  check(R"({"Bad Table": []})", {"Bad Table"});
  const std::string dup = R"({"incident": [{"sys_id": "0123456789abcdef0123456789abcdef"},
                                           {"sys_id": "0123456789abcdef0123456789abcdef"}]})";
  check(dup, {"row 1", "duplicate"});
  EXPECT_EQ(store_.Count("incident"), 0u);  // all or nothing
  Status missing = LoadSeedFile(store_, (dir_ / "none.json").string());
  EXPECT_EQ(missing.code(), StatusCode::kNotFound);
  EXPECT_NE(missing.message().find("none.json"), std::string::npos);
}

}  // namespace
}  // namespace snowcar::emulator
