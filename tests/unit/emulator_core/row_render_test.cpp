// SPDX-License-Identifier: Apache-2.0
// Rendering rows as Table API JSON (shapes checked against real responses) and reading
// request bodies.
#include "snowcar/testbed/emulator/row_render.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <fstream>
#include <set>
#include <sstream>

#include "snowcar/testbed/emulator/table_store.h"
#include "test_clock.h"

namespace snowcar::emulator {
namespace {

namespace json = boost::json;

json::value ReadFixtureBody(const std::string& name) {
  std::ifstream in(std::string(SNOWCAR_FIXTURES_DIR) + "/servicenow/" + name);
  EXPECT_TRUE(in.good()) << name;
  std::stringstream buf;
  buf << in.rdbuf();
  return json::parse(buf.str()).at("response").at("body");
}

std::set<std::string> Keys(const json::object& o) {
  std::set<std::string> keys;
  for (const auto& kv : o) keys.emplace(kv.key());
  return keys;
}

class RenderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* t : {"incident", "sys_user", "change_request", "cmdb_ci"}) {
      ASSERT_TRUE(store_.CreateTable(t).ok());
    }
    auto user = store_.Insert("sys_user", {{"sys_id", kUser}, {"name", "Joe Employee"}});
    ASSERT_TRUE(user.ok());
    auto w =
        store_.Insert("incident", {{"caller_id", kUser},
                                   {"opened_by", kUser},
                                   {"priority", "2"},
                                   {"calendar_stc", "102197"},
                                   {"short_description", "Tab\there \"quoted\" \\ \x01 Grüße"}});
    ASSERT_TRUE(w.ok());
    row_ = w->row;
    schema_ = w->schema;
  }

  json::object Render(DisplayValue dv, bool exclude, int64_t tz = 0) {
    RenderOptions o;
    o.display_value = dv;
    o.exclude_reference_link = exclude;
    o.link_base = "https://dev60827.service-now.com/api/now/v2/table/";
    o.display_utc_offset_seconds = tz;
    std::string body = RenderRecordBody(*schema_, *row_, {}, o, &store_);
    json::value v = json::parse(body);
    return v.at("result").as_object();
  }

  // The "result" object of a written row's record body under `o`.
  json::object Rendered(const WriteResult& w, const RenderOptions& o) {
    return json::parse(RenderRecordBody(*w.schema, *w.row, {}, o, &store_))
        .at("result")
        .as_object();
  }

  static constexpr const char* kUser = "6816f79cc0a8016401c5a33be04be441";
  testing::TestClock clock_{testing::kBaseTime};
  TableStore store_{clock_};
  RowPtr row_;
  std::shared_ptr<const TableSchema> schema_;
};

TEST_F(RenderTest, RawValuesAreStringsAndReferencesLinkValue) {
  json::object r = Render(DisplayValue::kFalse, false);
  EXPECT_EQ(r.size(), schema_->size());
  const json::object& caller = r.at("caller_id").as_object();
  EXPECT_EQ(Keys(caller), (std::set<std::string>{"link", "value"}));
  EXPECT_EQ(caller.at("value").as_string(), kUser);
  EXPECT_EQ(caller.at("link").as_string(),
            std::string("https://dev60827.service-now.com/api/now/v2/table/sys_user/") + kUser);
  EXPECT_EQ(r.at("sys_domain").at("value").as_string(), "global");
  EXPECT_EQ(r.at("assigned_to").as_string(), "");  // empty reference: a plain ""
  EXPECT_EQ(r.at("priority").as_string(), "2");
  EXPECT_EQ(r.at("calendar_stc").as_string(), "102197");
  EXPECT_EQ(r.at("short_description").as_string(), "Tab\there \"quoted\" \\ \x01 Grüße");
  for (const auto& kv : r) {
    EXPECT_TRUE(kv.value().is_string() || kv.value().is_object()) << kv.key();
  }
  json::object plain = Render(DisplayValue::kFalse, true);
  EXPECT_EQ(plain.at("caller_id").as_string(), kUser);
}

TEST_F(RenderTest, DisplayTrueGivesLabelsNamesAndNulls) {
  json::object r = Render(DisplayValue::kTrue, false);
  const json::object& caller = r.at("caller_id").as_object();
  EXPECT_EQ(Keys(caller), (std::set<std::string>{"display_value", "link"}));
  EXPECT_EQ(caller.at("display_value").as_string(), "Joe Employee");
  EXPECT_EQ(r.at("priority").as_string(), "2 - High");
  EXPECT_EQ(r.at("state").as_string(), "New");
  EXPECT_TRUE(r.at("contact_type").is_null());  // empty choice
  EXPECT_EQ(r.at("calendar_stc").as_string(), "102,197");
  EXPECT_EQ(r.at("sys_class_name").as_string(), "Incident");
  EXPECT_EQ(r.at("assigned_to").as_string(), "");
  json::object plain = Render(DisplayValue::kTrue, true);
  EXPECT_EQ(plain.at("caller_id").as_string(), "Joe Employee");
}

TEST_F(RenderTest, DisplayAllWrapsEveryField) {
  json::object r = Render(DisplayValue::kAll, false, 7200);
  for (const auto& kv : r) {
    ASSERT_TRUE(kv.value().is_object()) << kv.key();
    const json::object& o = kv.value().as_object();
    const bool linked =
        kv.key() == "caller_id" || kv.key() == "opened_by" || kv.key() == "sys_domain";
    const std::set<std::string> want = linked
                                           ? std::set<std::string>{"display_value", "link", "value"}
                                           : std::set<std::string>{"display_value", "value"};
    EXPECT_EQ(Keys(o), want) << kv.key();
  }
  EXPECT_EQ(r.at("sys_updated_on").at("value").as_string(), "2026-03-01 12:00:00");
  EXPECT_EQ(r.at("sys_updated_on").at("display_value").as_string(), "2026-03-01 14:00:00");
  EXPECT_EQ(r.at("priority").at("display_value").as_string(), "2 - High");
  EXPECT_EQ(r.at("priority").at("value").as_string(), "2");
  EXPECT_TRUE(r.at("contact_type").at("display_value").is_null());
  json::object excl = Render(DisplayValue::kAll, true);
  EXPECT_EQ(Keys(excl.at("caller_id").as_object()),
            (std::set<std::string>{"display_value", "value"}));
}

TEST_F(RenderTest, InsertShapeMatchesARealPostResponse) {
  const json::object real = ReadFixtureBody("08-post-201-location.json").at("result").as_object();
  json::object ours = Render(DisplayValue::kFalse, false);
  size_t common = 0;
  for (const auto& kv : real) {
    if (!ours.contains(kv.key())) continue;
    ++common;
    const json::value& mine = ours.at(kv.key());
    if (kv.value().is_object()) {
      ASSERT_TRUE(mine.is_object()) << kv.key();
      EXPECT_EQ(Keys(mine.as_object()), Keys(kv.value().as_object())) << kv.key();
    } else {
      EXPECT_TRUE(kv.value().is_string());
      EXPECT_TRUE(mine.is_string() || (kv.key() == "caller_id")) << kv.key();
    }
  }
  EXPECT_GE(common, 30u);
  // Same instance base, same user id: the link is character for character the real one.
  EXPECT_EQ(ours.at("opened_by").at("link"), real.at("opened_by").at("link"));
  EXPECT_EQ(ours.at("sys_domain"), real.at("sys_domain"));
  EXPECT_EQ(ours.at("sys_mod_count"), real.at("sys_mod_count"));
}

TEST_F(RenderTest, DisplayAllShapeMatchesARealChangeRequest) {
  const json::object real =
      ReadFixtureBody("13-display-value-all.json").at("result").at(0).as_object();
  auto w = store_.Insert("change_request", {{"requested_by", kUser}});
  ASSERT_TRUE(w.ok());
  RenderOptions o;
  o.display_value = DisplayValue::kAll;
  o.exclude_reference_link = true;
  const json::object ours = Rendered(*w, o);
  size_t common = 0;
  for (const auto& kv : real) {
    if (!ours.contains(kv.key())) continue;
    ++common;
    ASSERT_TRUE(ours.at(kv.key()).is_object()) << kv.key();
    EXPECT_EQ(Keys(ours.at(kv.key()).as_object()), Keys(kv.value().as_object())) << kv.key();
  }
  EXPECT_GE(common, 25u);
  EXPECT_EQ(ours.at("requested_by").at("display_value").as_string(), "Joe Employee");
  EXPECT_EQ(ours.at("sys_class_name").at("display_value"),
            real.at("sys_class_name").at("display_value"));
}

TEST_F(RenderTest, DisplayTrueShapeMatchesARealCmdbCi) {
  const json::object real =
      ReadFixtureBody("14-display-value-true-nulls.json").at("result").at(0).as_object();
  auto w = store_.Insert("cmdb_ci", {{"name", "Unknown"}});
  ASSERT_TRUE(w.ok());
  RenderOptions o;
  o.display_value = DisplayValue::kTrue;
  o.link_base = "https://dev97221.service-now.com/api/now/v1/table/";
  const json::object ours = Rendered(*w, o);
  size_t common = 0;
  for (const auto& kv : real) {
    if (!ours.contains(kv.key())) continue;
    ++common;
    const json::value& mine = ours.at(kv.key());
    EXPECT_EQ(mine.kind(), kv.value().kind()) << kv.key();
    if (kv.value().is_object()) {
      EXPECT_EQ(Keys(mine.as_object()), Keys(kv.value().as_object())) << kv.key();
    }
  }
  EXPECT_GE(common, 25u);
  EXPECT_EQ(ours.at("sys_domain").at("link"), real.at("sys_domain").at("link"));
  EXPECT_EQ(ours.at("sys_class_name"), real.at("sys_class_name"));
  EXPECT_TRUE(ours.at("environment").is_null());
}

TEST_F(RenderTest, ListBodyAndProjection) {
  ListRequest req;
  req.fields = {"number", "caller_id"};
  auto page = store_.List("incident", req);
  ASSERT_TRUE(page.ok());
  RenderOptions o;
  json::value v = json::parse(RenderListBody(*page, o, &store_));
  ASSERT_EQ(v.at("result").as_array().size(), 1u);
  const json::object& row = v.at("result").at(0).as_object();
  EXPECT_EQ(Keys(row), (std::set<std::string>{"number", "caller_id"}));
  EXPECT_EQ(row.at("caller_id").at("link").as_string(),
            std::string("http://localhost/api/now/table/sys_user/") + kUser);
  req.query = ParseEncodedQuery("number=none");
  page = store_.List("incident", req);
  EXPECT_EQ(RenderListBody(*page, o, &store_), "{\"result\":[]}");
}

TEST(JsonString, EscapesWhatJsonRequires) {
  std::string out;
  const std::string text = "a\"b\\c\n\r\t\b\f\x1f\x7f/é";
  AppendJsonString(text, &out);
  EXPECT_EQ(out, "\"a\\\"b\\\\c\\n\\r\\t\\b\\f\\u001f\x7f/é\"");
  EXPECT_EQ(json::parse(out).as_string(), text);
}

TEST(ParseJsonFields, ScalarsBecomeTextAsTheInstanceStoresThem) {
  auto f = ParseJsonFields(
      R"({"short_description":"x","priority":2,"cost":1.5,"active":true,"closed_at":null,"big":18446744073709551615})");
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(*f, (Fields{{"short_description", "x"},
                        {"priority", "2"},
                        {"cost", "1.5"},
                        {"active", "true"},
                        {"closed_at", ""},
                        {"big", "18446744073709551615"}}));
  EXPECT_TRUE(ParseJsonFields("{}")->empty());
}

TEST(ParseJsonFields, BadBodiesNameWhatWasReceived) {
  auto arr = ParseJsonFields(R"([{"a":"b"}])");
  ASSERT_FALSE(arr.ok());
  EXPECT_NE(arr.status().message().find("got an array"), std::string::npos);
  auto str = ParseJsonFields(R"("text")");
  EXPECT_NE(str.status().message().find("got a string"), std::string::npos);
  auto broken = ParseJsonFields(R"({"a": )");
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.status().message().find("not valid JSON"), std::string::npos);
  auto trailing = ParseJsonFields(R"({"a":"b"} x)");
  EXPECT_FALSE(trailing.ok());
  auto nested = ParseJsonFields(R"({"caller_id":{"value":"x"}})");
  ASSERT_FALSE(nested.ok());
  EXPECT_NE(nested.status().message().find("'caller_id' is an object"), std::string::npos);
  auto empty = ParseJsonFields("  ");
  EXPECT_NE(empty.status().message().find("empty"), std::string::npos);
  for (const auto* s : {"", "{", "}", "nul", "\xff\xfe"}) {
    EXPECT_EQ(ParseJsonFields(s).ok(), false) << s;
  }
}

TEST(ParseDisplayValue, AcceptsTheThreeModes) {
  EXPECT_EQ(*ParseDisplayValue(""), DisplayValue::kFalse);
  EXPECT_EQ(*ParseDisplayValue("FALSE"), DisplayValue::kFalse);
  EXPECT_EQ(*ParseDisplayValue("True"), DisplayValue::kTrue);
  EXPECT_EQ(*ParseDisplayValue("all"), DisplayValue::kAll);
  auto bad = ParseDisplayValue("yes");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("yes"), std::string::npos);
}

}  // namespace
}  // namespace snowcar::emulator
