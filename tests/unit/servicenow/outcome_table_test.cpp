// SPDX-License-Identifier: Apache-2.0
// The decision table: what its cells say for the failures the error model singles out, and
// docs/outcomes.md being exactly its rendering.
#include "snowcar/servicenow/outcome_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

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

TEST(OutcomeTable, OutcomesMarkdownIsCurrent) {
  const std::string path = std::string(SNOWCAR_SOURCE_DIR) + "/docs/outcomes.md";
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << path << " is missing; run make docs-outcomes";
  std::ostringstream file;
  file << in.rdbuf();
  EXPECT_TRUE(file.str() == RenderOutcomesMarkdown())
      << path << " differs from the decision table; run make docs-outcomes";
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
  const std::string md = RenderOutcomesMarkdown();
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
    for (CallPurpose p : kAllCallPurposes) {
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
    EXPECT_EQ(OutcomeOf(Case("Kafka produce failure"), p).action, Action::kHold);
  }
}

TEST(OutcomeTable, TransientAnswersAreRetriedByTheClientThenHeld) {
  for (std::string_view name : {"429 with Retry-After", "429 without Retry-After", "500", "503"}) {
    for (CallPurpose p : kAllCallPurposes) {
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
