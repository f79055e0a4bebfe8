// SPDX-License-Identifier: Apache-2.0
// How fast the emulator serves a source poller: keyset pages of 1000 rows x 20 fields from a
// 100 000-row incident table, fetched over one keep-alive HTTP connection (libcurl), the
// way the sidecar's source reads. Reports rows/s as items_per_second.
//
//   build-rel/bench/emulator_http_bench --benchmark_min_time=5
#include <benchmark/benchmark.h>
#include <curl/curl.h>

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "snowcar/common/log.h"
#include "snowcar/testbed/emulator/data_gen.h"
#include "snowcar/testbed/emulator/emulator_server.h"
#include "snowcar/testbed/emulator/row_render.h"

namespace {

using snowcar::emulator::EmulatorServer;

constexpr size_t kRows = 100000;
constexpr int kPage = 1000;
constexpr char kFields[] =
    "sys_id,sys_updated_on,sys_created_on,sys_mod_count,sys_class_name,sys_updated_by,number,"
    "short_description,description,caller_id,opened_by,opened_at,priority,impact,urgency,state,"
    "category,assignment_group,assigned_to,active";

EmulatorServer& Server() {
  static EmulatorServer* server = [] {
    snowcar::log::SetLevel(snowcar::log::Level::kWarn);
    auto* s = new EmulatorServer();
    snowcar::emulator::GenOptions gen;
    gen.rows = kRows;
    gen.seed = 11;
    if (!s->store().CreateTable("incident").ok() ||
        !snowcar::emulator::Populate(s->store(), "incident", gen).ok() || !s->Start().ok()) {
      std::fprintf(stderr, "emulator_http_bench: cannot start the emulator\n");
      std::abort();
    }
    return s;
  }();
  return *server;
}

size_t Collect(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

// The value of "key":"..." last seen in `body`.
std::string LastValue(const std::string& body, const std::string& key) {
  const std::string needle = "\"" + key + "\":\"";
  const size_t at = body.rfind(needle);
  if (at == std::string::npos) return "";
  const size_t start = at + needle.size();
  return body.substr(start, body.find('"', start) - start);
}

void BM_KeysetPages(benchmark::State& state) {
  EmulatorServer& server = Server();
  CURL* curl = curl_easy_init();
  std::string body;
  curl_easy_setopt(curl, CURLOPT_USERPWD, "admin:admin-emulator");
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, Collect);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
  std::string ts = "1970-01-01 00:00:00";
  std::string id;
  size_t rows = 0;
  size_t bytes = 0;
  for (auto _ : state) {
    std::string query;
    // NOLINTBEGIN(performance-inefficient-string-concatenation): one query per page read; its cost
    // is noise beside the page
    if (id.empty()) {
      query = "sys_updated_on>=" + ts + "^ORDERBYsys_updated_on^ORDERBYsys_id";
    } else {
      query = "sys_updated_on>" + ts +
              "^ORDERBYsys_updated_on^ORDERBYsys_id^NQsys_updated_on=" + ts + "^sys_id>" + id +
              "^ORDERBYsys_updated_on^ORDERBYsys_id";
    }
    // NOLINTEND(performance-inefficient-string-concatenation)
    char* escaped = curl_easy_escape(curl, query.c_str(), static_cast<int>(query.size()));
    const std::string url = server.base_url() + "/api/now/table/incident?sysparm_query=" + escaped +
                            "&sysparm_limit=" + std::to_string(kPage) +
                            "&sysparm_fields=" + kFields;
    curl_free(escaped);
    body.clear();
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    if (curl_easy_perform(curl) != CURLE_OK) {
      state.SkipWithError("request failed");
      break;
    }
    // Each row carries one sys_mod_count: count rows without parsing.
    size_t n = 0;
    for (size_t at = body.find("\"sys_mod_count\""); at != std::string::npos;
         at = body.find("\"sys_mod_count\"", at + 1)) {
      ++n;
    }
    rows += n;
    bytes += body.size();
    if (n < static_cast<size_t>(kPage)) {  // end of table: start over
      ts = "1970-01-01 00:00:00";
      id.clear();
    } else {
      ts = LastValue(body, "sys_updated_on");
      id = LastValue(body, "sys_id");
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(rows));
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  curl_easy_cleanup(curl);
}
// Wall-clock rate, one connection (the figure the target is about).
BENCHMARK(BM_KeysetPages)->Unit(benchmark::kMillisecond)->UseRealTime();
// Rate per CPU second of the whole process (client + server): with one request in flight
// client and server take turns, so this is what an otherwise idle machine reaches.
BENCHMARK(BM_KeysetPages)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
// Two connections, each walking the table, to use both cores.
BENCHMARK(BM_KeysetPages)->Unit(benchmark::kMillisecond)->UseRealTime()->Threads(2);

// The same pages without HTTP: List + render in-process, to show what the server itself
// adds on top of the data core.
void BM_KeysetPagesNoHttp(benchmark::State& state) {
  EmulatorServer& server = Server();
  std::vector<std::string> fields;
  for (std::string_view rest = kFields; !rest.empty();) {
    const size_t comma = rest.find(',');
    fields.emplace_back(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  std::string ts = "1970-01-01 00:00:00";
  std::string id;
  size_t rows = 0;
  snowcar::emulator::RenderOptions render;
  for (auto _ : state) {
    snowcar::emulator::ListRequest req;
    req.limit = kPage;
    req.fields = fields;
    // NOLINTBEGIN(performance-inefficient-string-concatenation): one query per page read; its cost
    // is noise beside the page
    req.query = snowcar::emulator::ParseEncodedQuery(
        id.empty() ? "sys_updated_on>=" + ts + "^ORDERBYsys_updated_on^ORDERBYsys_id"
                   : "sys_updated_on>" + ts +
                         "^ORDERBYsys_updated_on^ORDERBYsys_id^NQsys_updated_on=" + ts +
                         "^sys_id>" + id + "^ORDERBYsys_updated_on^ORDERBYsys_id");
    // NOLINTEND(performance-inefficient-string-concatenation)
    auto page = server.store().List("incident", req);
    if (!page.ok()) {
      state.SkipWithError("list failed");
      break;
    }
    std::string body = snowcar::emulator::RenderListBody(*page, render, &server.store());
    benchmark::DoNotOptimize(body.data());
    rows += page->rows.size();
    if (page->rows.size() < static_cast<size_t>(kPage)) {
      ts = "1970-01-01 00:00:00";
      id.clear();
    } else {
      ts = std::string(page->rows.back()->sys_updated_on());
      id = std::string(page->rows.back()->sys_id());
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(rows));
}
BENCHMARK(BM_KeysetPagesNoHttp)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
