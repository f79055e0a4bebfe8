// SPDX-License-Identifier: Apache-2.0
// The field catalog: sys_db_object super-class chain, then sys_dictionary, cached.
#include "sink/writer/field_catalog.h"

#include <gtest/gtest.h>

#include <future>
#include <utility>

#include "sink_lanes_util.h"
#include "support/fake_table_client.h"

namespace snowcar::sink {
namespace {

using servicenow::InstanceRequest;
using servicenow::OutcomeClass;
using sinktest::Fail;
using sinktest::Ok;
using sinktest::Rows;
using sinktest::SysId;

class FieldCatalogTest : public ::testing::Test {
 protected:
  CatalogAnswer Ask(const std::string& table) {
    std::promise<CatalogAnswer> p;
    io_.restart();
    catalog_.Columns(table, io_.get_executor(),
                     [&p](CatalogAnswer a) { p.set_value(std::move(a)); });
    auto f = p.get_future();
    while (f.wait_for(std::chrono::milliseconds(0)) != std::future_status::ready) {
      if (io_.run_one_for(std::chrono::seconds(5)) == 0) break;
    }
    return f.get();
  }

  boost::asio::io_context io_;
  testsupport::FakeTableClient fake_;
  InFlightLimit limit_{2};
  LimitedClient client_{fake_, limit_};
  FieldCatalog catalog_{client_};
};

// incident -> task (-> nothing): the columns of both, once.
TEST_F(FieldCatalogTest, WalksTheSuperClassChainAndCaches) {
  fake_.set_handler([](const InstanceRequest& r) -> servicenow::CallResult {
    if (r.target.rfind("/api/now/table/sys_db_object?", 0) == 0) {
      return Rows({boost::json::object{
          {"sys_id", SysId(1)}, {"name", "incident"}, {"super_class", SysId(2)}}});
    }
    if (r.target.rfind("/api/now/table/sys_db_object/" + SysId(2), 0) == 0) {
      // Without sysparm_exclude_reference_link a reference reads as {link, value}.
      return Ok({{"sys_id", SysId(2)}, {"name", "task"}, {"super_class", ""}});
    }
    if (r.target.rfind("/api/now/table/sys_dictionary?", 0) == 0) {
      return Rows({boost::json::object{{"element", "short_description"}},
                   boost::json::object{{"element", "caller_id"}},
                   boost::json::object{{"element", ""}}});
    }
    return Fail(OutcomeClass::kPermanent, 400, "unexpected " + r.target);
  });
  CatalogAnswer a = Ask("incident");
  ASSERT_FALSE(a.failure) << a.failure->message;
  EXPECT_TRUE(a.columns->count("short_description"));
  EXPECT_TRUE(a.columns->count("caller_id"));
  EXPECT_TRUE(a.columns->count("sys_id"));
  EXPECT_FALSE(a.columns->count("u_made_up"));

  auto r = fake_.requests();
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].target,
            "/api/now/table/sys_db_object?sysparm_query=name%3Dincident"
            "&sysparm_fields=sys_id%2Cname%2Csuper_class&sysparm_limit=1"
            "&sysparm_exclude_reference_link=true");
  EXPECT_NE(r[2].target.find("sysparm_query=nameINincident%2Ctask&sysparm_fields=element"),
            std::string::npos);

  CatalogAnswer again = Ask("incident");
  ASSERT_FALSE(again.failure);
  EXPECT_EQ(again.columns, a.columns);
  EXPECT_EQ(fake_.request_count(), 3u) << "the second answer comes from the cache";
}

TEST_F(FieldCatalogTest, ReferenceAsObjectIsFollowedToo) {
  fake_.set_handler([](const InstanceRequest& r) -> servicenow::CallResult {
    if (r.target.rfind("/api/now/table/sys_db_object?", 0) == 0) {
      return Rows({boost::json::object{
          {"name", "u_child"},
          {"super_class", boost::json::object{{"link", "x"}, {"value", SysId(3)}}}}});
    }
    if (r.target.rfind("/api/now/table/sys_db_object/" + SysId(3), 0) == 0) {
      return Ok({{"name", "u_parent"}});
    }
    return Rows({boost::json::object{{"element", "u_inherited"}}});
  });
  CatalogAnswer a = Ask("u_child");
  ASSERT_FALSE(a.failure);
  EXPECT_TRUE(a.columns->count("u_inherited"));
  EXPECT_NE(fake_.requests()[2].target.find("nameINu_child%2Cu_parent"), std::string::npos);
}

TEST_F(FieldCatalogTest, UnknownTableIsARecordErrorAndNotCached) {
  fake_.set_handler([](const InstanceRequest&) { return Rows({}); });
  CatalogAnswer a = Ask("u_nothing");
  ASSERT_TRUE(a.failure);
  EXPECT_EQ(a.failure->klass, ErrorClass::kRecordError);
  EXPECT_NE(a.failure->message.find("u_nothing"), std::string::npos);
  EXPECT_EQ(catalog_.Cached("u_nothing"), nullptr);
}

// A user that may not read sys_db_object fails every command the same way: the command is
// held (the lane retries it), not a PERMISSION record error that would dead-letter it.
TEST_F(FieldCatalogTest, ForbiddenMetadataIsHeldNotARecordError) {
  fake_.set_handler([](const InstanceRequest& r) -> servicenow::CallResult {
    if (r.target.rfind("/api/now/table/sys_db_object?", 0) == 0) {
      return Fail(OutcomeClass::kPermission, 403, "Insufficient rights to query records");
    }
    return Rows({});
  });
  CatalogAnswer a = Ask("incident");
  ASSERT_TRUE(a.failure);
  EXPECT_EQ(a.failure->klass, ErrorClass::kRetriesExhausted);
  EXPECT_NE(a.failure->message.find("may not read sys_db_object"), std::string::npos)
      << a.failure->message;
  EXPECT_EQ(catalog_.Cached("incident"), nullptr);

  fake_.set_handler([](const InstanceRequest& r) -> servicenow::CallResult {
    if (r.target.rfind("/api/now/table/sys_dictionary?", 0) == 0) {
      return Fail(OutcomeClass::kPermission, 403, "Insufficient rights to query records");
    }
    return Rows({boost::json::object{{"name", "incident"}}});
  });
  a = Ask("incident");
  ASSERT_TRUE(a.failure);
  EXPECT_EQ(a.failure->klass, ErrorClass::kRetriesExhausted);
  EXPECT_NE(a.failure->message.find("may not read sys_dictionary"), std::string::npos);
}

TEST_F(FieldCatalogTest, TransientFailureIsRetriesExhaustedSoTheLaneRetries) {
  fake_.set_handler([](const InstanceRequest&) { return Fail(OutcomeClass::kRetryable, 503); });
  CatalogAnswer a = Ask("incident");
  ASSERT_TRUE(a.failure);
  EXPECT_EQ(a.failure->klass, ErrorClass::kRetriesExhausted);
  EXPECT_EQ(catalog_.Cached("incident"), nullptr);
}

}  // namespace
}  // namespace snowcar::sink
