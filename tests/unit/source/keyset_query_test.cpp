// SPDX-License-Identifier: Apache-2.0
// The keyset queries byte for byte, page targets, base-query normalisation and the cursor
// identity's fingerprint.
#include "snowcar/source/rows/keyset_query.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fixture_rows.h"
#include "snowcar/common/time.h"

namespace snowcar::source {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

using testing::Ts;

TableSettings Incident(std::string base_query = "") {
  TableSettings t;
  t.alias = "inc";
  t.name = "incident";
  t.topic = "sn.incident";
  t.base_query = std::move(base_query);
  return t;
}

TEST(KeysetQueryTest, DrainSecondWithoutBaseQuery) {
  EXPECT_EQ(DrainSecondQuery(Incident(), Ts("2024-01-31 12:00:01"), "0a1b"),
            "sys_updated_on=2024-01-31 12:00:01^sys_id>0a1b^ORDERBYsys_id");
}

TEST(KeysetQueryTest, DrainWholeSecondLeavesOutTheIdTerm) {
  EXPECT_EQ(DrainSecondQuery(Incident("active=true"), Ts("2024-01-31 12:00:01"), ""),
            "active=true^sys_updated_on=2024-01-31 12:00:01^ORDERBYsys_id");
}

TEST(KeysetQueryTest, MoveOnWithoutBaseQuery) {
  EXPECT_EQ(MoveOnQuery(Incident(), Ts("2024-01-31 12:00:01"), Ts("2024-01-31 12:05:00")),
            "sys_updated_on>2024-01-31 12:00:01^sys_updated_on<=2024-01-31 12:05:00"
            "^ORDERBYsys_updated_on^ORDERBYsys_id");
}

TEST(KeysetQueryTest, BaseQueryComesFirst) {
  const TableSettings t = Incident("active=true^priority<=2^ORstate=1");
  EXPECT_EQ(DrainSecondQuery(t, Ts("1970-01-01 00:00:00"), "ff"),
            "active=true^priority<=2^ORstate=1^sys_updated_on=1970-01-01 00:00:00^sys_id>ff"
            "^ORDERBYsys_id");
  EXPECT_EQ(MoveOnQuery(t, Ts("2000-02-29 23:59:59"), Ts("2000-03-01 00:00:00")),
            "active=true^priority<=2^ORstate=1^sys_updated_on>2000-02-29 23:59:59"
            "^sys_updated_on<=2000-03-01 00:00:00^ORDERBYsys_updated_on^ORDERBYsys_id");
}

TEST(KeysetQueryTest, NewQueryBranchesEachGetTheCursorTermsAndOrderComesOnce) {
  const TableSettings t = Incident("active=true^NQpriority=1^NQstate=2");
  EXPECT_EQ(DrainSecondQuery(t, Ts("2024-01-31 12:00:01"), "ab"),
            "active=true^sys_updated_on=2024-01-31 12:00:01^sys_id>ab"
            "^NQpriority=1^sys_updated_on=2024-01-31 12:00:01^sys_id>ab"
            "^NQstate=2^sys_updated_on=2024-01-31 12:00:01^sys_id>ab^ORDERBYsys_id");
  EXPECT_EQ(MoveOnQuery(t, Ts("2024-01-31 12:00:01"), Ts("2024-01-31 12:00:09")),
            "active=true^sys_updated_on>2024-01-31 12:00:01^sys_updated_on<=2024-01-31 12:00:09"
            "^NQpriority=1^sys_updated_on>2024-01-31 12:00:01^sys_updated_on<=2024-01-31 "
            "12:00:09^NQstate=2^sys_updated_on>2024-01-31 12:00:01^sys_updated_on<=2024-01-31 "
            "12:00:09^ORDERBYsys_updated_on^ORDERBYsys_id");
}

// Found by the keyset_query fuzzer: an empty branch given the cursor terms alone would match
// every row in the cursor's range.
TEST(KeysetQueryTest, EmptyNewQueryBranchesGetNoCursorTerms) {
  const int64_t ts = Ts("2024-01-31 12:00:01");
  const std::string drain = "active=true^sys_updated_on=2024-01-31 12:00:01^ORDERBYsys_id";
  EXPECT_EQ(DrainSecondQuery(Incident("active=true^NQ"), ts, ""), drain);
  EXPECT_EQ(DrainSecondQuery(Incident("NQ^NQactive=true^NQEQ"), ts, ""), drain);
  EXPECT_EQ(DrainSecondQuery(Incident("active=true^NQGROUPBYstate"), ts, ""), drain);
  EXPECT_EQ(DrainSecondQuery(Incident("active=true^NQNQNQ"), ts, ""), drain);
  EXPECT_EQ(DrainSecondQuery(Incident("NQ"), ts, ""),
            "sys_updated_on=2024-01-31 12:00:01^ORDERBYsys_id");
}

TEST(KeysetQueryTest, CustomCursorFieldsAreUsed) {
  TableSettings t = Incident();
  t.timestamp_field = "sys_created_on";
  t.sys_id_field = "inc_sys_id";
  EXPECT_EQ(DrainSecondQuery(t, 0, "1"),
            "sys_created_on=1970-01-01 00:00:00^inc_sys_id>1^ORDERBYinc_sys_id");
  EXPECT_EQ(MoveOnQuery(t, 0, 1),
            "sys_created_on>1970-01-01 00:00:00^sys_created_on<=1970-01-01 00:00:01"
            "^ORDERBYsys_created_on^ORDERBYinc_sys_id");
}

TEST(KeysetQueryTest, NormalizeBaseQuery) {
  EXPECT_EQ(NormalizeBaseQuery(""), "");
  EXPECT_EQ(NormalizeBaseQuery("   "), "");
  EXPECT_EQ(NormalizeBaseQuery(" active=true ^ priority=1 "), "active=true^priority=1");
  EXPECT_EQ(NormalizeBaseQuery("a=1^^b=2^"), "a=1^b=2");
  EXPECT_EQ(NormalizeBaseQuery("a=1^NQ  b=2^OR c=3"), "a=1^NQb=2^ORc=3");
  EXPECT_EQ(NormalizeBaseQuery("a=1^EQ"), "a=1");
  EXPECT_EQ(NormalizeBaseQuery("a=1^EQ^EQ"), "a=1") << "idempotent (found by the fuzzer)";
  EXPECT_EQ(NormalizeBaseQuery("\ta=1\r\n"), "a=1");
  // Blanks inside a value are part of it.
  EXPECT_EQ(NormalizeBaseQuery("short_descriptionLIKEdisk  full"),
            "short_descriptionLIKEdisk  full");
}

// Splits a target's query string into its parameters, in order.
std::vector<std::string> Params(const std::string& target) {
  std::vector<std::string> out;
  std::string_view rest = std::string_view(target).substr(target.find('?') + 1);
  while (!rest.empty()) {
    const size_t amp = rest.find('&');
    out.emplace_back(rest.substr(0, amp));
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
  }
  return out;
}

TEST(PageTargetTest, DefaultTableExactly) {
  const TableSettings t = Incident();
  EXPECT_EQ(PageTarget(t, "sys_updated_on>2024-01-31 12:00:01^ORDERBYsys_id", {}),
            "/api/now/table/incident?sysparm_query=sys_updated_on%3E2024-01-31%2012%3A00%3A01"
            "%5EORDERBYsys_id&sysparm_limit=5000&sysparm_display_value=false"
            "&sysparm_exclude_reference_link=true&sysparm_query_no_domain=false"
            "&sysparm_no_count=true&sysparm_suppress_pagination_header=true");
}

TEST(PageTargetTest, EveryOptionMapsToItsParameter) {
  TableSettings t = Incident();
  t.name = "u_my table";
  t.fields = {"sys_id", "sys_updated_on", "sys_mod_count"};
  t.display_value = DisplayValue::kTrue;
  t.exclude_reference_link = false;
  t.query_domain = false;
  t.batch_size = 7;
  const std::string target = PageTarget(t, "a=1&b=2", {});
  EXPECT_EQ(target.substr(0, target.find('?')), "/api/now/table/u_my%20table");
  EXPECT_THAT(
      Params(target),
      ::testing::ElementsAre("sysparm_query=a%3D1%26b%3D2", "sysparm_limit=7",
                             "sysparm_fields=sys_id%2Csys_updated_on%2Csys_mod_count",
                             "sysparm_display_value=all", "sysparm_exclude_reference_link=false",
                             "sysparm_query_no_domain=true", "sysparm_no_count=true",
                             "sysparm_suppress_pagination_header=true"));
  EXPECT_THAT(target, Not(HasSubstr("sysparm_offset")));
}

TEST(PageTargetTest, AllStaysAllAndOptionsOverride) {
  TableSettings t = Incident();
  t.display_value = DisplayValue::kAll;
  t.fields = {"number"};
  PageRequestOptions options;
  options.limit = 1;
  options.with_count = true;
  options.fields_override = "sys_id,sys_updated_on,sys_mod_count";
  const auto params = Params(PageTarget(t, "", options));
  EXPECT_THAT(params, ::testing::Contains("sysparm_display_value=all"));
  EXPECT_THAT(params, ::testing::Contains("sysparm_limit=1"));
  EXPECT_THAT(params, ::testing::Contains("sysparm_no_count=false"));
  EXPECT_THAT(params,
              ::testing::Contains("sysparm_fields=sys_id%2Csys_updated_on%2Csys_mod_count"));
  EXPECT_THAT(params, ::testing::Contains("sysparm_query="));
}

TEST(QueryFingerprintTest, FixedValuesNeverChange) {
  // Changing these orphans every stored cursor: a new algorithm needs a migration.
  EXPECT_EQ(QueryFingerprint(Incident("active=true")), "3b046bd309d6bd34");
  EXPECT_EQ(QueryFingerprint(Incident()), "21fd8592b17aed91");
}

TEST(QueryFingerprintTest, SensitiveToNameQueryAndDomainOnly) {
  const TableSettings base = Incident("active=true");
  const std::string fp = QueryFingerprint(base);
  TableSettings t = base;
  t.base_query = "active=false";
  EXPECT_NE(QueryFingerprint(t), fp);
  t = base;
  t.name = "problem";
  EXPECT_NE(QueryFingerprint(t), fp);
  t = base;
  t.query_domain = false;
  EXPECT_NE(QueryFingerprint(t), fp);
  // Parts are delimited: moving text between name and query changes the hash.
  t = base;
  t.name = "incidenta";
  t.base_query = "ctive=true";
  EXPECT_NE(QueryFingerprint(t), fp);
  // Things outside the identity leave it alone.
  t = base;
  t.alias = "other";
  t.topic = "x";
  t.batch_size = 1;
  t.fields = {"sys_id"};
  t.display_value = DisplayValue::kAll;
  EXPECT_EQ(QueryFingerprint(t), fp);
  // Whitespace is normalised before hashing, so equivalent spellings share a cursor.
  t = base;
  t.base_query = NormalizeBaseQuery("  active=true ^");
  EXPECT_EQ(QueryFingerprint(t), fp);
}

TEST(QueryFingerprintTest, IdentityForCombinesInstanceAliasFingerprintAndField) {
  SourceSettings source;
  source.instance = "acme.service-now.com";
  TableSettings t = Incident("active=true");
  t.timestamp_field = "sys_created_on";
  const state::CursorIdentity id = IdentityFor(source, t);
  EXPECT_EQ(id.instance, "acme.service-now.com");
  EXPECT_EQ(id.table, "inc");
  EXPECT_EQ(id.query_fingerprint, "3b046bd309d6bd34");
  EXPECT_EQ(id.timestamp_field, "sys_created_on");
}

}  // namespace
}  // namespace snowcar::source
