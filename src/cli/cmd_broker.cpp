// SPDX-License-Identifier: Apache-2.0
// `snowcar broker`: serves an embedded Kafka cluster (librdkafka's mock) until
// SIGTERM/SIGINT/SIGHUP.
//
// The first stdout line is the bootstrap address, flushed at once, so a script or test can
// start it and read where to connect. --port-file writes the same address to a file (written
// to a temporary name and renamed, so a reader never sees half of it).
#include <signal.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>
#include <thread>

#include "cli/commands.h"
#include "snowcar/broker/control.h"
#include "snowcar/broker/embedded_broker.h"
#include "snowcar/common/log.h"

namespace snowcar::cli {
namespace {

constexpr const char* kBrokerUsage =
    "usage: snowcar broker [--brokers N] [--topics name[:partitions[:replication]],...]\n"
    "                      [--partitions N] [--port-file FILE] [--control-stdin] [--direct]\n"
    "\n"
    "Serves an in-memory Kafka cluster (librdkafka's mock cluster) on 127.0.0.1 until SIGTERM,\n"
    "SIGINT or SIGHUP. Prints the bootstrap address as the first line on stdout. Clients may\n"
    "create topics through the Admin API (CreateTopics), as against Apache Kafka.\n"
    "\n"
    "  --brokers N       number of brokers, ids 1..N (default 1)\n"
    "  --topics LIST     topics to create up front, e.g. orders:3,audit\n"
    "  --partitions N    partition count of listed topics that give none (default 1)\n"
    "  --port-file FILE  also write the bootstrap address to FILE (removed on exit)\n"
    "  --control-stdin   read fault commands from stdin, one per line, each answered on\n"
    "                    stdout with 'ok ...' or 'error: ...':\n"
    "                      down <id|all>, up <id|all>, rtt <id|all> <ms>,\n"
    "                      errors <Api> <ERROR> [count], clear <Api>\n"
    "  --direct          clients talk to the mock brokers directly, without the relay that\n"
    "                    answers CreateTopics (one loopback hop less; for benchmarks)\n"
    "\n"
    "A mock for tests and demos, not a production broker: data lives in memory only.\n";

struct BrokerArgs {
  broker::BrokerOptions options;
  std::string port_file;
  bool control_stdin = false;
  bool help = false;
};

Result<int> ParsePositive(std::string_view flag, std::string_view text) {
  int value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) {
    return Status::InvalidArgument(std::string(flag) + ": '" + std::string(text) +
                                   "' is not a whole number");
  }
  if (value < 1) {
    return Status::InvalidArgument(std::string(flag) + ": must be at least 1, got " +
                                   std::string(text));
  }
  return value;
}

Result<BrokerArgs> Parse(int argc, char** argv) {
  BrokerArgs args;
  // A user's path (a source group creating its topics) must work as against Apache Kafka.
  args.options.create_topics_on_request = true;
  std::string topics;
  int default_partitions = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a == "--help" || a == "-h") {
      args.help = true;
      return args;
    }
    if (a == "--control-stdin") {
      args.control_stdin = true;
      continue;
    }
    if (a == "--direct") {
      args.options.create_topics_on_request = false;
      continue;
    }
    // Both "--flag value" and "--flag=value".
    std::string_view flag = a;
    std::string value;
    bool has_value = false;
    if (const size_t eq = a.find('='); a.starts_with("--") && eq != std::string_view::npos) {
      flag = a.substr(0, eq);
      value = std::string(a.substr(eq + 1));
      has_value = true;
    }
    if (flag != "--brokers" && flag != "--topics" && flag != "--partitions" &&
        flag != "--port-file") {
      return Status::InvalidArgument("unknown argument '" + std::string(a) + "'");
    }
    if (!has_value) {
      if (i + 1 >= argc) return Status::InvalidArgument(std::string(flag) + " needs a value");
      value = argv[++i];
    }
    if (flag == "--brokers") {
      SNOWCAR_ASSIGN_OR_RETURN(args.options.brokers, ParsePositive(flag, value));
    } else if (flag == "--partitions") {
      SNOWCAR_ASSIGN_OR_RETURN(default_partitions, ParsePositive(flag, value));
    } else if (flag == "--topics") {
      topics = value;
    } else {
      if (value.empty()) return Status::InvalidArgument("--port-file: empty path");
      args.port_file = value;
    }
  }
  SNOWCAR_ASSIGN_OR_RETURN(args.options.topics,
                           broker::ParseTopicSpecs(topics, default_partitions));
  SNOWCAR_RETURN_IF_ERROR(broker::Validate(args.options));
  return args;
}

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
  auto parsed = Parse(argc, argv);
  if (!parsed.ok()) {
    std::fprintf(stderr, "snowcar broker: %s\n\n%s", parsed.status().message().c_str(),
                 kBrokerUsage);
    return 2;
  }
  if (parsed->help) {
    std::fputs(kBrokerUsage, stdout);
    return 0;
  }

  // Block the stop signals before librdkafka starts its threads (they inherit the mask), then
  // wait for them synchronously below: no handler runs at an arbitrary point.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGHUP);  // a closed terminal: stop as for Ctrl-C
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);

  auto started = broker::EmbeddedBroker::Start(parsed->options);
  if (!started.ok()) {
    std::fprintf(stderr, "snowcar broker: %s\n", started.status().ToString().c_str());
    return 1;
  }
  std::unique_ptr<broker::EmbeddedBroker> cluster = std::move(started).value();

  if (!parsed->port_file.empty()) {
    Status s = WritePortFile(parsed->port_file, cluster->bootstrap_servers());
    if (!s.ok()) {
      std::fprintf(stderr, "snowcar broker: %s\n", s.ToString().c_str());
      return 1;
    }
  }
  std::printf("%s\n", cluster->bootstrap_servers().c_str());
  std::fflush(stdout);
  if (parsed->control_stdin) ServeControlStdin(cluster.get());

  int signo = 0;
  while (sigwait(&stop, &signo) != 0) {
  }
  SNOWCAR_LOG(kInfo, "broker.stopping", {{"signal", strsignal(signo)}});
  if (!parsed->port_file.empty()) {
    std::error_code ec;
    std::filesystem::remove(parsed->port_file, ec);
  }
  SNOWCAR_LOG(kInfo, "broker.stopped", {});
  std::fflush(nullptr);
  // The cluster holds nothing but memory and sockets, which the kernel releases at exit. A
  // full teardown (EmbeddedBroker's destructor) would add up to a second in librdkafka 2.0.2
  // (see embedded_broker.cpp), and every script or test that stops the broker would pay it.
  std::_Exit(0);
}

}  // namespace snowcar::cli
