// SPDX-License-Identifier: Apache-2.0
// Both directions in one `snowcar run` against the emulator and the embedded broker: commands
// PATCH rows while other writers change other rows and the same ones. Every source record of
// a version the sink wrote carries the snow.origin.* headers naming its command, and no other
// record does (snow.source.echo=mark); under `suppress` none of the sink's versions reaches
// the topic and every other version does. A sidecar killed (kill -9) or stopped between the
// write and the source's read still marks the version once the source reads it.
//
// The truth comes from the emulator, not from snowcar: the sidecar logs in as a user no other
// writer uses, so a version is the sink's exactly when its sys_updated_by names that user, and
// its short_description names the command that wrote it.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <csignal>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "sidecar_test_util.h"
#include "snowcar/testbed/emulator/data_gen.h"
#include "snowcar/testbed/emulator/emulator_server.h"
#include "support/broker_fixture.h"
#include "support/kafka_client.h"
#include "support/temp_dir.h"

namespace snowcar {
namespace {

using namespace std::chrono_literals;

constexpr char kSinkUser[] = "snowcar.sink";
constexpr char kSinkPassword[] = "sink-emulator";
constexpr char kCommands[] = "snow.commands";
constexpr char kSourceTopic[] = "snow.incident";
constexpr char kSuccessTopic[] = "snow.commands.ok";

struct CommandSent {
  int n = 0;
  std::string sys_id;
  int32_t partition = -1;
  int64_t offset = -1;
};

// One source record, as the test reads it.
struct Version {
  std::string sys_id;
  std::string updated_by;
  uint32_t mod_count = 0;
  std::string short_description;
};

std::string Text(const boost::json::object& o, const char* field) {
  const boost::json::value* v = o.if_contains(field);
  if (v == nullptr) return {};
  if (v->is_string()) return std::string(v->as_string());
  if (v->is_int64()) return std::to_string(v->as_int64());
  return boost::json::serialize(*v);
}

Version Parse(const testsupport::Message& m) {
  Version v;
  boost::system::error_code ec;
  auto parsed = boost::json::parse(m.value.value_or(""), ec);
  if (ec || !parsed.is_object()) {
    ADD_FAILURE() << "source record is not a JSON object: " << m.value.value_or("<null>");
    return v;
  }
  const auto& o = parsed.as_object();
  v.sys_id = Text(o, "sys_id");
  v.updated_by = Text(o, "sys_updated_by");
  v.mod_count = static_cast<uint32_t>(std::stoul(Text(o, "sys_mod_count")));
  v.short_description = Text(o, "short_description");
  return v;
}

std::vector<std::string> Slice(const std::vector<std::string>& ids, size_t from, size_t n) {
  return {ids.begin() + static_cast<std::ptrdiff_t>(from),
          ids.begin() + static_cast<std::ptrdiff_t>(std::min(ids.size(), from + n))};
}

class EchoOriginTest : public testsupport::EmbeddedBrokerTest {
 protected:
  void SetUp() override {
    testsupport::EmbeddedBrokerTest::SetUp();
    emulator::EmulatorOptions options;
    options.user = kSinkUser;
    options.password = kSinkPassword;
    emu_ = std::make_unique<emulator::EmulatorServer>(options);
    ASSERT_TRUE(emu_->store().CreateTable("incident").ok());
    ASSERT_TRUE(emulator::Populate(emu_->store(), "incident", {.rows = 40}).ok());
    ASSERT_TRUE(emu_->Start().ok());
    auto rows = emu_->store().Snapshot("incident");
    ASSERT_TRUE(rows.ok());
    for (const auto& row : *rows) ids_.emplace_back(row->sys_id());
    auto producer = testsupport::TestProducer::Create(bootstrap());
    ASSERT_TRUE(producer.ok());
    producer_ = std::move(producer).value();
  }

  std::unique_ptr<testsupport::ChildProcess> Run(const std::vector<std::string>& extra) {
    std::vector<std::string> sets = {
        "snow.url=" + emu_->base_url(), std::string("snow.auth.username=") + kSinkUser,
        std::string("snow.auth.password=") + kSinkPassword,
        "kafka.bootstrap.servers=" + bootstrap(), "kafka.session.timeout.ms=6000",
        "state.dir=" + dir_.File("state"), "socket.path=" + socket(),
        // A version is recorded when the write's answer is back;
        // the source must not read it earlier (docs/semantics.md,
        // "A read faster than the answer"). The lag keeps that
        // true on a loaded machine.
        "snow.source.safety.lag.seconds=3"};
    sets.insert(sets.end(), extra.begin(), extra.end());
    auto child = sidecartest::SpawnRun(
        std::string(SNOWCAR_SOURCE_DIR) + "/docs/examples/source-and-sink.properties", sets);
    EXPECT_TRUE(child != nullptr);
    if (child != nullptr) {
      EXPECT_TRUE(testsupport::WaitFor(
          [&] { return sidecartest::SocketGet(socket(), "/v1/ready").first == 200; }, 60s))
          << child->Stderr();
    }
    return child;
  }

  std::string socket() const { return dir_.File("snowcar.sock"); }

  // PATCH commands numbered from `first`, one per row of `rows`, each with a request id.
  std::vector<CommandSent> Patch(const std::vector<std::string>& rows, int first) {
    std::vector<CommandSent> sent;
    for (size_t i = 0; i < rows.size(); ++i) {
      const int n = first + static_cast<int>(i);
      testsupport::OutMessage m;
      m.key = rows[i];
      m.value = R"({"short_description":"cmd-)" + std::to_string(n) + R"("})";
      m.headers = {{"snow.operation", "PATCH"}, {"snow.request.id", "req-" + std::to_string(n)}};
      auto reports = producer_->ProduceAll(kCommands, {m}, 30s);
      EXPECT_TRUE(reports.ok() && reports->size() == 1 && reports->front().error == 0);
      if (!reports.ok() || reports->empty()) continue;
      sent.push_back({n, rows[i], reports->front().partition, reports->front().offset});
    }
    return sent;
  }

  // Waits until the socket shows every command's version among the row's recorded origins.
  // On a timeout prints the sidecar's lanes and its log: what it was doing meanwhile.
  void WaitRecorded(const std::vector<CommandSent>& sent, testsupport::ChildProcess& child) {
    for (const CommandSent& c : sent) {
      const std::string target = "/v1/state/origin/incident/" + c.sys_id;
      ASSERT_TRUE(testsupport::WaitFor(
          [&] {
            auto [status, body] = sidecartest::SocketGet(socket(), target);
            if (status != 200) return false;
            auto v = boost::json::parse(body).as_object();
            for (const auto& e : v.at("versions").as_array()) {
              const auto& o = e.as_object();
              if (o.at("offset").as_int64() == c.offset &&
                  o.at("partition").as_int64() == c.partition &&
                  Text(o, "request_id") == "req-" + std::to_string(c.n)) {
                return true;
              }
            }
            return false;
          },
          90s))
          << target << ": " << sidecartest::SocketGet(socket(), target).second
          << "\nsink lanes: " << sidecartest::SocketGet(socket(), "/v1/sink/partitions").second
          << "\nsidecar log:\n"
          << child.Stderr();
    }
  }

  // Another user changes these rows: each gets a new version the sink did not write.
  // Others change the table (20 rows a second, mostly updates) while two rounds of PATCHes go
  // over the same rows, the second over versions others changed meanwhile. The generator is
  // still running afterwards.
  void TwoRoundsAmidOthers(emulator::RowGenerator& generator,
                           std::vector<std::vector<CommandSent>>& batches,
                           testsupport::ChildProcess& child) {
    emulator::RowGeneratorOptions wo;
    wo.tables = {"incident"};
    wo.rows_per_second = 20;
    wo.update_share = 0.8;
    ASSERT_TRUE(generator.Start(wo).ok());
    batches.push_back(Patch(Slice(ids_, 0, 12), 0));
    WaitRecorded(batches.back(), child);
    ChangeAsOther(batches.back(), 4);
    batches.push_back(Patch(Slice(ids_, 2, 12), 100));
    WaitRecorded(batches.back(), child);
  }

  void ChangeAsOther(const std::vector<CommandSent>& sent, size_t count) {
    emulator::WriteOptions other;
    other.user = "other.user";
    for (size_t i = 0; i < count && i < sent.size(); ++i) {
      auto r = emu_->store().Update(
          "incident", sent[i].sys_id,
          {{"description", "changed by another user " + std::to_string(i)}}, other);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
    }
  }

  // The final version of every row: sys_id -> (sys_mod_count, sys_updated_by).
  std::map<std::string, std::pair<uint32_t, std::string>> Finals() {
    std::map<std::string, std::pair<uint32_t, std::string>> out;
    auto rows = emu_->store().Snapshot("incident");
    EXPECT_TRUE(rows.ok());
    if (!rows.ok()) return out;
    for (const auto& row : *rows) {
      out[std::string(row->sys_id())] = {
          static_cast<uint32_t>(
              std::stoul(std::string(row->Get(emulator::TableSchema::kSysModCount)))),
          std::string(row->Get(emulator::TableSchema::kSysUpdatedBy))};
    }
    return out;
  }

  // Reads the source topic until every row's final version (except the sink's own, when
  // `suppressed`) has arrived.
  std::vector<testsupport::Message> ReadUntilCaughtUp(bool suppressed, const std::string& group) {
    const auto finals = Finals();
    auto consumer = testsupport::TestConsumer::Create(bootstrap(), group, {kSourceTopic});
    EXPECT_TRUE(consumer.ok());
    if (!consumer.ok()) return {};
    std::set<std::pair<std::string, uint32_t>> wanted;
    for (const auto& [id, v] : finals) {
      if (!(suppressed && v.second == kSinkUser)) wanted.insert({id, v.first});
    }
    auto messages = (*consumer)->PollUntil(
        [&](const std::vector<testsupport::Message>& seen) {
          std::set<std::pair<std::string, uint32_t>> got;
          for (const auto& m : seen) {
            const Version v = Parse(m);
            got.insert({v.sys_id, v.mod_count});
          }
          for (const auto& w : wanted) {
            if (!got.contains(w)) return false;
          }
          return true;
        },
        120s);
    EXPECT_TRUE(messages.ok()) << messages.status().ToString();
    return messages.ok() ? std::move(messages).value() : std::vector<testsupport::Message>();
  }

  // Every record of a sink-written version is marked with its command; no other record
  // carries any snow.origin header. Returns the number of marked records.
  int CheckMarks(const std::vector<testsupport::Message>& messages,
                 const std::map<int, CommandSent>& by_number) {
    int marked = 0;
    for (const auto& m : messages) {
      const Version v = Parse(m);
      const auto origin = m.Header("snow.origin");
      if (v.updated_by != kSinkUser) {
        for (const auto& [name, value] : m.headers) {
          EXPECT_NE(name.rfind("snow.origin", 0), 0u)
              << "version " << v.mod_count << " of " << v.sys_id << " by " << v.updated_by
              << " carries " << name << "=" << value;
        }
        continue;
      }
      ++marked;
      EXPECT_EQ(origin.value_or(""), "sink") << v.sys_id << " version " << v.mod_count;
      const int n =
          v.short_description.rfind("cmd-", 0) == 0 ? std::stoi(v.short_description.substr(4)) : -1;
      if (!by_number.contains(n)) {
        ADD_FAILURE() << "a version by the sink names no command sent: " << v.short_description;
        continue;
      }
      const CommandSent& c = by_number.at(n);
      EXPECT_EQ(v.sys_id, c.sys_id);
      EXPECT_EQ(m.Header("snow.origin.topic").value_or(""), kCommands);
      EXPECT_EQ(m.Header("snow.origin.partition").value_or(""), std::to_string(c.partition));
      EXPECT_EQ(m.Header("snow.origin.offset").value_or(""), std::to_string(c.offset));
      EXPECT_EQ(m.Header("snow.origin.request.id").value_or(""), "req-" + std::to_string(n));
      EXPECT_FALSE(m.Header("snow.origin.correlation").has_value());
    }
    return marked;
  }

  int64_t TableCounter(const char* field) {
    auto [status, body] = sidecartest::SocketGet(socket(), "/v1/source/tables/incident");
    if (status != 200) return -1;
    const auto v = boost::json::parse(body);
    return v.as_object().at(field).as_int64();
  }

  testsupport::TempDir dir_{"snowcar-echo"};
  std::unique_ptr<emulator::EmulatorServer> emu_;
  std::unique_ptr<testsupport::TestProducer> producer_;
  std::vector<std::string> ids_;
};

std::map<int, CommandSent> ByNumber(const std::vector<std::vector<CommandSent>>& batches) {
  std::map<int, CommandSent> out;
  for (const auto& batch : batches) {
    for (const auto& c : batch) out[c.n] = c;
  }
  return out;
}

TEST_F(EchoOriginTest, TheSinksVersionsAreMarkedWithTheirCommandAndNoOthers) {
  auto child = Run({std::string("snow.sink.reporter.success.topic=") + kSuccessTopic});
  ASSERT_NE(child, nullptr);
  emulator::RowGenerator generator(emu_->store());
  std::vector<std::vector<CommandSent>> batches;
  ASSERT_NO_FATAL_FAILURE(TwoRoundsAmidOthers(generator, batches, *child));
  ChangeAsOther(batches.back(), 3);
  generator.Stop();

  const auto messages = ReadUntilCaughtUp(false, "echo-mark-check");
  const int marked = CheckMarks(messages, ByNumber(batches));
  // Rows whose final version is the sink's were read at least in that version.
  int sink_finals = 0;
  for (const auto& [id, v] : Finals()) sink_finals += v.second == kSinkUser ? 1 : 0;
  EXPECT_GT(sink_finals, 0);
  EXPECT_GE(marked, sink_finals);
  EXPECT_TRUE(testsupport::WaitFor([&] { return TableCounter("echo_marked") >= marked; }, 30s));
  EXPECT_EQ(TableCounter("echo_suppressed"), 0);

  // The success reports name the version each command wrote: the marked record's.
  auto reports = testsupport::TestConsumer::Create(bootstrap(), "echo-ok", {kSuccessTopic});
  ASSERT_TRUE(reports.ok());
  const size_t commands = batches[0].size() + batches[1].size();
  auto ok = (*reports)->PollCount(commands, 60s);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  std::map<std::pair<int32_t, int64_t>, uint32_t> written;  // command position -> version
  for (const auto& r : *ok) {
    const auto v = boost::json::parse(r.value.value_or("{}")).as_object();
    ASSERT_TRUE(v.contains("sys_mod_count")) << *r.value;
    EXPECT_FALSE(Text(v, "sys_updated_on").empty()) << *r.value;
    const auto& src = v.at("source").as_object();
    written[{static_cast<int32_t>(src.at("partition").as_int64()), src.at("offset").as_int64()}] =
        static_cast<uint32_t>(v.at("sys_mod_count").as_int64());
  }
  for (const auto& m : messages) {
    if (!m.Header("snow.origin").has_value()) continue;
    const std::pair<int32_t, int64_t> at{std::stoi(*m.Header("snow.origin.partition")),
                                         std::stoll(*m.Header("snow.origin.offset"))};
    ASSERT_TRUE(written.contains(at));
    EXPECT_EQ(written.at(at), Parse(m).mod_count);
  }
  sidecartest::StopCleanly(*child);
}

TEST_F(EchoOriginTest, SuppressKeepsTheSinksVersionsOutAndEveryOtherIn) {
  auto child = Run({"snow.source.echo=suppress"});
  ASSERT_NE(child, nullptr);
  emulator::RowGenerator generator(emu_->store());
  std::vector<std::vector<CommandSent>> batches;
  ASSERT_NO_FATAL_FAILURE(TwoRoundsAmidOthers(generator, batches, *child));
  generator.Stop();

  int sink_finals = 0;
  for (const auto& [id, v] : Finals()) sink_finals += v.second == kSinkUser ? 1 : 0;
  ASSERT_GT(sink_finals, 0);
  // The source has read past every sink version once it counted them all as suppressed.
  ASSERT_TRUE(
      testsupport::WaitFor([&] { return TableCounter("echo_suppressed") >= sink_finals; }, 90s))
      << TableCounter("echo_suppressed");
  const auto messages = ReadUntilCaughtUp(true, "echo-suppress-check");
  for (const auto& m : messages) {
    const Version v = Parse(m);
    EXPECT_NE(v.updated_by, kSinkUser)
        << "version " << v.mod_count << " of " << v.sys_id << " reached the topic";
    EXPECT_FALSE(m.Header("snow.origin").has_value());
  }
  const std::string metrics = sidecartest::SocketGet(socket(), "/metrics").second;
  EXPECT_NE(metrics.find("snowcar_source_echo_suppressed_total{table=\"incident\"} "),
            std::string::npos);
  EXPECT_EQ(metrics.find("snowcar_source_echo_suppressed_total{table=\"incident\"} 0\n"),
            std::string::npos);
  EXPECT_NE(metrics.find("snowcar_sink_origins_recorded_total "), std::string::npos);
  sidecartest::StopCleanly(*child);
}

TEST_F(EchoOriginTest, AKillOrStopBetweenWriteAndReadStillMarksTheVersion) {
  std::vector<std::vector<CommandSent>> batches;
  {
    // The sink alone writes and records; the process dies before any source reads.
    auto sink = Run({"source.enabled=false"});
    ASSERT_NE(sink, nullptr);
    batches.push_back(Patch(Slice(ids_, 0, 10), 0));
    WaitRecorded(batches.back(), *sink);
    ASSERT_TRUE(sink->Signal(SIGKILL).ok());
    auto exit = sink->Wait(30s);
    ASSERT_TRUE(exit.ok());
    EXPECT_EQ(exit->signal, SIGKILL);
  }
  ChangeAsOther(batches.back(), 3);
  {
    auto sink = Run({"source.enabled=false"});
    ASSERT_NE(sink, nullptr);
    batches.push_back(Patch(Slice(ids_, 10, 10), 100));
    WaitRecorded(batches.back(), *sink);
    sidecartest::StopCleanly(*sink);
  }
  ChangeAsOther(batches.back(), 3);

  // Both directions now: the source reads every row for the first time.
  auto both = Run({});
  ASSERT_NE(both, nullptr);
  // The origin entries came through the kill and the restart.
  const auto offline = sidecartest::SocketGet(socket(), "/v1/state/origin/incident/" + ids_[5]);
  EXPECT_NE(offline.second.find("\"request_id\":\"req-5\""), std::string::npos) << offline.second;
  // `snowcar state origin` prints the same.
  testsupport::ChildOptions cli;
  cli.args = {"state", "--socket", socket(), "origin", "incident", ids_[5]};
  auto printed = testsupport::RunToCompletion(SNOWCAR_BINARY, cli, 30s);
  ASSERT_TRUE(printed.ok()) << printed.status().ToString();
  EXPECT_NE(printed->out.find("req-5"), std::string::npos) << printed->out;
  EXPECT_NE(printed->out.find("PATCH"), std::string::npos) << printed->out;
  EXPECT_NE(printed->out.find("snow.commands"), std::string::npos) << printed->out;
  const auto messages = ReadUntilCaughtUp(false, "echo-restart-check");
  const int marked = CheckMarks(messages, ByNumber(batches));
  int sink_finals = 0;
  for (const auto& [id, v] : Finals()) sink_finals += v.second == kSinkUser ? 1 : 0;
  EXPECT_EQ(sink_finals, 14);  // 20 rows commanded, 6 changed by another user afterwards
  EXPECT_GE(marked, sink_finals);
  sidecartest::StopCleanly(*both);
}

}  // namespace
}  // namespace snowcar
