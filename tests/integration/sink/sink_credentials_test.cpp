// SPDX-License-Identifier: Apache-2.0
// A password kept in a mounted Secret file (`snow.auth.password.file`) and corrected in place
// while the sidecar runs: the real `snowcar run` process, the emulator over HTTP. While the
// file holds a wrong password the instance refuses every request, the lane waits at the
// instance gate (no DLQ record, no offset committed); once the file holds the right one the
// sidecar reads it again at the gate's next probe and the held write is applied, with no
// restart. Neither password reaches the log.
#include <gmock/gmock.h>

#include <algorithm>
#include <fstream>

#include "sink_fixture.h"
#include "support/wait.h"

namespace snowcar::sinkit {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;
using ::testing::Not;
using testsupport::WaitFor;

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::trunc) << text;
}

size_t Refusals(const std::vector<emulator::JournalEntry>& journal) {
  return static_cast<size_t>(
      std::count_if(journal.begin(), journal.end(), [](const auto& e) { return e.status == 401; }));
}

TEST_F(SinkIntegrationTest, CorrectedPasswordFileResumesTheLaneWithoutARestart) {
  const std::string topic = NewTopic(1);
  const std::string dlq = NewTopic(1);
  const std::string group = NewGroup();
  Seed(SysId(1), {{"short_description", "start"}});
  const std::string file = dir().File("snow-password");
  WriteFile(file, "wrong-password-31\n");
  auto sink = StartSink(topic, group,
                        {"behavior.on.api.errors=log", "errors.deadletterqueue.topic.name=" + dlq,
                         "snow.auth.password.file=" + file});
  WaitAssigned(sink, 1);
  Produce(topic, {Command(SysId(1), Desc("patched"), 0)});

  // Refused for good: the gate closed, and its probes keep meeting 401.
  ASSERT_TRUE(WaitFor([&] { return Refusals(Journal()) >= 6; }, 30s, 50ms)) << Tail(sink);
  auto lane = Partitions(sink).at("partitions").as_array()[0].as_object();
  EXPECT_EQ(lane.at("in_flight_offset"), 0) << boost::json::serialize(lane);
  EXPECT_EQ(lane.at("last_error").at("class"), "INSTANCE_UNAVAILABLE")
      << boost::json::serialize(lane);
  EXPECT_EQ(Committed(group, topic, 1)[0], -1);
  EXPECT_EQ(Metric(sink, "snowcar_sink_dlq_records_total"), 0);
  EXPECT_EQ(Row(SysId(1))->at("short_description"), "start");

  WriteFile(file, "admin-emulator\n");  // the emulator's password (sink_fixture.cpp)
  ASSERT_TRUE(WaitFor([&] { return Committed(group, topic, 1)[0] == 1; }, 30s, 100ms))
      << Tail(sink);
  EXPECT_EQ(Row(SysId(1))->at("short_description"), "patched");
  EXPECT_EQ(Metric(sink, "snowcar_sink_dlq_records_total"), 0);

  const std::string log = sink.child->Stderr();
  EXPECT_THAT(log, HasSubstr("\"event\":\"snow.credentials.reread\""));
  EXPECT_THAT(log, HasSubstr("\"key\":\"snow.auth.password\",\"file\":\"" + file));
  EXPECT_THAT(log, HasSubstr("\"changed\":true"));
  EXPECT_THAT(log, Not(HasSubstr("wrong-password-31")));
  EXPECT_THAT(log, Not(HasSubstr("admin-emulator")));
  StopSink(sink);
}

}  // namespace
}  // namespace snowcar::sinkit
