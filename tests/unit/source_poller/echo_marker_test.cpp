// SPDX-License-Identifier: Apache-2.0
// The source's half of the origin marks: exactly the recorded version is marked (or
// suppressed), with the command's headers; every other version, and a row without a
// sys_mod_count, is left alone.
#include "source/echo/echo_marker.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "snowcar/source/rows/record_builder.h"
#include "snowcar/state/state_store.h"
#include "support/temp_dir.h"

namespace snowcar::source {
namespace {

constexpr char kInstance[] = "acme.service-now.com";
constexpr char kId[] = "9d385017c611228701d22104cc95c371";

class EchoMarkerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = state::StateStore::Open(state::StateStoreOptions{dir_.File("state")});
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
    table_.alias = "inc";
    table_.name = "incident";
    table_.topic = "snow.incident";
    source_.instance = kInstance;
    state::Origin o;
    o.topic = "snow.commands";
    o.partition = 1;
    o.offset = 42;
    o.request_id = "req-42";
    o.written_at_ms = 1;
    ASSERT_TRUE(store_->RecordOrigin({kInstance, "incident", kId, 7}, o, {}).ok());
    // The create's version 0 too: a row read without a sys_mod_count must not match it.
    ASSERT_TRUE(store_->RecordOrigin({kInstance, "incident", kId, 0}, o, {}).ok());
  }

  // Applies `mode` to the row with this mod count; returns the verdict and the record.
  std::pair<EchoVerdict, kafka::OutRecord> Apply(EchoMode mode, const std::string& mod_json) {
    const auto row =
        boost::json::parse(R"({"sys_id":")" + std::string(kId) +
                           R"(","sys_updated_on":"2026-12-03 19:30:12")" +
                           (mod_json.empty() ? "" : ",\"sys_mod_count\":" + mod_json) + "}")
            .as_object();
    auto key = ReadRowKey(row, table_);
    EXPECT_TRUE(key.ok()) << key.status().ToString();
    std::vector<kafka::OutRecord> records{BuildRecord(row, *key, table_, source_, 0)};
    Status error;
    const EchoVerdict v =
        ApplyEcho(*store_, mode, kInstance, table_, CarriesModCount(row), *key, records, &error);
    EXPECT_TRUE(error.ok()) << error.ToString();
    return {v, records.front()};
  }

  static const kafka::Header* Find(const kafka::OutRecord& r, const char* name) {
    return kafka::FindHeader(r.headers, name);
  }

  testsupport::TempDir dir_{"snowcar-echo"};
  std::unique_ptr<state::StateStore> store_;
  TableSettings table_;
  SourceSettings source_;
};

TEST_F(EchoMarkerTest, TheRecordedVersionIsMarkedWithItsCommand) {
  auto [verdict, record] = Apply(EchoMode::kMark, "\"7\"");
  EXPECT_EQ(verdict, EchoVerdict::kMarked);
  ASSERT_NE(Find(record, kOriginHeader), nullptr);
  EXPECT_EQ(Find(record, kOriginHeader)->value, "sink");
  EXPECT_EQ(Find(record, kOriginTopicHeader)->value, "snow.commands");
  EXPECT_EQ(Find(record, kOriginPartitionHeader)->value, "1");
  EXPECT_EQ(Find(record, kOriginOffsetHeader)->value, "42");
  EXPECT_EQ(Find(record, kOriginRequestIdHeader)->value, "req-42");
  EXPECT_EQ(Find(record, kOriginCorrelationHeader), nullptr);  // the command had none
}

TEST_F(EchoMarkerTest, OtherVersionsAndRowsWithoutAModCountAreNotMarked) {
  for (const char* mod : {"\"6\"", "\"8\"", "\"\"", ""}) {
    auto [verdict, record] = Apply(EchoMode::kMark, mod);
    EXPECT_EQ(verdict, EchoVerdict::kForeign) << mod;
    EXPECT_EQ(Find(record, kOriginHeader), nullptr) << mod;
  }
  EXPECT_EQ(Apply(EchoMode::kMark, "\"0\"").first, EchoVerdict::kMarked);
  // The same version of the same sys_id in another table is not the sink's.
  table_.name = "problem";
  EXPECT_EQ(Apply(EchoMode::kMark, "\"7\"").first, EchoVerdict::kForeign);
}

TEST_F(EchoMarkerTest, SuppressAndOff) {
  EXPECT_EQ(Apply(EchoMode::kSuppress, "\"7\"").first, EchoVerdict::kSuppressed);
  EXPECT_EQ(Apply(EchoMode::kSuppress, "\"8\"").first, EchoVerdict::kForeign);
  auto [verdict, record] = Apply(EchoMode::kOff, "\"7\"");
  EXPECT_EQ(verdict, EchoVerdict::kForeign);
  EXPECT_EQ(Find(record, kOriginHeader), nullptr);
}

}  // namespace
}  // namespace snowcar::source
