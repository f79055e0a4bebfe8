// SPDX-License-Identifier: Apache-2.0
#include "parallel_backfill.h"

#include <boost/json.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <set>
#include <thread>
#include <utility>

#include "e2e_processes.h"
#include "support/child_process.h"
#include "support/temp_dir.h"

namespace snowcar::bench {
namespace {

using Clock = std::chrono::steady_clock;

int64_t Emitted(const std::string& socket) {
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(SocketGet(socket, "/v1/source/tables/incident"), ec);
  if (ec || !v.is_object()) return 0;
  const auto* n = v.as_object().if_contains("rows_emitted");
  return (n != nullptr && n->is_int64()) ? n->as_int64() : 0;
}

struct Requests {
  int64_t pages = 0;
  int64_t counts = 0;
  uint64_t last_seq = 0;
  std::vector<std::pair<int64_t, std::string>> list;  // (time_ms, target), in order
};

// The emulator's journal since `since`: the table's page and count requests.
Requests Journal(const std::string& base, uint64_t since) {
  Requests r;
  r.last_seq = since;
  const std::string body =
      EmulatorHttp("GET", base + "/_emulator/journal?since=" + std::to_string(since));
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(body, ec);
  if (ec || !v.is_object()) return r;
  for (const auto& e : v.as_object().at("entries").as_array()) {
    const auto& o = e.as_object();
    r.last_seq = std::max<uint64_t>(r.last_seq, o.at("seq").to_number<uint64_t>());
    const std::string target(o.at("target").as_string());
    if (target.rfind("/api/now/table/incident", 0) != 0) continue;
    r.list.emplace_back(o.at("time_ms").to_number<int64_t>(), target);
    // A count request asks for one row; a page may ask for its own count too (phase stream,
    // a drained second), and is still a page.
    if (target.find("sysparm_limit=1&") != std::string::npos) {
      ++r.counts;
    } else {
      ++r.pages;
    }
  }
  return r;
}

struct Verified {
  size_t records = 0;
  size_t distinct = 0;
};

// Every record's key on the topic, written to `path` by kcat while the sidecar produces: the
// embedded broker keeps only the last 5 MiB of each partition, so reading after the run would
// see a tail. Waits until the file holds `rows` keys (or nothing new came for 60 s), plus 3 s
// for any duplicate to show, then stops the consumer.
Verified CollectKeys(testsupport::ChildProcess& consumer, const std::string& path, size_t rows) {
  auto lines = [&] {
    std::ifstream in(path);
    std::vector<std::string> out;
    std::string line;
    while (std::getline(in, line)) {
      if (!line.empty()) out.push_back(line);
    }
    return out;
  };
  size_t seen = 0;
  auto quiet_since = Clock::now();
  while (SecondsSince(quiet_since) < 60) {
    const size_t now = lines().size();
    if (now != seen) quiet_since = Clock::now();
    seen = now;
    if (seen >= rows) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  std::this_thread::sleep_for(std::chrono::seconds(3));
  (void)consumer.Signal(SIGTERM);
  (void)consumer.Wait(std::chrono::seconds(10));
  const std::vector<std::string> keys = lines();
  Verified out;
  out.records = keys.size();
  out.distinct = std::set<std::string>(keys.begin(), keys.end()).size();
  return out;
}

std::unique_ptr<testsupport::ChildProcess> StartConsumer(const std::string& bootstrap,
                                                         const std::string& topic,
                                                         const std::string& path) {
  testsupport::ChildOptions opts;
  opts.args = {"-c", "exec kcat -b " + bootstrap + " -C -t " + topic +
                         " -o beginning -q -u -f '%k\\n' > " + path};
  opts.capture_stderr = true;
  auto c = testsupport::ChildProcess::Spawn("sh", opts);
  if (!c.ok()) {
    std::fprintf(stderr, "kcat: %s\n", c.status().message().c_str());
    std::exit(1);
  }
  return std::move(c).value();
}

}  // namespace

void RunParallelBackfill(const std::string& bootstrap, const ParallelBackfillOptions& o) {
  auto emulator =
      StartSnowcar({"emulate", "--port", "0", "--tables", "incident:" + std::to_string(o.rows)});
  const std::string base = emulator.first_line;
  EmulatorHttp("POST", base + "/_emulator/latency",
               "{\"fixed_ms\":" + std::to_string(o.latency_ms) +
                   ",\"path_prefix\":\"/api/now/table/incident\"}");
  std::printf(
      "\nparallel backfill: %d rows of `incident`, page %d, %d ms per request (pages and counts)\n"
      "\n| parallelism | wall s | rows/s | x single | page requests | count requests | peak MiB "
      "| records in Kafka | distinct keys |\n"
      "|---|---|---|---|---|---|---|---|---|\n",
      o.rows, o.page, o.latency_ms);
  double single_rate = 0;
  uint64_t seq = Journal(base, 0).last_seq;
  for (int p : o.parallelism) {
    const std::string topic = "bench.parallel." + std::to_string(p);
    testsupport::TempDir dir("parallel-backfill");
    const std::string socket = dir.File("snowcar.sock");
    const std::string config_path = dir.File("bench.properties");
    {
      std::ofstream cfg(config_path);
      cfg << SourceSidecarProperties(base, bootstrap, topic, dir.path().string())
          << "snow.source.batch.size=" << o.page << "\nsnow.source.backfill.parallelism=" << p
          << "\nsnow.http.max.concurrent.requests=" << std::max(8, p) << "\n";
    }
    auto consumer = StartConsumer(bootstrap, topic, dir.File("keys.txt"));
    const auto start = Clock::now();
    auto child = StartSidecar(config_path);
    if (child == nullptr) return;
    int64_t emitted = 0;
    while ((emitted = Emitted(socket)) < o.rows) {
      if (SecondsSince(start) > 1800) {
        std::fprintf(stderr, "parallelism %d: %lld of %d rows in 1800 s\n", p,
                     static_cast<long long>(emitted), o.rows);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    const double wall = SecondsSince(start);
    const double rss = PeakRssMiB(child->pid());
    (void)child->Signal(SIGTERM);
    (void)child->Wait(std::chrono::seconds(60));
    const Requests requests = Journal(base, seq);
    seq = requests.last_seq;
    if (!o.journal.empty() && !requests.list.empty()) {
      std::ofstream out(o.journal + "." + std::to_string(p) + ".tsv");
      for (const auto& [ms, target] : requests.list) {
        out << (ms - requests.list.front().first) << '\t' << target << '\n';
      }
    }
    const Verified kafka =
        CollectKeys(*consumer, dir.File("keys.txt"), static_cast<size_t>(o.rows));
    const double rate = static_cast<double>(emitted) / wall;
    if (p == 1 || single_rate == 0) single_rate = rate;
    std::printf("| %d | %.1f | %.0f | %.2f | %lld | %lld | %.1f | %zu | %zu |\n", p, wall, rate,
                rate / single_rate, static_cast<long long>(requests.pages),
                static_cast<long long>(requests.counts), rss, kafka.records, kafka.distinct);
    std::fflush(stdout);
  }
  (void)emulator.process->Signal(SIGTERM);
  (void)emulator.process->Wait(std::chrono::seconds(60));
}

}  // namespace snowcar::bench
