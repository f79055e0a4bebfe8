// SPDX-License-Identifier: Apache-2.0
#include "contract_run.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include "procs.h"
#include "real_broker.h"
#include "run_check.h"
#include "support/http_post.h"
#include "support/kafka_client.h"
#include "support/temp_dir.h"
#include "support/wait.h"

namespace snowcar::contract {
namespace {

using namespace std::chrono_literals;
using fault::Sidecar;

constexpr int kSinkRows = 6;
constexpr int kBacklog = 120;
constexpr int kHideEvery = 5;  // a hidden-rows fault hides about one incident row in five

std::string SinkRowId(int n) {
  char buf[33];
  std::snprintf(buf, sizeof buf, "cc%030x", n);
  return buf;
}

// `snowcar registry --port 0`: the Schema Registry double.
class Registry {
 public:
  Status Start() {
    testsupport::ChildOptions opts;
    opts.args = {"registry", "--port", "0"};
    opts.capture_stderr = true;
    SNOWCAR_ASSIGN_OR_RETURN(child_,
                             testsupport::ChildProcess::Spawn(fault::SnowcarBinary(), opts));
    SNOWCAR_ASSIGN_OR_RETURN(url_, child_->ReadLine(30s));
    return Status::Ok();
  }
  const std::string& url() const { return url_; }
  // Every request answered `status` until Refuse(0): POST /_registry/fail (docs/testbed.md).
  Status Refuse(int status) {
    const std::string query = status == 0 ? "count=0" : "count=-1&status=" + std::to_string(status);
    const auto answer = testsupport::PostEmpty(url_ + "/_registry/fail?" + query);
    if (answer.status != 200)
      return Status::Internal("registry refusal: HTTP " + std::to_string(answer.status) + " " +
                              answer.body);
    return Status::Ok();
  }

 private:
  std::unique_ptr<testsupport::ChildProcess> child_;
  std::string url_;
};

// `snowcar config check` on replica 0's file: exit 2 is a refusal, with its reason.
Result<std::string> ConfigRefusal(const std::map<std::string, std::string>& props,
                                  const std::string& path) {
  {
    std::ofstream out(path);
    for (const auto& [k, v] : props) out << k << "=" << v << "\n";
  }
  testsupport::ChildOptions opts;
  opts.args = {"config", "check", path};
  opts.capture_stderr = true;
  SNOWCAR_ASSIGN_OR_RETURN(auto r, testsupport::RunToCompletion(fault::SnowcarBinary(), opts, 30s));
  if (r.status.exited && r.status.code == 2) return r.out + r.err;
  if (!r.status.ok()) {
    return Status::Internal("config check: " + r.status.ToString() + ": " + r.out + r.err);
  }
  return std::string();
}

class Run {
 public:
  Run(const Features& f, const Schedule& s, const RunLimits& l) : f_(f), schedule_(s), limits_(l) {
    // Exactly-once: both transaction boundaries, by the seed's parity (run_config.h).
    if (ExactlyOnce(f_)) f_["transaction_boundary"] = s.seed % 2 == 0 ? "poll" : "interval";
  }

  RunResult Go() {
    const auto t0 = std::chrono::steady_clock::now();
    RunResult result = Body();
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return result;
  }

 private:
  RunResult Error(const std::string& why) {
    RunResult r;
    r.outcome = Outcome::kError;
    r.detail = why;
    for (auto& s : sidecars_) {
      if (s) r.detail += "\n--- replica stderr (tail):\n" + Tail(s->Stderr());
    }
    return r;
  }
  static std::string Tail(const std::string& s) {
    return s.size() > 1500 ? s.substr(s.size() - 1500) : s;
  }

  // "" once the emulator and the broker serve, or what went wrong.
  std::string Setup() {
    const std::string seed = dir_.File("seed.json");
    {
      std::ofstream out(seed);
      out << "{\"" << kSinkTable << "\":[";
      for (int r = 0; r < kSinkRows; ++r) {
        out << (r ? "," : "") << R"({"sys_id":")" << SinkRowId(r)
            << R"(","short_description":"start"})";
      }
      out << "]}";
    }
    emulator_ = std::make_unique<fault::Emulator>(std::vector<std::string>{
        "--tables", "incident:" + std::to_string(kBacklog), "--seed-file", seed});
    ep_.emulator = emulator_->url();
    ep_.inc_topic = fault::Unique("ct-inc");
    ep_.ctr_topic = fault::Unique("ct-ctr");
    ep_.cmd_topic = fault::Unique("ct-cmd");
    ep_.ok_topic = fault::Unique("ct-ok");
    ep_.sink_group = fault::Unique("ct-sink");
    if (Replicas(f_) > 1) ep_.source_group = fault::Unique("ct-src");
    if (ExactlyOnce(f_)) return SetupRealBroker();
    broker_ = std::make_unique<fault::Broker>(
        ep_.inc_topic + ":4," + ep_.ctr_topic + ":4," + ep_.cmd_topic + ":" +
        std::to_string(kSinkPartitions) + "," + ep_.ok_topic + ":1");
    ep_.bootstrap = broker_->bootstrap();
    return "";
  }

  // Exactly-once: Apache Kafka (real_broker.h), the same topics made through its admin API,
  // and aliases and a state topic of this run's own.
  std::string SetupRealBroker() {
    bool restarts = false;
    for (const auto& e : schedule_.events) restarts = restarts || e.kind == FaultKind::kBrokerDown;
    auto broker = RealBroker::ForRun(restarts);
    if (!broker.ok()) return "Apache Kafka: " + broker.status().ToString();
    real_ = *broker;
    ep_.bootstrap = real_->bootstrap();
    const std::vector<std::pair<std::string, int>> topics = {{ep_.inc_topic, 4},
                                                             {ep_.ctr_topic, 4},
                                                             {ep_.cmd_topic, kSinkPartitions},
                                                             {ep_.ok_topic, 1}};
    for (const auto& [topic, partitions] : topics) {
      if (Status st = real_->CreateTopic(topic, partitions); !st.ok()) return st.ToString();
    }
    static int runs = 0;  // aliases only letters and digits, unique per process and run
    const std::string tag = std::to_string(::getpid()) + "n" + std::to_string(++runs);
    ep_.inc_alias = "inc" + tag;
    ep_.ctr_alias = "ctr" + tag;
    ep_.state_topic = fault::Unique("ct-state");
    return "";
  }

  RunResult Body() {
    phase_start_ = std::chrono::steady_clock::now();
    // `config check` first, with stand-in addresses (it connects to nothing): a refused
    // combination starts no process, which keeps the refusal cases of the fixed set short.
    Endpoints stand_in{"http://127.0.0.1:9",
                       "127.0.0.1:9",
                       NeedsRegistry(f_) ? "http://127.0.0.1:9" : "",
                       "ct-inc",
                       "ct-ctr",
                       "ct-cmd",
                       "ct-ok",
                       "ct-sink",
                       Replicas(f_) > 1 ? "ct-src" : ""};
    const std::string r0 = dir_.File("r0");
    std::filesystem::create_directories(r0);
    auto refusal = ConfigRefusal(ReplicaProps(f_, stand_in, 0, r0), dir_.File("check.properties"));
    if (!refusal.ok()) return Error(refusal.status().ToString());
    if (!refusal->empty()) {
      RunResult r;
      r.outcome = Outcome::kRefused;
      r.detail = *refusal;
      return r;
    }
    if (limits_.refusal_only) {
      RunResult r;
      r.outcome = Outcome::kPass;
      r.detail = "accepted by config check; not run (a refusal case)";
      return r;
    }
    if (std::string e = Setup(); !e.empty()) return Error(e);
    if (NeedsRegistry(f_)) {
      if (Status s = registry_.Start(); !s.ok()) return Error("registry: " + s.ToString());
      ep_.registry = registry_.url();
    }
    for (int i = 0; i < Replicas(f_); ++i) {
      const std::string d = dir_.File("r" + std::to_string(i));
      std::filesystem::create_directories(d);
      sidecars_.push_back(std::make_unique<Sidecar>(d, ReplicaProps(f_, ep_, i, d)));
    }
    {
      // Side by side: each waits for its own readiness (about a second under load).
      std::vector<char> started(sidecars_.size(), 0);
      std::vector<std::thread> starts;
      for (size_t i = 0; i < sidecars_.size(); ++i) {
        starts.emplace_back([this, &started, i] { started[i] = sidecars_[i]->Start() ? 1 : 0; });
      }
      for (auto& t : starts) t.join();
      for (size_t i = 0; i < sidecars_.size(); ++i) {
        if (started[i] == 0) return Error("start: " + sidecars_[i]->last_error());
      }
    }
    auto producer = testsupport::TestProducer::Create(ep_.bootstrap, {{"linger.ms", "1"}});
    if (!producer.ok()) return Error(producer.status().ToString());
    producer_ = std::move(producer).value();
    if (Status s = emulator_->Control(
            "writer/start",
            R"({"tables":["incident"],"rows_per_second":25,"update_share":0.5,"burst_rows":10,"burst_interval_ms":1500})");
        !s.ok()) {
      return Error(s.ToString());
    }
    backlog_ = emulator_->Snapshot("incident");
    Phase("started");
    if (std::string e = Window(); !e.empty()) return Error(e);
    Phase("window");
    (void)emulator_->Control("writer/stop", "{}");
    (void)emulator_->Control("latency", R"({"fixed_ms":0,"jitter_ms":0})");
    for (auto& s : sidecars_) {
      if (!s->running() && !s->Start()) return Error("restart: " + s->last_error());
    }
    if (ReconcileOnly()) {
      if (std::string e = DeleteAfterABaseline(); !e.empty()) return Error(e);
    }
    // Converge: the same checks as the verdict, until they hold or the time is up. Checked
    // every 250 ms (a check takes about 0.2 s): each run waits less past the moment it holds.
    RunFacts facts;
    Verdict verdict;
    testsupport::WaitFor(
        [&] {
          verdict = CheckRun(f_, ep_, schedule_, hidden_, &facts);
          return verdict.ok();
        },
        std::chrono::seconds(limits_.settle_s), 250ms);
    // A graceful stop commits the sink's offsets; then the final verdict.
    Phase("converged");
    // A replica that died on its own (a crash after a restart logs nothing) shows here: the
    // SIGTERM finds it gone, and its exit status is not the clean stop's exit 0.
    std::vector<testsupport::ExitStatus> exits(sidecars_.size());
    {
      std::vector<std::thread> stops;
      for (size_t i = 0; i < sidecars_.size(); ++i) {
        stops.emplace_back([this, &exits, i] { exits[i] = sidecars_[i]->Terminate(); });
      }
      for (auto& t : stops) t.join();
    }
    std::string crashed;
    for (size_t i = 0; i < exits.size(); ++i) {
      if (!exits[i].ok()) {
        crashed +=
            "replica " + std::to_string(i) + " did not stop cleanly: " + exits[i].ToString() + "\n";
      }
    }
    Phase("stopped");
    verdict = CheckRun(f_, ep_, schedule_, hidden_, &facts);
    Phase("checked");
    RunResult r;
    r.phases = phases_;
    r.facts = std::to_string(facts.source_records) + " source records, " +
              std::to_string(facts.commands) + " commands, " + std::to_string(facts.reports) +
              " success reports, " + std::to_string(facts.deletions) + " deletions";
    if (ExactlyOnce(f_)) {
      // What read_committed left out: the faults that landed inside a transaction.
      r.facts += ", " + std::to_string(AbortedRecords(ep_, facts)) +
                 " records of aborted transactions (transaction.boundary=" +
                 f_.at("transaction_boundary") + ")";
    }
    if (verdict.void_check) {
      r.outcome = Outcome::kVoid;
    } else {
      r.outcome = verdict.ok() ? Outcome::kPass : Outcome::kViolation;
    }
    r.detail = verdict.Summary();
    if (!crashed.empty()) {
      // A crash is a failure whatever the topics say.
      r.outcome = Outcome::kError;
      r.detail = crashed + r.detail;
    }
    if (!verdict.ok() || !crashed.empty()) {
      for (size_t i = 0; i < sidecars_.size(); ++i) {
        r.detail +=
            "--- replica " + std::to_string(i) + " stderr (tail):\n" + Tail(sidecars_[i]->Stderr());
      }
    }
    return r;
  }

  // The schedule's window: commands every 600 ms, a deletion every 1500 ms, faults on time.
  std::string Window() {
    const auto start = std::chrono::steady_clock::now();
    auto now_ms = [&] {
      return static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::steady_clock::now() - start)
                                  .count());
    };
    size_t next_event = 0;
    int next_round = 0;
    int next_delete = 700;
    int deleted = 0;
    std::vector<std::pair<int, std::string>> undo;  // (at ms, what) for latency and outages
    while (now_ms() < limits_.span_ms || next_event < schedule_.events.size() || !undo.empty()) {
      const int t = now_ms();
      if (t >= next_round * 600 && t < limits_.span_ms) {
        if (std::string e = ProduceRound(next_round); !e.empty()) return e;
        ++next_round;
      }
      if (t >= next_delete && t < limits_.span_ms && !ReconcileOnly()) {
        next_delete += 1500;
        DeleteRow(deleted++);
      }
      while (next_event < schedule_.events.size() && schedule_.events[next_event].at_ms <= t) {
        if (std::string e = Apply(schedule_.events[next_event], t, undo); !e.empty()) return e;
        ++next_event;
      }
      for (auto it = undo.begin(); it != undo.end();) {
        if (it->first > t) {
          ++it;
          continue;
        }
        if (it->second == "latency") {
          (void)emulator_->Control("latency", R"({"fixed_ms":0,"jitter_ms":0})");
        } else if (it->second == "acl") {
          NoteHiddenRows();
          (void)emulator_->Control("acl", R"({"hide_every":0})");
        } else if (it->second == "registry") {
          if (Status st = registry_.Refuse(0); !st.ok()) return st.ToString();
        } else {
          (void)broker_->Command(it->second);
        }
        it = undo.erase(it);
      }
      fault::PauseForFault(20ms);
    }
    if (Status s = producer_->Flush(30s); !s.ok()) return "producing commands: " + s.ToString();
    return "";
  }

  // With deletes=reconcile alone, a deletion is only found once a sweep has taken the table's
  // baseline (docs/semantics.md, Reconciliation: the first sweep emits nothing for rows it did
  // not know), and a replica restarted before its first sweep finished takes the baseline again.
  // So these runs delete after the window, once every replica is up and a sweep has started
  // after another one did (sweeps never overlap: the first has finished).
  bool ReconcileOnly() const { return f_.at("deletes") == "reconcile"; }

  std::string DeleteAfterABaseline() {
    // A sweep's first page: incident's sys_ids from the start, ordered by sys_id.
    auto sweeps = [&] {
      auto a = emulator_->Http("GET", "/_emulator/journal?since=" + std::to_string(journal_mark_));
      int n = 0;
      boost::system::error_code ec;
      auto v = a.ok() ? boost::json::parse(a->body, ec) : boost::json::value();
      if (ec || !v.is_object()) return n;
      for (const auto& e : v.as_object().at("entries").as_array()) {
        const std::string target(e.as_object().at("target").as_string());
        if (target.find("table/incident?") != std::string::npos &&
            target.find("sysparm_query=ORDERBYsys_id") != std::string::npos) {
          ++n;
        }
      }
      return n;
    };
    journal_mark_ = LastJournalSeq();
    if (!testsupport::WaitFor([&] { return sweeps() >= 2; }, 30s, 200ms)) {
      return "no reconciliation sweep started twice within 30 s after the window";
    }
    for (int i = 0; i < 2; ++i) DeleteRow(i);
    return "";
  }

  uint64_t LastJournalSeq() {
    auto a = emulator_->Http("GET", "/_emulator/journal?since=0");
    if (!a.ok()) return 0;
    const size_t at = a->body.rfind("\"seq\":");
    return at == std::string::npos ? 0 : std::strtoull(a->body.c_str() + at + 6, nullptr, 10);
  }

  void DeleteRow(int n) {
    const size_t pick = static_cast<size_t>(n) * 7 % backlog_.size();
    const std::string id(backlog_[pick].at("sys_id").as_string());
    (void)emulator_->Http("DELETE", "/api/now/table/incident/" + id);
  }

  // Enqueues a round without waiting for it: a broker outage of the schedule must not hold
  // the window up (the producer retries; Window() flushes at its end).
  std::string ProduceRound(int round) {
    for (int row = 0; row < kSinkRows; ++row) {
      testsupport::OutMessage m;
      m.key = SinkRowId(row);
      m.value = R"({"short_description":"r)" + std::to_string(round) + "-" + std::to_string(row) +
                R"("})";
      m.partition = row % kSinkPartitions;
      if (Status s = producer_->Produce(ep_.cmd_topic, m); !s.ok()) {
        return "producing commands: " + s.ToString();
      }
    }
    return "";
  }

  std::string Apply(const FaultEvent& e, int t, std::vector<std::pair<int, std::string>>& undo) {
    // Restarts wait for the socket, not for readiness: a replica restarted while the broker
    // is down is not ready until the broker's own "up" comes, which this loop sends.
    Sidecar& s = *sidecars_[static_cast<size_t>(e.replica) % sidecars_.size()];
    switch (e.kind) {
      case FaultKind::kKill9:
        s.Kill9();
        if (!s.Start(false)) return "restart after kill -9: " + s.last_error();
        break;
      case FaultKind::kSigterm:
        s.Terminate();
        if (!s.Start(false)) return "restart after SIGTERM: " + s.last_error();
        break;
      case FaultKind::kReplicaCycle: {
        Sidecar& last = *sidecars_.back();
        last.Terminate();
        fault::PauseForFault(1s);
        if (!last.Start(false)) return "rejoin: " + last.last_error();
        break;
      }
      case FaultKind::kRateLimit:
        (void)emulator_->Control("faults", R"({"kind":"rate_limit","next":4,"retry_after":)" +
                                               std::to_string(e.amount) + "}");
        break;
      case FaultKind::kServerError:
        (void)emulator_->Control("faults", R"({"kind":"server_error","status":503,"next":)" +
                                               std::to_string(e.amount) + "}");
        break;
      case FaultKind::kLatency:
        (void)emulator_->Control(
            "latency", R"({"fixed_ms":)" + std::to_string(e.amount) + R"(,"jitter_ms":50})");
        undo.push_back({t + 1500, "latency"});
        break;
      case FaultKind::kBrokerDown:
        if (real_ != nullptr) {
          // Apache Kafka goes down and comes back by itself: its outage is the restart's.
          if (Status st = real_->Restart(); !st.ok()) return st.ToString();
          break;
        }
        if (Status st = broker_->Command("down 1"); !st.ok()) return st.ToString();
        undo.push_back({t + e.amount, "up 1"});
        break;
      case FaultKind::kLostAnswer:
        // Applied, then the connection closes before the answer: the sink's PATCHes land
        // although their caller saw no answer, the source's reads are simply lost.
        (void)emulator_->Control(
            "faults", R"({"kind":"apply_then_drop","path_prefix":"/api/now/table/","next":)" +
                          std::to_string(e.amount) + "}");
        break;
      case FaultKind::kHiddenRows:
        (void)emulator_->Control(
            "acl", R"({"hide_every":)" + std::to_string(kHideEvery) + R"(,"table":"incident"})");
        undo.push_back({t + e.amount, "acl"});
        break;
      case FaultKind::kRegistryRefusal:
        // Only runs with a registry draw it (MakeSchedule).
        if (Status st = registry_.Refuse(e.status); !st.ok()) return st.ToString();
        undo.push_back({t + e.amount, "registry"});
        break;
    }
    return "";
  }

  // Just before an ACL goes away: the incident rows it hides now (every row of the table less
  // the ones the Table API shows the integration user). The checker excuses what it may do to
  // them (hidden_ids in run_check.h); every other row is still checked in full.
  void NoteHiddenRows() {
    std::set<std::string> all;
    for (const auto& row : emulator_->Snapshot("incident")) {
      all.insert(std::string(row.at("sys_id").as_string()));
    }
    for (int attempt = 0; attempt < 10; ++attempt) {  // a 503 or 429 rule may still be on
      auto a = emulator_->Http(
          "GET", "/api/now/table/incident?sysparm_fields=sys_id&sysparm_limit=100000");
      if (!a.ok() || a->status != 200) continue;
      boost::system::error_code ec;
      auto v = boost::json::parse(a->body, ec);
      if (ec || !v.is_object() || !v.as_object().contains("result")) continue;
      for (const auto& row : v.as_object().at("result").as_array()) {
        if (const auto* id = row.as_object().if_contains("sys_id");
            id != nullptr && id->is_string()) {
          all.erase(std::string(id->as_string()));
        }
      }
      hidden_.insert(all.begin(), all.end());
      return;
    }
    // Not learned: every row counts as possibly hidden rather than a false violation.
    hidden_.insert(all.begin(), all.end());
  }

  // Where a run's time goes ("started 1.2 s, window 3.0 s, ..."), printed with its result.
  void Phase(const char* name) {
    const auto now = std::chrono::steady_clock::now();
    char buf[64];
    std::snprintf(buf, sizeof buf, "%s%s %.1f s", phases_.empty() ? "" : ", ", name,
                  std::chrono::duration<double>(now - phase_start_).count());
    phases_ += buf;
    phase_start_ = now;
  }

  std::chrono::steady_clock::time_point phase_start_;
  std::string phases_;
  Features f_;
  Schedule schedule_;
  RunLimits limits_;
  testsupport::TempDir dir_{"snowcar-contract"};
  Endpoints ep_;
  std::unique_ptr<fault::Emulator> emulator_;
  std::unique_ptr<fault::Broker> broker_;
  RealBroker* real_ = nullptr;  // exactly-once runs: Apache Kafka instead of broker_
  Registry registry_;
  std::vector<std::unique_ptr<Sidecar>> sidecars_;
  std::unique_ptr<testsupport::TestProducer> producer_;
  std::vector<boost::json::object> backlog_;
  std::set<std::string> hidden_;  // incident rows an ACL of the schedule hid
  uint64_t journal_mark_ = 0;
};

}  // namespace

const char* OutcomeName(Outcome o) {
  switch (o) {
    case Outcome::kPass:
      return "PASS";
    case Outcome::kRefused:
      return "REFUSED";
    case Outcome::kViolation:
      return "VIOLATION";
    case Outcome::kVoid:
      return "VOID";
    case Outcome::kError:
      return "ERROR";
  }
  return "?";
}

RunResult RunCombination(const Features& f, const Schedule& schedule, const RunLimits& limits) {
  Run run(f, schedule, limits);
  return run.Go();
}

}  // namespace snowcar::contract
