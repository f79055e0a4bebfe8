// SPDX-License-Identifier: Apache-2.0
// Sink crashes: kill -9 and SIGTERM at random points while commands stream in. Every round
// restarts the sink on the same state dir (its correlation cache survives) from the offsets
// the previous process committed. The mock broker makes a new member of a group whose member
// was killed wait a whole session timeout, so each round joins a fresh group seeded with the
// previous group's committed offsets: the same resume point, without the wait.
#include <signal.h>

#include <fstream>
#include <random>

#include "procs.h"
#include "scenarios.h"
#include "support/kafka_client.h"
#include "support/temp_dir.h"
#include "support/wait.h"

namespace snowcar::fault {
namespace {

constexpr int kPartitions = 2;
constexpr int kRows = 6;
constexpr int kPerRound = 12;
constexpr char kTable[] = "u_ticket";

std::string SysId(int n) {
  char buf[33];
  std::snprintf(buf, sizeof buf, "fa%030x", n);
  return buf;
}

class SinkRig {
 public:
  SinkRig() {
    topic_ = Unique("cmds");
    // The rows the PATCH commands address, loaded at start-up.
    const std::string seed = dir_.File("seed.json");
    {
      std::ofstream out(seed);
      out << "{\"" << kTable << "\":[";
      for (int r = 0; r < kRows; ++r) {
        out << (r ? "," : "") << R"({"sys_id":")" << SysId(r)
            << R"(","short_description":"start","correlation_id":""})";
      }
      out << "]}";
    }
    emulator_ = std::make_unique<Emulator>(std::vector<std::string>{"--seed-file", seed});
    (void)emulator_->Control("latency", R"({"fixed_ms":3,"jitter_ms":12})");
    broker_ = std::make_unique<Broker>(topic_ + ":" + std::to_string(kPartitions));
    auto producer = testsupport::TestProducer::Create(broker_->bootstrap(), {{"linger.ms", "1"}});
    if (producer.ok()) producer_ = std::move(producer).value();
    group_ = Unique("sink");
    sidecar_ = std::make_unique<Sidecar>(
        dir_.path().string(), std::map<std::string, std::string>{
                                  {"snow.url", emulator_->url()},
                                  {"snow.auth.username", "admin"},
                                  {"snow.auth.password", "admin-emulator"},
                                  {"source.enabled", "false"},
                                  {"sink.enabled", "true"},
                                  {"state.dir", dir_.File("state")},
                                  {"socket.path", dir_.File("sink.sock")},
                                  {"kafka.bootstrap.servers", broker_->bootstrap()},
                                  {"kafka.session.timeout.ms", "6000"},
                                  {"kafka.auto.commit.interval.ms", "200"},
                                  {"snow.sink.topics", topic_},
                                  {"snow.sink.table", kTable},
                                  {"snow.sink.unknown.field.behavior", "passthrough"},
                                  {"snow.sink.create.ambiguous.behavior", "correlation_lookup"},
                                  {"snow.sink.correlation.field", "correlation_id"},
                                  {"snow.sink.max.in.flight", "4"},
                                  {"snow.retry.max.attempts", "3"},
                                  {"snow.retry.initial.backoff.ms", "20"},
                                  {"snow.retry.max.backoff.ms", "200"},
                                  {"shutdown.timeout.ms", "5000"},
                              });
  }

  // Produces one round of commands: PATCHes of the seeded rows (a row always on the same
  // partition, so its commands keep their order) and CREATEs carrying a correlation id.
  Status ProduceRound() {
    if (!producer_) return Status::Internal("no producer");
    std::vector<testsupport::OutMessage> batch;
    for (int i = 0; i < kPerRound; ++i, ++seq_) {
      testsupport::OutMessage m;
      if (seq_ % 4 == 3) {
        const std::string corr = "corr-" + std::to_string(seq_);
        creates_.push_back(corr);
        m.value = R"({"correlation_id":")" + corr + R"(","short_description":"created"})";
        m.partition = seq_ % kPartitions;
      } else {
        const int row = seq_ % kRows;
        const std::string value = "v" + std::to_string(seq_);
        expected_[SysId(row)] = value;
        m.key = SysId(row);
        m.value = R"({"short_description":")" + value + R"("})";
        m.partition = row % kPartitions;
      }
      batch.push_back(std::move(m));
    }
    auto reports = producer_->ProduceAll(topic_, batch, 20s);
    if (!reports.ok()) return reports.status();
    produced_ += kPerRound;
    return Status::Ok();
  }

  // Starts the sink in the current group and waits for both lanes.
  bool StartSink(Row& row) {
    sidecar_->props()["kafka.group.id"] = group_;
    if (!sidecar_->Start()) {
      row.Fail(sidecar_->last_error());
      return false;
    }
    const bool assigned = testsupport::WaitFor(
        [&] {
          auto p = sidecar_->Get("/v1/sink/partitions");
          return p.contains("partitions") && p.at("partitions").as_array().size() == kPartitions;
        },
        30s, 50ms);
    if (!assigned) row.Fail("lanes never assigned");
    return assigned;
  }
  // After the process is gone: a fresh group resumes where this one committed.
  void MoveToFreshGroup(Row& row) {
    const auto committed = CommittedOffsets(broker_->bootstrap(), group_, topic_, kPartitions);
    group_ = Unique("sink");
    if (Status s = CommitOffsets(broker_->bootstrap(), group_, topic_, committed); !s.ok()) {
      row.Fail(s.ToString());
    }
  }
  // A last run without faults that drains the rest, then the final comparison.
  void Drain(Row& row) {
    if (!StartSink(row)) return;
    const bool done = testsupport::WaitFor(
        [&] {
          int64_t total = 0;
          for (auto o : CommittedOffsets(broker_->bootstrap(), group_, topic_, kPartitions)) {
            total += std::max<int64_t>(o, 0);
          }
          return total == produced_;
        },
        60s, 100ms);
    if (!done) row.Fail("offsets never reached the end");
    const auto status = sidecar_->Terminate();
    if (!status.ok()) row.Fail("final SIGTERM: " + status.ToString());
  }
  // in, out, lost, duplicated creates.
  void Compare(Row& row) {
    row.in = produced_;
    std::map<std::string, std::string> value_of;
    std::map<std::string, int> rows_with;
    for (const auto& r : emulator_->Snapshot(kTable)) {
      const std::string id(r.at("sys_id").as_string());
      value_of[id] = std::string(r.at("short_description").as_string());
      if (const auto* c = r.if_contains("correlation_id"); c && c->is_string()) {
        if (!c->as_string().empty()) ++rows_with[std::string(c->as_string())];
      }
    }
    for (const auto& [id, want] : expected_) {
      if (value_of[id] != want) ++row.lost;  // a PATCH missing, or applied out of order
    }
    for (const auto& corr : creates_) {
      if (rows_with[corr] == 0) ++row.lost;
      if (rows_with[corr] > 1) row.duplicated += rows_with[corr] - 1;
    }
    if (rows_with.size() != creates_.size()) row.Fail("rows with unknown correlation ids");
    // Writes the instance accepted (the journal): more than the commands means repeats.
    auto journal = emulator_->Http("GET", "/_emulator/journal?since=0");
    if (journal.ok()) {
      boost::system::error_code ec;
      auto v = boost::json::parse(journal->body, ec);
      const std::string prefix = std::string("/api/now/table/") + kTable;
      if (!ec && v.is_object()) {
        for (const auto& e : v.as_object().at("entries").as_array()) {
          const auto& o = e.as_object();
          const std::string method(o.at("method").as_string());
          const std::string target(o.at("target").as_string());
          const int64_t status = o.at("status").to_number<int64_t>();
          if (method != "GET" && target.rfind(prefix, 0) == 0 && status >= 200 && status < 300) {
            ++row.out;
          }
        }
      }
    }
  }

  Sidecar& sidecar() { return *sidecar_; }

 private:
  testsupport::TempDir dir_{"snowcar-fault-sink"};
  std::string topic_;
  std::string group_;
  std::unique_ptr<Emulator> emulator_;
  std::unique_ptr<Broker> broker_;
  std::unique_ptr<testsupport::TestProducer> producer_;
  std::unique_ptr<Sidecar> sidecar_;
  std::map<std::string, std::string> expected_;  // sys_id -> value of its last PATCH
  std::vector<std::string> creates_;
  int seq_ = 0;
  int64_t produced_ = 0;
};

// Each round: one more batch of commands, the sink started, `fault(round)` at a random point
// within 300 ms, and the next round in a fresh consumer group; then what is left is drained and
// the instance compared with the commands.
template <typename Fault>
void FaultRounds(Row& row, SinkRig& rig, std::mt19937& rng, Fault fault) {
  for (int round = 0; round < row.rounds && !row.failed_check; ++round) {
    if (Status s = rig.ProduceRound(); !s.ok()) {
      row.Fail(s.ToString());
      break;
    }
    if (!rig.StartSink(row)) break;
    PauseForFault(std::chrono::milliseconds(rng() % 300));
    fault(round);
    ++row.faults;
    rig.MoveToFreshGroup(row);
  }
  if (!row.failed_check) rig.Drain(row);
  rig.Compare(row);
}

}  // namespace

std::vector<Row> SinkKillNine(const RunOptions& options) {
  Row row;
  row.scenario = "sink kill -9 at random points (correlation_lookup)";
  row.rounds = options.long_run ? 60 : 3;
  row.bound = 0;  // duplicate rows created; repeated PATCHes are harmless and not counted
  SinkRig rig;
  std::mt19937 rng(options.seed + 2);
  FaultRounds(row, rig, rng, [&](int) { rig.sidecar().Kill9(); });
  row.Note("every PATCHed row ends at its last command; every create made exactly one row; " +
           std::to_string(row.out - row.in) + " writes repeated after crashes");
  return {row};
}

std::vector<Row> SinkSigterm(const RunOptions& options) {
  Row row;
  row.scenario = "sink SIGTERM at random points";
  row.rounds = options.long_run ? 20 : 2;
  row.bound = 0;
  SinkRig rig;
  std::mt19937 rng(options.seed + 3);
  FaultRounds(row, rig, rng, [&](int round) {
    const auto status = rig.sidecar().Terminate();
    if (!status.ok()) row.Fail("round " + std::to_string(round) + " " + status.ToString());
  });
  // A graceful stop commits what it finished: no write may reach the instance twice.
  row.duplicated += std::max<int64_t>(row.out - row.in, 0);
  row.Note("duplicated = repeated writes + duplicate rows; every stop exited 0");
  return {row};
}

}  // namespace snowcar::fault
