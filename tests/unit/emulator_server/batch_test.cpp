// SPDX-License-Identifier: Apache-2.0
// The Batch API: items run in order, base64 bodies, unserviced items.
#include <gtest/gtest.h>

#include "emulator_fixture.h"
#include "snowcar/common/base64.h"

namespace snowcar::emulator::testing {
namespace {

class Batch : public EmulatorTest {
 protected:
  HttpResult RunBatch(const boost::json::array& items) {
    boost::json::object body{{"batch_request_id", "1"}, {"rest_requests", items}};
    return Send("POST", Url("/api/now/v1/batch"), boost::json::serialize(body));
  }
  static boost::json::object Item(const std::string& id, const std::string& method,
                                  const std::string& url, const std::string& body = "") {
    boost::json::object item{
        {"id", id},
        {"method", method},
        {"url", url},
        {"headers", boost::json::array{boost::json::object{{"name", "Content-Type"},
                                                           {"value", "application/json"}}}},
        {"exclude_response_headers", true}};
    if (!body.empty()) item["body"] = Base64Encode(body);
    return item;
  }
};

TEST_F(Batch, ItemsRunInOrderWithBase64Bodies) {
  auto r = RunBatch(
      {Item("a", "POST", "/api/now/table/incident", R"({"short_description":"via batch"})"),
       Item("b", "GET", "/api/now/table/incident?sysparm_limit=1"),
       Item("c", "DELETE", "/api/now/table/incident/" + std::string(32, 'f'))});
  ASSERT_EQ(r.status, 200) << r.body;
  auto doc = Json(r.body);
  EXPECT_EQ(doc.at("batch_request_id").as_string(), "1");
  auto& serviced = doc.at("serviced_requests").as_array();
  ASSERT_EQ(serviced.size(), 3u);
  EXPECT_EQ(serviced[0].at("id").as_string(), "a");
  EXPECT_EQ(serviced[0].at("status_code").as_int64(), 201);
  EXPECT_EQ(serviced[0].at("status_text").as_string(), "Created");
  EXPECT_TRUE(serviced[0].at("headers").as_array().empty());
  EXPECT_TRUE(serviced[0].at("execution_time").is_int64());
  auto created = boost::json::parse(*Base64Decode(serviced[0].at("body").as_string()));
  EXPECT_EQ(created.at("result").at("short_description").as_string(), "via batch");
  EXPECT_EQ(serviced[1].at("status_code").as_int64(), 200);
  EXPECT_EQ(serviced[2].at("status_code").as_int64(), 404);
  EXPECT_TRUE(doc.at("unserviced_requests").as_array().empty());
  EXPECT_EQ(server_->store().Count("incident"), 74u);
  // The journal holds the batch call, then its items in order.
  auto journal = server_->journal().All();
  ASSERT_EQ(journal.size(), 4u);
  EXPECT_EQ(journal[0].auth, "batch");
  EXPECT_EQ(journal[0].method, "POST");
  EXPECT_EQ(journal[1].method, "GET");
  EXPECT_EQ(journal[2].method, "DELETE");
  EXPECT_EQ(journal[2].status, 404);
  EXPECT_EQ(journal[3].target, "/api/now/v1/batch");
}

TEST_F(Batch, ItemsPastTheServiceLimitComeBackUnserviced) {
  server_->faults().SetBatchServiceLimit(1);
  auto r = RunBatch({Item("a", "POST", "/api/now/table/incident", R"({"short_description":"1"})"),
                     Item("b", "POST", "/api/now/table/incident", R"({"short_description":"2"})"),
                     Item("c", "POST", "/api/now/table/incident", R"({"short_description":"3"})")});
  ASSERT_EQ(r.status, 200);
  auto doc = Json(r.body);
  EXPECT_EQ(doc.at("serviced_requests").as_array().size(), 1u);
  EXPECT_EQ(doc.at("unserviced_requests"), (boost::json::array{"b", "c"}));
  EXPECT_EQ(server_->store().Count("incident"), 74u);
}

TEST_F(Batch, ResponseHeadersWhenNotExcluded) {
  auto item = Item("h", "GET", "/api/now/table/incident?sysparm_limit=1");
  item["exclude_response_headers"] = false;
  auto doc = Json(RunBatch({item}).body);
  bool has_total = false;
  for (const auto& h : doc.at("serviced_requests").at(0).at("headers").as_array()) {
    if (h.at("name").as_string() == "X-Total-Count") has_total = true;
  }
  EXPECT_TRUE(has_total);
}

TEST_F(Batch, NeedsAuthAndAJsonBody) {
  EXPECT_EQ(Send("POST", Url("/api/now/v1/batch"), "{}", "").status, 401);
  EXPECT_EQ(Send("POST", Url("/api/now/v1/batch"), "nope").status, 400);
}

}  // namespace
}  // namespace snowcar::emulator::testing
