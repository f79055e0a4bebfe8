// SPDX-License-Identifier: Apache-2.0
// `snowcar broker`: serves an embedded Kafka cluster (librdkafka's mock) until
// SIGTERM/SIGINT/SIGHUP.
//
// The first stdout line is the bootstrap address, flushed at once, so a script or test can
// start it and read where to connect. --port-file writes the same address to a file (written
// to a temporary name and renamed, so a reader never sees half of it).
#include <signal.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "cli/command_args.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "snowcar/common/log.h"
#include "snowcar/testbed/broker/control.h"
#include "snowcar/testbed/broker/embedded_broker.h"

namespace snowcar::cli {
namespace {

constexpr const char* kBrokerAbout =
    "Serves an in-memory Kafka cluster (librdkafka's mock cluster) on 127.0.0.1 until SIGTERM,\n"
    "SIGINT or SIGHUP. Prints the bootstrap address as the first line on stdout. Clients may\n"
    "create topics through the Admin API (CreateTopics), as against Apache Kafka.";

constexpr const char* kBrokerFooter =
    "--control-stdin reads one command a line, each answered on stdout with 'ok ...' or\n"
    "'error: ...': down <id|all>, up <id|all>, rtt <id|all> <ms>,\n"
    "errors <Api> <ERROR> [count], clear <Api>.\n"
    "A mock for tests and demos, not a production broker: data lives in memory only, at most\n"
    "5 MiB per partition; past that the oldest records are dropped, and a warning\n"
    "(broker.records_evicted) is logged once per partition.";

// How often `snowcar broker` reads the partitions' first offsets: cheap (one Metadata and two
// ListOffsets requests per partition), and a second is soon enough for a log line.
constexpr int kBrokerEvictionWatchMs = 1000;

}  // namespace

std::optional<int> ParseBrokerArgs(const std::vector<std::string>& argv, BrokerArgs& args,
                                   std::ostream& out, std::ostream& err) {
  // A user's path (a source group creating its topics) must work as against Apache Kafka.
  args.options.create_topics_on_request = true;
  // The mock drops a partition's oldest records past its cap without a word; say so.
  args.options.eviction_watch_ms = kBrokerEvictionWatchMs;
  std::string topics;
  int default_partitions = 1;
  bool direct = false;
  auto app = NewApp("broker", kBrokerAbout, kBrokerFooter);
  app->add_option("--brokers", args.options.brokers, "number of brokers, ids 1..N")
      ->type_name("N")
      ->check(WholeNumber(1, INT_MAX))
      ->capture_default_str();
  app->add_option("--topics", topics, "topics to create up front, e.g. orders:3,audit")
      ->type_name("name[:partitions[:replication]],...");
  app->add_option("--partitions", default_partitions,
                  "partition count of listed topics that give none")
      ->type_name("N")
      ->check(WholeNumber(1, INT_MAX))
      ->capture_default_str();
  app->add_option("--port-file", args.port_file,
                  "also write the bootstrap address to FILE (removed on exit)")
      ->type_name("FILE")
      ->check(NonEmpty());
  app->add_flag("--control-stdin", args.control_stdin,
                "read fault commands from stdin (below), answering each on stdout");
  app->add_flag("--direct", direct,
                "clients reach the mock brokers without the CreateTopics relay (benchmarks)");
  bool no_watch = false;
  app->add_flag("--no-eviction-watch", no_watch,
                "do not read each partition's first offset every second to report dropped "
                "records (its Metadata and ListOffsets requests would take errors pushed for "
                "those kinds)");
  if (auto exit = ParseCommandLine(*app, argv, out, err)) return exit;
  if (direct) args.options.create_topics_on_request = false;
  if (no_watch) args.options.eviction_watch_ms = 0;
  auto specs = broker::ParseTopicSpecs(topics, default_partitions);
  if (!specs.ok()) return UsageError(*app, specs.status().message(), err);
  args.options.topics = std::move(specs).value();
  if (Status valid = broker::Validate(args.options); !valid.ok()) {
    return UsageError(*app, valid.message(), err);
  }
  return std::nullopt;
}

namespace {

Status WritePortFile(const std::string& path, const std::string& bootstrap) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << bootstrap << '\n';
    out.flush();
    if (!out) return Status::PermissionDenied("--port-file: cannot write '" + tmp + "'");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    return Status::PermissionDenied("--port-file: cannot rename '" + tmp + "' to '" + path +
                                    "': " + ec.message());
  }
  return Status::Ok();
}

// Answers fault commands from stdin until it closes (the broker keeps serving after that). The
// thread inherits the blocked stop signals, so only the main thread's sigwait sees them.
void ServeControlStdin(broker::EmbeddedBroker* cluster) {
  std::thread([cluster] {
    for (std::string line; std::getline(std::cin, line);) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      auto answer = broker::RunControlCommand(*cluster, line);
      const std::string text =
          answer.ok() ? *answer : "error: " + std::string(answer.status().message());
      std::printf("%s\n", text.c_str());
      std::fflush(stdout);
    }
  }).detach();
}

}  // namespace

int BrokerMain(int argc, char** argv) {
  BrokerArgs args;
  const std::vector<std::string> argv_after(argv + (argc > 0 ? 1 : 0), argv + argc);
  if (auto exit = ParseBrokerArgs(argv_after, args, std::cout, std::cerr)) return *exit;

  // Block the stop signals before librdkafka starts its threads (they inherit the mask), then
  // wait for them synchronously below: no handler runs at an arbitrary point.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGHUP);  // a closed terminal: stop as for Ctrl-C
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);

  auto started = broker::EmbeddedBroker::Start(args.options);
  if (!started.ok()) {
    std::fprintf(stderr, "snowcar broker: %s\n", started.status().ToString().c_str());
    return 1;
  }
  std::unique_ptr<broker::EmbeddedBroker> cluster = std::move(started).value();

  if (!args.port_file.empty()) {
    Status s = WritePortFile(args.port_file, cluster->bootstrap_servers());
    if (!s.ok()) {
      std::fprintf(stderr, "snowcar broker: %s\n", s.ToString().c_str());
      return 1;
    }
  }
  std::printf("%s\n", cluster->bootstrap_servers().c_str());
  std::fflush(stdout);
  if (args.control_stdin) ServeControlStdin(cluster.get());

  int signo = 0;
  while (sigwait(&stop, &signo) != 0) {
  }
  SNOWCAR_LOG(kInfo, "broker.stopping", {{"signal", strsignal(signo)}});
  if (!args.port_file.empty()) {
    std::error_code ec;
    std::filesystem::remove(args.port_file, ec);
  }
  SNOWCAR_LOG(kInfo, "broker.stopped", {});
  std::fflush(nullptr);
  // The cluster holds nothing but memory and sockets, which the kernel releases at exit. A
  // full teardown (EmbeddedBroker's destructor) would add up to a second in librdkafka 2.0.2
  // (see embedded_broker.cpp), and every script or test that stops the broker would pay it.
  std::_Exit(0);
}

}  // namespace snowcar::cli
