// SPDX-License-Identifier: Apache-2.0
#include "freshness_run.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <thread>

#include "arrival_reader.h"
#include "change_writer.h"
#include "e2e_processes.h"
#include "support/child_process.h"
#include "support/temp_dir.h"

namespace snowcar::bench {
namespace {

using Clock = std::chrono::steady_clock;

double LoadAverage() {
  std::ifstream in("/proc/loadavg");
  double load = 0;
  in >> load;
  return load;
}

std::string SidecarConfig(const FreshnessSettings& s, const RunSpec& spec, const std::string& base,
                          const testsupport::TempDir& dir) {
  const std::vector<std::string> tables = TableNames(s.tables);
  std::string cfg = "snow.url=" + base +
                    "\nsnow.auth.username=admin\nsnow.auth.password=admin-emulator\n"
                    "source.enabled=true\nsink.enabled=false\nsnow.source.startup.probe=false\n"
                    "state.dir=" +
                    dir.File("state") + "\nsocket.path=" + dir.File("snowcar.sock") +
                    "\nlog.level=warn\nkafka.bootstrap.servers=" + s.bootstrap + "\nsnow.tables=";
  for (size_t t = 0; t < tables.size(); ++t) cfg += (t > 0 ? "," : "") + tables[t];
  cfg += "\n";
  for (const std::string& t : tables) {
    cfg.append("snow.table.").append(t).append(".name=").append(t);
    cfg.append("\nsnow.table.").append(t).append(".topic=").append(spec.topic_prefix).append(t);
    cfg += '\n';
  }
  if (s.poll_ms > 0) cfg += "snow.source.poll.interval.ms=" + std::to_string(s.poll_ms) + "\n";
  if (spec.delivery != Delivery::kAtLeastOnce) {
    cfg += "exactly.once.source.support=required\nsnow.source.exactly.once.state.topic=" +
           spec.topic_prefix + "state\n";
  }
  if (spec.delivery == Delivery::kExactlyOncePoll) cfg += "transaction.boundary=poll\n";
  if (spec.delivery == Delivery::kExactlyOnceInterval) {
    cfg += "transaction.boundary=interval\ntransaction.boundary.interval.ms=" +
           std::to_string(s.interval_ms) + "\n";
  }
  for (const std::string& line : s.sidecar_properties) cfg += line + "\n";
  return cfg;
}

// Waits until `done` holds, the sidecar exits, or `timeout` passes; true only for `done`.
template <typename Done>
bool WaitWhileRunning(testsupport::ChildProcess& sidecar, Done done, std::chrono::seconds timeout,
                      std::string* why) {
  const auto deadline = Clock::now() + timeout;
  while (!done()) {
    auto exited = sidecar.Wait(std::chrono::milliseconds(0));
    if (exited.ok()) {
      // One line for the table: the refusal's lines joined, its start kept.
      std::string said = sidecar.Stderr();
      std::replace(said.begin(), said.end(), '\n', ' ');
      if (said.size() > 200) said = said.substr(0, 200) + "...";
      *why = "the sidecar exited (" + exited->ToString() + "): " + said;
      return false;
    }
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

}  // namespace

std::string DeliveryName(Delivery delivery) {
  switch (delivery) {
    case Delivery::kAtLeastOnce:
      return "at-least-once";
    case Delivery::kExactlyOncePoll:
      return "exactly-once, boundary poll";
    case Delivery::kExactlyOnceInterval:
      return "exactly-once, boundary interval";
  }
  return "?";
}

std::vector<std::string> TableNames(int tables) {
  std::vector<std::string> names;
  names.reserve(static_cast<size_t>(std::max(0, tables)));
  for (int t = 0; t < tables; ++t) names.push_back("fr" + std::to_string(t));
  return names;
}

RunResult RunFreshness(const FreshnessSettings& settings, const RunSpec& spec) {
  RunResult result;
  result.load_before = LoadAverage();
  const std::vector<std::string> tables = TableNames(settings.tables);
  std::string spec_arg;
  for (const std::string& t : tables) {
    spec_arg += (spec_arg.empty() ? "" : ",") + t + ":" + std::to_string(settings.rows);
  }
  Started emulator = StartSnowcar({"emulate", "--port", "0", "--tables", spec_arg});
  testsupport::TempDir dir("freshness-bench");
  const std::string config_path = dir.File("freshness.properties");
  std::ofstream(config_path) << SidecarConfig(settings, spec, emulator.first_line, dir);

  const auto epoch = Clock::now();
  ReaderOptions reader_options;
  reader_options.bootstrap = settings.bootstrap;
  for (const std::string& t : tables) reader_options.topics.push_back(spec.topic_prefix + t);
  reader_options.partitions = settings.partitions;
  reader_options.read_committed = spec.delivery != Delivery::kAtLeastOnce;
  reader_options.epoch = epoch;
  ArrivalReader reader(reader_options);

  testsupport::ChildOptions child_options;
  child_options.args = {"run", "--config", config_path};
  child_options.capture_stderr = true;
  auto sidecar = testsupport::ChildProcess::Spawn(spec.binary, child_options);
  if (!sidecar.ok()) {
    result.why_not = "cannot start " + spec.binary + ": " + sidecar.status().message();
    Stop(emulator);
    return result;
  }
  if (!reader.Start()) {
    result.why_not = "the reader did not start";
    Stop(emulator);
    return result;
  }
  // The rows there before the writer starts are the backlog: the writer starts once all of
  // them arrived, so its changes meet a sidecar that is polling, not catching up.
  const int64_t backlog = static_cast<int64_t>(settings.tables) * settings.rows;
  if (!WaitWhileRunning(
          **sidecar, [&] { return reader.backlog() >= backlog; }, std::chrono::seconds(180),
          &result.why_not)) {
    if (result.why_not.empty()) {
      result.why_not = "the backlog did not arrive in 180 s (" + std::to_string(reader.backlog()) +
                       " of " + std::to_string(backlog) + ")";
    }
    reader.Stop();
    Stop(emulator);
    return result;
  }

  WriterOptions writer_options;
  writer_options.base = emulator.first_line;
  writer_options.tables = tables;
  writer_options.rate = settings.rate;
  writer_options.threads = settings.writer_threads;
  writer_options.create_percent = settings.create_percent;
  writer_options.epoch = epoch;
  ChangeWriter writer(writer_options);
  if (!writer.Start()) {
    result.why_not = "the writer could not read the tables";
    reader.Stop();
    Stop(emulator);
    return result;
  }
  std::string why;
  // The run's length is what is measured, not a wait for a condition: the writer writes for
  // this long unless the sidecar dies first.
  WaitWhileRunning(
      **sidecar, [] { return false; }, std::chrono::seconds(settings.seconds), &why);
  writer.Stop();
  // The drain: every change arrived, or the deadline (two poll intervals of the default 5 s
  // and a margin) passed; what has not arrived by then counts as lost or superseded.
  const int poll_s = settings.poll_ms > 0 ? (settings.poll_ms + 999) / 1000 : 5;
  WaitWhileRunning(
      **sidecar, [&] { return reader.distinct() >= writer.answered(); },
      std::chrono::seconds(2 * poll_s + 30), &why);
  reader.Stop();
  (void)(*sidecar)->Signal(SIGTERM);
  (void)(*sidecar)->Wait(std::chrono::seconds(60));
  Stop(emulator);
  if (!why.empty()) std::fprintf(stderr, "freshness: %s\n", why.c_str());

  result.ran = true;
  result.summary = Summarize(writer.Changes(), reader.Arrivals());
  result.writer_rate = static_cast<double>(writer.answered()) / writer.seconds();
  result.writer_failures = writer.failures();
  result.load_after = LoadAverage();
  return result;
}

}  // namespace snowcar::bench
