// SPDX-License-Identifier: Apache-2.0
// The sink's half of the origin marks: which version an answer names, what is recorded for
// it, and when nothing is (another author, a DELETE, no version in the answer).
#include "sink/origin/origin_recorder.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "snowcar/sink/commands/failure.h"
#include "snowcar/state/state_store.h"
#include "support/temp_dir.h"

namespace snowcar::sink {
namespace {

constexpr char kId[] = "9d385017c611228701d22104cc95c371";

Applied From(const std::string& answer, Operation op = Operation::kPatch) {
  Applied a;
  a.operation = op;
  a.table = "incident";
  a.sys_id = kId;
  ReadWrittenVersion(boost::json::parse(answer).as_object(), a);
  return a;
}

TEST(OriginRecorderTest, ReadsTheVersionTheAnswerNames) {
  Applied a = From(R"({"sys_mod_count":"7","sys_updated_on":"2026-12-03 19:30:12",
                      "sys_updated_by":"svc"})");
  EXPECT_EQ(a.sys_mod_count, 7u);
  EXPECT_EQ(a.sys_updated_on, "2026-12-03 19:30:12");
  EXPECT_EQ(a.sys_updated_by, "svc");
  EXPECT_EQ(From(R"({"sys_mod_count":3})").sys_mod_count, 3u);
  EXPECT_EQ(From(R"({"sys_mod_count":{"display_value":"3","value":"3"}})").sys_mod_count, 3u);
  for (const char* bad :
       {R"({})", R"({"sys_mod_count":""})", R"({"sys_mod_count":"3a"})", R"({"sys_mod_count":-1})",
        R"({"sys_mod_count":"99999999999"})", R"({"sys_mod_count":null})"}) {
    EXPECT_FALSE(From(bad).sys_mod_count.has_value()) << bad;
  }
}

TEST(OriginRecorderTest, TheSuccessReportCarriesTheVersion) {
  kafka::InRecord in;
  in.topic = "snow.commands";
  in.offset = 42;
  Applied a = From(R"({"sys_mod_count":"7","sys_updated_on":"2026-12-03 19:30:12"})");
  auto report = boost::json::parse(*BuildSuccessReport(in, a, "ok").value).as_object();
  EXPECT_EQ(report.at("sys_mod_count").as_int64(), 7);
  EXPECT_EQ(report.at("sys_updated_on").as_string(), "2026-12-03 19:30:12");
  Applied none = From(R"({})", Operation::kDelete);
  report = boost::json::parse(*BuildSuccessReport(in, none, "ok").value).as_object();
  EXPECT_FALSE(report.contains("sys_mod_count"));
  EXPECT_FALSE(report.contains("sys_updated_on"));
}

class OriginRecorderStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = state::StateStore::Open(state::StateStoreOptions{dir_.File("state")});
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
    settings_.correlation_field = "correlation_id";
    origin_.instance = "acme.service-now.com";
    origin_.user = "svc";
  }

  kafka::InRecord Record(int64_t offset) {
    kafka::InRecord in;
    in.topic = "snow.commands";
    in.partition = 3;
    in.offset = offset;
    in.headers.push_back({"snow.request.id", std::string("req-") + std::to_string(offset)});
    return in;
  }

  std::optional<state::Origin> Find(uint32_t mod) {
    auto found = store_->FindOrigin("acme.service-now.com", "incident", kId, mod);
    EXPECT_TRUE(found.ok());
    return found.ok() ? *found : std::nullopt;
  }

  testsupport::TempDir dir_{"snowcar-origin"};
  std::unique_ptr<state::StateStore> store_;
  SinkSettings settings_;
  OriginSettings origin_;
};

TEST_F(OriginRecorderStoreTest, RecordsTheCommandOfTheVersion) {
  OriginRecorder recorder(store_.get(), origin_, settings_);
  Command command;
  command.table = "incident";
  command.sys_id = kId;
  command.fields["correlation_id"] = "ORD-7";
  recorder.Record(Record(42), command,
                  From(R"({"sys_mod_count":"7","sys_updated_on":"2026-12-03 19:30:12",
                          "sys_updated_by":"svc"})"));
  auto origin = Find(7);
  ASSERT_TRUE(origin.has_value());
  EXPECT_EQ(origin->topic, "snow.commands");
  EXPECT_EQ(origin->partition, 3);
  EXPECT_EQ(origin->offset, 42);
  EXPECT_EQ(origin->correlation, "ORD-7");
  EXPECT_EQ(origin->request_id, "req-42");
  EXPECT_EQ(origin->operation, "PATCH");
  EXPECT_EQ(origin->sys_updated_on, "2026-12-03 19:30:12");
  EXPECT_FALSE(Find(6).has_value());
  EXPECT_FALSE(Find(8).has_value());
  EXPECT_EQ(recorder.recorded(), 1);
}

TEST_F(OriginRecorderStoreTest, RecordsNothingItCannotProve) {
  OriginRecorder recorder(store_.get(), origin_, settings_);
  // A PATCH that changed nothing: the answer shows another author's version.
  recorder.Record(Record(1), std::nullopt,
                  From(R"({"sys_mod_count":"4","sys_updated_by":"someone.else"})"));
  // No version in the answer (an empty 200), and a DELETE.
  recorder.Record(Record(2), std::nullopt, From(R"({})"));
  recorder.Record(Record(3), std::nullopt,
                  From(R"({"sys_mod_count":"5","sys_updated_by":"svc"})", Operation::kDelete));
  EXPECT_FALSE(Find(4).has_value());
  EXPECT_FALSE(Find(5).has_value());
  EXPECT_EQ(recorder.recorded(), 0);
  EXPECT_EQ(recorder.not_ours(), 1);
  EXPECT_EQ(*store_->OriginCount(), 0u);
}

}  // namespace
}  // namespace snowcar::sink
