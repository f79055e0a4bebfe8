// SPDX-License-Identifier: Apache-2.0
// The decision table: what its cells say for the failures the error model singles out. That
// docs/outcomes.md is exactly its rendering is checked with the registry's rows, in
// tests/unit/schema_registry/outcomes_test.cpp.
#include "snowcar/servicenow/outcome_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <utility>
#include <vector>

#include "snowcar/servicenow/table_client.h"

namespace snowcar::servicenow {
namespace {

using ::testing::HasSubstr;

const FailureCase& Case(std::string_view name) {
  for (const FailureCase& f : FailureCatalogue()) {
    if (f.name == name) return f;
  }
  ADD_FAILURE() << "no failure named " << name;
  return FailureCatalogue().front();
}

TEST(OutcomeTable, CatalogueHasEveryFailureOfTheErrorModel) {
  for (std::string_view name : {"drop before send",
                                "drop after send",
                                "timeout after apply",
                                "400",
                                "401 once",
                                "401 after refresh",
                                "403",
                                "404",
                                "409",
                                "429 with Retry-After",
                                "429 without Retry-After",
                                "500",
                                "502",
                                "503",
                                "504",
                                "malformed 2xx",
                                "200 with an error body",
                                "202",
                                "TLS failure",
                                "connection refused",
                                "DNS failure",
                                "Kafka produce failure"}) {
    EXPECT_EQ(Case(name).name, name);
  }
  const std::string md = RenderOutcomesMarkdown({});
  for (const FailureCase& f : FailureCatalogue())
    EXPECT_THAT(md, HasSubstr("| " + std::string(f.name) + " |"));
  for (CallPurpose p : kAllCallPurposes)
    EXPECT_THAT(md, HasSubstr(std::string(CallPurposeName(p))));
}

// When the instance itself cannot be used, no record and no table is charged with it, in any
// column: every lane and poller pauses and resumes by itself.
TEST(OutcomeTable, InstanceWideFailuresPauseEveryOperation) {
  for (std::string_view name :
       {"TLS failure", "connection refused", "DNS failure", "401 after refresh"}) {
    for (CallPurpose p : kTableApiPurposes) {
      EXPECT_EQ(ActionName(OutcomeOf(Case(name), p).action), "pause")
          << name << " / " << CallPurposeName(p);
    }
  }
  // The 401 after a fresh token is final only after the client's one resend.
  EXPECT_TRUE(OutcomeOf(Case("401 after refresh"), CallPurpose::kPatch).client_retries);
  EXPECT_EQ(OutcomeOf(Case("401 once"), CallPurpose::kPatch).action, Action::kSuccess);
}

// A lost answer is never a record error where resending is harmless; a create follows its
// policy; a DELETE is resent.
TEST(OutcomeTable, LostAnswersHoldWhatIsSafeToResendAndFollowThePolicyOtherwise) {
  for (std::string_view name : {"drop after send", "timeout after apply", "malformed 2xx", "202"}) {
    const FailureCase& f = Case(name);
    EXPECT_EQ(OutcomeOf(f, CallPurpose::kGetPage).action, Action::kHold) << name;
    EXPECT_EQ(OutcomeOf(f, CallPurpose::kPatch).action, Action::kHold) << name;
    EXPECT_EQ(OutcomeOf(f, CallPurpose::kPut).action, Action::kHold) << name;
    EXPECT_EQ(OutcomeOf(f, CallPurpose::kLookup).action, Action::kHold) << name;
    EXPECT_EQ(OutcomeOf(f, CallPurpose::kCreateRetry).action, Action::kResendCreate) << name;
    EXPECT_EQ(OutcomeOf(f, CallPurpose::kCreateFailAmbiguous).action, Action::kRecordError) << name;
    EXPECT_EQ(OutcomeOf(f, CallPurpose::kCreateCorrelation).action, Action::kLookupAgain) << name;
    EXPECT_EQ(OutcomeOf(f, CallPurpose::kDelete).action, Action::kResendDelete) << name;
  }
}

// The produce paths (a source row; a sink DLQ, error or success report) act on the Kafka
// produce failure row: hold, in every column; a produce failure is never a record error.
TEST(OutcomeTable, KafkaProduceFailuresAreHeldInEveryColumn) {
  for (CallPurpose p : kAllCallPurposes) {
    EXPECT_EQ(DecideProduceFailure(p), Action::kHold) << CallPurposeName(p);
  }
  for (CallPurpose p : kTableApiPurposes) {
    EXPECT_EQ(OutcomeOf(Case("Kafka produce failure"), p).action, Action::kHold);
    // A missing Write ACL is a produce failure like any other: held, never dropped
    // (SecuredSidecarTest shows it on Apache Kafka).
    EXPECT_EQ(OutcomeOf(Case("Kafka ACL refuses a produce"), p).action, Action::kHold);
  }
}

// The Kafka refusals are rendered, each naming the test that shows it on Apache Kafka.
TEST(OutcomeTable, KafkaRefusalsAreRenderedWithTheirTests) {
  const std::string md = RenderOutcomesMarkdown({});
  EXPECT_THAT(md, HasSubstr("## When Kafka refuses a client"));
  ASSERT_FALSE(KafkaRefusalCatalogue().empty());
  for (const KafkaRefusal& r : KafkaRefusalCatalogue()) {
    EXPECT_THAT(md, HasSubstr("| " + std::string(r.name) + " |"));
    // Each row names a test of the real broker's suites (tests/integration/realkafka/).
    EXPECT_THAT(std::string(r.test),
                testing::ContainsRegex(
                    "(SecuredSidecarTest|ExpiredCertSidecarTest|ExactlyOnceRealKafkaTest|"
                    "TopicCreationRealKafkaTest)\\."));
  }
}

TEST(OutcomeTable, TransientAnswersAreRetriedByTheClientThenHeld) {
  for (std::string_view name : {"429 with Retry-After", "429 without Retry-After", "500", "503"}) {
    for (CallPurpose p : kTableApiPurposes) {
      const Outcome o = OutcomeOf(Case(name), p);
      EXPECT_TRUE(o.client_retries) << name << " / " << CallPurposeName(p);
      EXPECT_EQ(o.action, Action::kHold) << name << " / " << CallPurposeName(p);
    }
  }
}

// Each column only uses the actions its caller knows: a source table never takes the sink's
// error path, and a sink record never stops a table.
TEST(OutcomeTable, EveryCellIsAnActionItsCallerTakes) {
  for (size_t v = 0; v < kFinalVerdictCount; ++v) {
    for (CallPurpose p : kAllCallPurposes) {
      const Action a = Decide(static_cast<FinalVerdict>(v), p);
      if (p == CallPurpose::kGetPage) {
        EXPECT_TRUE(a == Action::kSuccess || a == Action::kHold || a == Action::kPauseInstance ||
                    a == Action::kStopTable)
            << v << " " << ActionName(a);
      } else if (p == CallPurpose::kRegisterSchema) {
        // The source's registration: the table waits or stops; the instance is not involved.
        EXPECT_TRUE(a == Action::kSuccess || a == Action::kHold || a == Action::kStopTable)
            << v << " " << ActionName(a);
      } else if (p == CallPurpose::kSchemaById) {
        // The sink's lookup: the record is held or takes the error path.
        EXPECT_TRUE(a == Action::kSuccess || a == Action::kHold || a == Action::kRecordError)
            << v << " " << ActionName(a);
      } else {
        EXPECT_NE(a, Action::kStopTable) << v << " / " << CallPurposeName(p);
      }
      if (a == Action::kResendCreate) {
        EXPECT_EQ(p, CallPurpose::kCreateRetry);
      }
      if (a == Action::kLookupAgain) {
        EXPECT_EQ(p, CallPurpose::kCreateCorrelation);
      }
      if (a == Action::kResendDelete) {
        EXPECT_EQ(p, CallPurpose::kDelete);
      }
    }
  }
}

// The registry's columns: the source never drops a row for a registry failure, and the sink
// dead-letters a framed command only when the registry said its schema is wrong (422, 404, or
// a 409 no lookup should get); a registry that refuses snowcar's credentials holds it.
TEST(OutcomeTable, RegistryColumns) {
  const std::pair<FinalVerdict, std::array<Action, 2>> expected[] = {
      {FinalVerdict::kOk, {Action::kSuccess, Action::kSuccess}},
      {FinalVerdict::kTransient, {Action::kHold, Action::kHold}},
      {FinalVerdict::kInstanceWide, {Action::kHold, Action::kHold}},
      {FinalVerdict::kLostAnswer, {Action::kHold, Action::kHold}},
      {FinalVerdict::kRefused, {Action::kHold, Action::kRecordError}},
      {FinalVerdict::kPermission, {Action::kHold, Action::kHold}},
      {FinalVerdict::kNotFound, {Action::kHold, Action::kRecordError}},
      {FinalVerdict::kConflict, {Action::kHold, Action::kRecordError}},
      {FinalVerdict::kProduceFailed, {Action::kHold, Action::kHold}},
  };
  ASSERT_EQ(std::size(expected), kFinalVerdictCount);
  for (const auto& [verdict, actions] : expected) {
    EXPECT_EQ(Decide(verdict, CallPurpose::kRegisterSchema), actions[0])
        << static_cast<int>(verdict);
    EXPECT_EQ(Decide(verdict, CallPurpose::kSchemaById), actions[1]) << static_cast<int>(verdict);
  }
  const std::vector<RegistryMatrixRow> rows = {{.name = "made up",
                                                .what = "for the test",
                                                .client_retries = true,
                                                .verdict = FinalVerdict::kNotFound}};
  const std::string md = RenderOutcomesMarkdown(rows);
  EXPECT_THAT(md,
              HasSubstr("| made up | for the test | yes | NOT_FOUND | **hold** | record error |"));
}

TEST(OutcomeTable, FinalVerdictsOfCallResults) {
  CallResult r;
  r.klass = OutcomeClass::kUnauthorized;
  r.instance_unreachable = true;
  EXPECT_EQ(FinalVerdictOf(r), FinalVerdict::kInstanceWide);
  r.klass = OutcomeClass::kPermanent;
  EXPECT_EQ(FinalVerdictOf(r), FinalVerdict::kInstanceWide);  // TLS, certificate
  r.instance_unreachable = false;
  EXPECT_EQ(FinalVerdictOf(r), FinalVerdict::kRefused);
  r.klass = OutcomeClass::kRetryable;
  EXPECT_EQ(FinalVerdictOf(r), FinalVerdict::kTransient);
  r.instance_unreachable = true;
  EXPECT_EQ(FinalVerdictOf(r), FinalVerdict::kInstanceWide);
}

}  // namespace
}  // namespace snowcar::servicenow
