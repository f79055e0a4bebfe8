// SPDX-License-Identifier: Apache-2.0
#include "demo/demo.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "demo/capacity.h"
#include "demo/config.h"
#include "demo/emulator.h"
#include "demo/kafka.h"
#include "demo/options.h"
#include "demo/processes.h"
#include "demo/progress.h"
#include "demo/screen.h"
#include "demo/stop.h"
#include "snowcar/common/log.h"

namespace snowcar::demo {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// One command for the sink: a CREATE carrying a correlation value, then (once the sink has
// cached the new row's sys_id under that value) a PATCH of the same row.
struct Command {
  std::string correlation;
  bool patched = false;
};

class Demo {
 public:
  Demo(Options options, StopSignal& stop, Screen& screen, ProcessGroup& group, std::string work)
      : o_(std::move(options)),
        stop_(stop),
        screen_(screen),
        group_(group),
        work_(std::move(work)),
        socket_(work_ + "/snowcar.sock"),
        config_(work_ + "/sidecar.properties") {}

  int Run();

 private:
  Status StartTestbed();
  Status StartSidecar();
  Status WaitReady();
  Status CheckChildren();
  void Tick();
  void SendCreates(int count);
  void SendPatches();
  void ShowState();
  Clock::duration RestartAt() const;
  bool ReadyToRestart() const;
  Status Restart();
  void Finish();
  void StopChild(pid_t& pid, const char* name);
  std::vector<std::string> Topics() const;
  Clock::duration Elapsed() const { return Clock::now() - started_; }

  Options o_;
  StopSignal& stop_;
  Screen& screen_;
  ProcessGroup& group_;
  const std::string work_;
  const std::string socket_;
  const std::string config_;

  Clock::time_point started_ = Clock::now();
  std::string url_;
  std::string bootstrap_;
  pid_t emulator_ = 0;
  pid_t broker_ = 0;
  pid_t sidecar_ = 0;
  int run_ = 0;  // 1 before the restart, 2 after
  std::unique_ptr<CommandProducer> producer_;
  std::vector<Command> commands_;
  int commands_sent_ = 0;

  Progress last_;
  SinkProgress run1_sink_;  // the first sidecar's sink totals when it was stopped
  bool state_shown_ = false;
  bool restarted_ = false;
  bool reread_after_restart_ = false;
  std::optional<Census> census_before_;
  Status failure_;
};

std::vector<std::string> Demo::Topics() const {
  std::vector<std::string> topics;
  for (const auto& t : o_.tables) topics.push_back(SourceTopic(t));
  return topics;
}

Status Demo::StartTestbed() {
  // Tables that generated rows refer to come first: filling incident also fills sys_user.
  std::vector<std::string> ordered = o_.tables;
  std::stable_partition(ordered.begin(), ordered.end(), [](const std::string& t) {
    return t == "sys_user" || t == "sys_user_group" || t == "cmdb_ci";
  });
  std::string tables;
  for (const auto& t : ordered) {
    tables += (tables.empty() ? "" : ",") + t + ":" + std::to_string(o_.rows);
  }
  screen_.Event("== 1. ServiceNow emulator: snowcar emulate --port 0 --tables " + tables);
  SNOWCAR_ASSIGN_OR_RETURN(emulator_, group_.Spawn({"emulator",
                                                    {"emulate", "--port", "0", "--tables", tables},
                                                    work_ + "/emulator.out",
                                                    work_ + "/emulator.log"}));
  SNOWCAR_ASSIGN_OR_RETURN(url_,
                           WaitFirstLine(group_, emulator_, "emulator", work_ + "/emulator.out",
                                         work_ + "/emulator.log", 60s));
  SNOWCAR_RETURN_IF_ERROR(StartWriter(url_, o_.tables, o_.rate));
  screen_.Event("   listening at " + url_ + " (pid " + std::to_string(emulator_) +
                "); live writer on: " + std::to_string(o_.rate) +
                " rows/s created or updated across the tables");

  std::string topics;
  for (const auto& t : Topics()) topics += t + ":" + std::to_string(kSourcePartitions) + ",";
  topics += std::string(kCommandTopic) + ":2," + kDeadLetterTopic + ":1";
  screen_.Event("== 2. Embedded Kafka broker: snowcar broker --topics " + topics);
  SNOWCAR_ASSIGN_OR_RETURN(broker_, group_.Spawn({"broker",
                                                  {"broker", "--topics", topics},
                                                  work_ + "/broker.out",
                                                  work_ + "/broker.log"}));
  SNOWCAR_ASSIGN_OR_RETURN(
      bootstrap_,
      WaitFirstLine(group_, broker_, "broker", work_ + "/broker.out", work_ + "/broker.log", 60s));
  screen_.Event("   bootstrap " + bootstrap_ + " (pid " + std::to_string(broker_) + ")");
  screen_.Event("   " + CapNotice(o_));

  SidecarSetup setup{url_, bootstrap_, o_.tables, work_ + "/state", socket_};
  SNOWCAR_RETURN_IF_ERROR(WriteFile(config_, SidecarProperties(setup)));
  SNOWCAR_ASSIGN_OR_RETURN(producer_, CommandProducer::Create(bootstrap_));
  return Status::Ok();
}

Status Demo::StartSidecar() {
  ++run_;
  const std::string log = work_ + "/sidecar-" + std::to_string(run_) + ".log";
  SNOWCAR_ASSIGN_OR_RETURN(sidecar_,
                           group_.Spawn({"sidecar",
                                         {"run", "--config", config_},
                                         work_ + "/sidecar-" + std::to_string(run_) + ".out",
                                         log}));
  return WaitReady();
}

Status Demo::WaitReady() {
  const auto start = Clock::now();
  const std::string log = work_ + "/sidecar-" + std::to_string(run_) + ".log";
  while (!SidecarReady(socket_)) {
    if (!group_.Running(sidecar_)) {
      return Status::Unavailable("the sidecar ended (" + group_.ExitText(sidecar_) +
                                 ") before it was ready; its log ends with:\n" + Tail(log, 10));
    }
    if (Clock::now() - start > 60s) {
      return Status::DeadlineExceeded(
          "the sidecar was not ready within 60 s; its log ends "
          "with:\n" +
          Tail(log, 10));
    }
    if (!stop_.Wait(50ms)) return Status::Cancelled("stopped while the sidecar started");
  }
  screen_.Event("   sidecar pid " + std::to_string(sidecar_) + " ready after " +
                Seconds(Clock::now() - start) + "; socket " + socket_);
  return Status::Ok();
}

Status Demo::CheckChildren() {
  const std::pair<pid_t, const char*> children[] = {
      {emulator_, "emulator"}, {broker_, "broker"}, {sidecar_, "sidecar"}};
  for (const auto& [pid, name] : children) {
    if (pid > 0 && !group_.Running(pid)) {
      std::string why = std::string("the ") + name + " (pid " + std::to_string(pid) +
                        ") ended unexpectedly: " + group_.ExitText(pid);
      if (pid == sidecar_) {
        why += "; its log ends with:\n" +
               Tail(work_ + "/sidecar-" + std::to_string(run_) + ".log", 10);
      }
      return Status::Unavailable(why);
    }
  }
  return Status::Ok();
}

void Demo::SendCreates(int count) {
  for (int i = 0; i < count; ++i) {
    Command c{"demo-" + std::to_string(commands_.size() + 1)};
    const std::string value = R"({"short_description":"created through Kafka by snowcar demo",)"
                              R"("urgency":"2","correlation_id":")" +
                              c.correlation + "\"}";
    const Status st = producer_->Send(kCommandTopic, std::nullopt, value, 10s);
    if (!st.ok()) {
      screen_.Event("   could not produce a command: " + st.message());
      return;
    }
    ++commands_sent_;
    screen_.Event("   -> " + std::string(kCommandTopic) + ": CREATE incident, " +
                  kCorrelationField + "=" + c.correlation);
    commands_.push_back(std::move(c));
  }
}

void Demo::SendPatches() {
  for (auto& c : commands_) {
    if (c.patched) continue;
    const auto sys_id = CachedSysId(socket_, kCommandTable, kCorrelationField, c.correlation);
    if (!sys_id) continue;
    const Status st = producer_->Send(kCommandTopic, *sys_id,
                                      R"({"state":"2","work_notes":"patched through Kafka"})", 10s);
    if (!st.ok()) {
      screen_.Event("   could not produce a command: " + st.message());
      return;
    }
    c.patched = true;
    ++commands_sent_;
    screen_.Event("   -> " + std::string(kCommandTopic) + ": PATCH incident " + *sys_id + " (" +
                  c.correlation + ", its sys_id from the sink's correlation cache)");
  }
}

void Demo::Tick() {
  last_ = ReadProgress(socket_);
  const auto secs = std::chrono::duration_cast<std::chrono::seconds>(Elapsed()).count();
  std::vector<std::string> lines;
  lines.push_back("[" + PadLeft(std::to_string(secs), 4) + "s] sidecar run " +
                  std::to_string(run_) + " (pid " + std::to_string(sidecar_) + ")");
  if (!last_.answered) {
    lines.push_back("  (the sidecar's socket does not answer right now)");
    screen_.Progress(lines);
    return;
  }
  lines.push_back("  " + Pad("TABLE", 16) + Pad("STATE", 12) + Pad("PHASE", 9) +
                  PadLeft("READ", 8) + PadLeft("EMITTED", 9) + PadLeft("DUP-SUPPR", 11) +
                  PadLeft("LAG", 6));
  for (const auto& t : last_.tables) {
    lines.push_back("  " + Pad(t.alias, 16) + Pad(t.state, 12) + Pad(t.phase, 9) +
                    PadLeft(std::to_string(t.read()), 8) + PadLeft(std::to_string(t.emitted), 9) +
                    PadLeft(std::to_string(t.suppressed), 11) +
                    PadLeft(std::to_string(t.lag_seconds) + "s", 6));
    if (!t.last_error.empty()) lines.push_back("    last error: " + t.last_error.substr(0, 100));
  }
  lines.push_back("  sink: commands sent " + std::to_string(commands_sent_) + ", applied " +
                  std::to_string(last_.sink.applied) + ", failed " +
                  std::to_string(last_.sink.failed) + " (this run)");
  screen_.Progress(lines);
}

void Demo::ShowState() {
  state_shown_ = true;
  screen_.KeepBlock();
  screen_.Event("== 4. The socket answers: the real `snowcar state` CLI");
  const std::vector<std::vector<std::string>> queries = {
      {"health"},
      {"cursors"},
      {"correlation", kCommandTable, kCorrelationField, commands_.front().correlation}};
  for (const auto& q : queries) {
    std::vector<std::string> args = {"state", "--socket", socket_};
    args.insert(args.end(), q.begin(), q.end());
    std::string shown = "$ snowcar";
    for (const auto& a : args) shown += " " + a;
    auto result = group_.Run(args, 10s);
    if (!result.ok()) {
      screen_.Event(shown + "\n  (" + result.status().message() + ")");
      continue;
    }
    screen_.Event(
        shown + "\n" + Indent(result->output) +
        (result->exit_code == 0 ? "" : "\n  (exit " + std::to_string(result->exit_code) + ")"));
  }
}

Clock::duration Demo::RestartAt() const {
  // A fixed point in time keeps the demo predictable: 40 % into a timed run.
  return o_.seconds > 0 ? std::chrono::seconds(o_.seconds) * 2 / 5 : std::chrono::seconds(20);
}

bool Demo::ReadyToRestart() const {
  // The state CLI has been shown and every table has emitted something (the backfill is
  // under way), so the restart has rows and cursors to prove itself on.
  if (!state_shown_ || Elapsed() < RestartAt() || !last_.answered || last_.tables.empty()) {
    return false;
  }
  return std::all_of(last_.tables.begin(), last_.tables.end(),
                     [](const TableProgress& t) { return t.emitted > 0; });
}

Status Demo::Restart() {
  restarted_ = true;
  screen_.KeepBlock();
  screen_.Event("== 5. Restart: SIGTERM to the sidecar (pid " + std::to_string(sidecar_) +
                "), then start it again on the same state.dir");
  const Progress before = ReadProgress(socket_);
  if (before.answered) run1_sink_ = before.sink;
  const auto stop_start = Clock::now();
  const Status stopped = group_.Stop(sidecar_, 60s);
  if (!stopped.ok())
    return Status::Internal("the sidecar did not stop cleanly: " + stopped.message());
  screen_.Event("   it drained, committed and exited 0 after " +
                Seconds(Clock::now() - stop_start));
  sidecar_ = 0;
  auto census = TakeCensus(bootstrap_, Topics(), {}, 60s);
  if (!census.ok()) return census.status();
  std::string per_topic;
  for (const auto& [topic, n] : census->records_per_topic) {
    per_topic += (per_topic.empty() ? "" : ", ") + topic + " " + std::to_string(n);
  }
  screen_.Event("   Kafka now holds " + std::to_string(census->records) + " source records (" +
                per_topic + ")" + DroppedNote(census->dropped));
  census_before_ = std::move(*census);
  SNOWCAR_RETURN_IF_ERROR(StartSidecar());
  screen_.Event("   it resumes from its cursors and re-reads each table's overlap window;");
  screen_.Event("   the durable dedup index keeps versions already in Kafka out of it");
  SendCreates(2);
  return Status::Ok();
}

void Demo::StopChild(pid_t& pid, const char* name) {
  if (pid <= 0) return;
  const Status st = group_.Stop(pid, 30s);
  if (!st.ok() && failure_.ok()) {
    failure_ =
        Status::Internal(std::string("the ") + name + " did not stop cleanly: " + st.message());
  }
  pid = 0;
}

void Demo::Finish() {
  screen_.KeepBlock();
  screen_.Event("== 6. Stopping: SIGTERM to the sidecar, then the broker and the emulator");
  SinkProgress last_sink;
  if (sidecar_ > 0 && group_.Running(sidecar_)) {
    const Progress final_progress = ReadProgress(socket_);
    last_sink = final_progress.answered ? final_progress.sink : last_.sink;
    if (final_progress.answered) last_ = final_progress;
  }
  StopChild(sidecar_, "sidecar");
  producer_.reset();  // before the broker goes, or librdkafka complains it is down

  // The census needs the broker; it is skipped when the broker is gone or the user pressed
  // Ctrl-C during start-up.
  std::optional<Census> after;
  if (broker_ > 0 && group_.Running(broker_) && !bootstrap_.empty()) {
    std::map<TopicPartition, int64_t> from;
    if (census_before_) from = census_before_->end_offsets;
    auto census = TakeCensus(bootstrap_, Topics(), from, 60s);
    if (census.ok()) {
      after = std::move(*census);
    } else {
      screen_.Event("   could not read the source topics: " + census.status().message());
    }
  }
  StopChild(broker_, "broker");
  StopChild(emulator_, "emulator");

  screen_.Event("== summary");
  if (after) {
    for (const auto& t : o_.tables) {
      const std::string topic = SourceTopic(t);
      const int64_t later = after->records_per_topic[topic];
      const int64_t earlier = census_before_ ? census_before_->records_per_topic[topic] : 0;
      std::string line = "  ";
      line += t;
      line += ": " + std::to_string(earlier + later) + " rows in ";
      line += topic;
      if (census_before_) {
        line += " (" + std::to_string(earlier) + " before the restart, " + std::to_string(later) +
                " after)";
      }
      line += DroppedNote(after->dropped_per_topic[topic]);
      screen_.Event(line);
    }
  }
  const int64_t applied = run1_sink_.applied + last_sink.applied;
  const int64_t failed = run1_sink_.failed + last_sink.failed;
  screen_.Event("  sink: commands sent " + std::to_string(commands_sent_) + ", applied " +
                std::to_string(applied) + ", failed " + std::to_string(failed) + " in total");
  if (restarted_ && census_before_ && after) {
    const RestartCount count = CompareCensus(*census_before_, *after);
    int64_t suppressed = 0;
    if (run_ == 2) {
      for (const auto& t : last_.tables) suppressed += t.suppressed;
    }
    screen_.Event("  restart: emitted before restart " + std::to_string(count.before) +
                  ", after restart " + std::to_string(count.after) +
                  ", duplicates re-emitted: " + std::to_string(count.re_emitted));
    screen_.Event(
        "           (counted in Kafka by sys_id and sys_mod_count; the second sidecar re-read "
        "and suppressed " +
        std::to_string(suppressed) + ")");
    if (count.re_emitted != 0 && failure_.ok()) {
      failure_ = Status::DataLoss("the restart emitted " + std::to_string(count.re_emitted) +
                                  " row versions a second time");
    }
  } else {
    screen_.Event("  restart: not shown (the demo stopped before it)");
  }
}

int Demo::Run() {
  screen_.Event("snowcar demo: work dir " + work_ + "; stop with Ctrl-C");
  Status st = StartTestbed();
  if (st.ok()) {
    screen_.Event("   the children run in process group " + std::to_string(group_.pgid()));
    screen_.Event("== 3. Sidecar, both directions: snowcar run --config " + config_);
    st = StartSidecar();
  }
  if (st.ok()) SendCreates(3);
  while (st.ok()) {
    if (!stop_.Wait(1s)) break;
    if (st = CheckChildren(); !st.ok()) break;
    Tick();
    SendPatches();
    // Once the sink has created a row (the correlation query then has an answer), or at the
    // restart's time at the latest.
    if (!state_shown_ && !commands_.empty() &&
        (last_.sink.applied > 0 || Elapsed() >= RestartAt())) {
      ShowState();
    }
    if (!restarted_ && ReadyToRestart()) {
      if (st = Restart(); !st.ok()) break;
      continue;
    }
    if (restarted_ && !reread_after_restart_ && last_.answered) {
      // Every table has fetched a page since the restart, so its overlap was read again.
      reread_after_restart_ = std::all_of(last_.tables.begin(), last_.tables.end(),
                                          [](const TableProgress& t) { return t.pages > 0; });
    }
    if (o_.seconds > 0 && Elapsed() >= std::chrono::seconds(o_.seconds)) {
      // Give the restart time to prove itself, but never much longer than asked.
      if (!restarted_ || reread_after_restart_ ||
          Elapsed() >= std::chrono::seconds(o_.seconds) + 30s) {
        break;
      }
    }
  }
  if (stop_.stopped()) {
    screen_.KeepBlock();
    screen_.Event(std::string("== ") + stop_.name() + " received");
  }
  if (!st.ok() && st.code() != StatusCode::kCancelled) failure_ = st;
  Finish();
  if (!failure_.ok()) {
    std::fprintf(stderr, "snowcar demo: %s\n", failure_.message().c_str());
    return 1;
  }
  return 0;
}

}  // namespace

int Main(const Options& options) {
  // Before any thread exists (librdkafka's), so every thread inherits the blocked mask.
  StopSignal stop;
  log::SetFormat(log::Format::kText);
  log::SetLevel(log::Level::kWarn);

  std::string pattern = (std::filesystem::temp_directory_path() / "snowcar-demo.XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    std::fprintf(stderr, "snowcar demo: cannot create a work directory from %s\n", pattern.c_str());
    return 1;
  }
  const std::string work = pattern;
  Screen screen(stdout, Screen::StdoutIsTerminal());
  const bool keep = options.keep;
  int rc = 0;
  {
    // The group's destructor kills anything still running before the directory goes.
    ProcessGroup group(SelfExecutable());
    Demo demo(options, stop, screen, group, work);
    rc = demo.Run();
  }
  if (keep) {
    screen.Event("kept the work dir " + work + " (config, state, logs)");
  } else {
    std::error_code ec;
    std::filesystem::remove_all(work, ec);
    screen.Event("removed the work dir " + work);
  }
  return rc;
}

}  // namespace snowcar::demo
