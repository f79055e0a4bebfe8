// SPDX-License-Identifier: Apache-2.0
// CPU per row of each source record format over the same pages: the emulator renders pages
// of `incident` rows (as the Table API answers them), each page is parsed once per pass as
// the client does, and every row becomes a record in the format under test. Two figures per
// format: the record building alone, and parse + build (the per-row work the source does
// before handing a record to Kafka). The ratios against json are what docs/performance.md
// records; absolute figures depend on the machine.
//
//   build/bench/record_formats_bench [--rows 50000] [--page 5000] [--passes 5]
#include <time.h>

#include <boost/json.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "snowcar/common/time.h"
#include "snowcar/source/rows/record_builder.h"
#include "snowcar/source/rows/row.h"
#include "snowcar/source/typed/column_types.h"
#include "snowcar/source/typed/typed_record.h"
#include "snowcar/testbed/emulator/data_gen.h"
#include "snowcar/testbed/emulator/row_render.h"
#include "snowcar/testbed/emulator/table_store.h"

namespace {

using namespace snowcar;

double CpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// The rendered pages of `rows` incident rows, `page` rows each, as the Table API sends them.
std::vector<std::string> Pages(emulator::TableStore& store, size_t page) {
  std::vector<std::string> out;
  emulator::ListRequest request;
  request.limit = page;
  request.count_total = false;
  emulator::RenderOptions render;
  render.exclude_reference_link = true;
  for (size_t offset = 0;; offset += page) {
    request.offset = offset;
    auto listed = store.List("incident", request);
    if (!listed.ok() || listed->rows.empty()) break;
    out.push_back(emulator::RenderListBody(*listed, render, &store));
  }
  return out;
}

// The dictionary the emulator serves for incident, as the source reads it.
source::TableTypes IncidentTypes(const emulator::TableStore& store) {
  boost::json::array rows;
  for (const emulator::FieldDef& f : store.Schema("incident")->fields()) {
    rows.push_back(boost::json::object{{"element", f.name},
                                       {"internal_type", emulator::InternalTypeOf(f)},
                                       {"reference", f.reference_table}});
  }
  return *source::TableTypesFromDictionary("incident", rows, 0);
}

struct Figures {
  double build_s = 0;
  double total_s = 0;
  size_t rows = 0;
  size_t bytes = 0;
};

}  // namespace

int main(int argc, char** argv) {
  size_t rows = 50000;
  size_t page = 5000;
  int passes = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--rows") == 0) rows = std::strtoull(argv[i + 1], nullptr, 10);
    if (std::strcmp(argv[i], "--page") == 0) page = std::strtoull(argv[i + 1], nullptr, 10);
    if (std::strcmp(argv[i], "--passes") == 0) passes = std::atoi(argv[i + 1]);
  }
  emulator::TableStore store(SystemClock::Instance());
  emulator::GenOptions gen;
  gen.rows = rows;
  if (!emulator::Populate(store, "incident", gen).ok()) return 1;
  const std::vector<std::string> pages = Pages(store, page);
  const source::TableTypes types = IncidentTypes(store);

  source::TableSettings table;
  table.alias = "inc";
  table.name = "incident";
  table.topic = "bench";
  source::SourceSettings settings;
  settings.instance = "bench.service-now.com";

  const char* names[] = {"json", "json_typed", "avro", "protobuf"};
  const source::RecordFormat formats[] = {
      source::RecordFormat::kJson, source::RecordFormat::kJsonTyped, source::RecordFormat::kAvro,
      source::RecordFormat::kProtobuf};
  constexpr int kFormats = 4;
  Figures figures[kFormats];
  for (int pass = 0; pass < passes; ++pass) {
    for (int f = 0; f < kFormats; ++f) {
      std::unique_ptr<source::TypedEncoder> encoder;
      if (formats[f] != source::RecordFormat::kJson) {
        encoder = std::move(source::TypedEncoder::Make(types, table, formats[f])).value();
      }
      Figures& fig = figures[f];
      for (const std::string& text : pages) {
        const double t0 = CpuSeconds();
        boost::json::value parsed = boost::json::parse(text);
        boost::json::array& result = parsed.as_object()["result"].as_array();
        const double t1 = CpuSeconds();
        for (const boost::json::value& v : result) {
          const boost::json::object& row = v.get_object();
          auto key = source::ReadRowKey(row, table);
          if (!key.ok()) return 2;
          if (!encoder) {
            kafka::OutRecord r = source::BuildRecord(row, *key, table, settings, 0);
            fig.bytes += r.value->size();
          } else {
            std::string value;
            if (!encoder->Encode(row, key->sys_id, value).ok()) return 3;
            fig.bytes += value.size();
          }
          ++fig.rows;
        }
        const double t2 = CpuSeconds();
        fig.build_s += t2 - t1;
        fig.total_s += t2 - t0;
      }
    }
  }
  std::printf("rows %zu, page %zu, passes %d\n", rows, page, passes);
  std::printf("%-11s %14s %12s %18s %12s %12s\n", "format", "build ns/row", "vs json",
              "parse+build ns/row", "vs json", "bytes/row");
  const double json_build = figures[0].build_s / static_cast<double>(figures[0].rows);
  const double json_total = figures[0].total_s / static_cast<double>(figures[0].rows);
  for (int f = 0; f < kFormats; ++f) {
    const double n = static_cast<double>(figures[f].rows);
    const double build = figures[f].build_s / n;
    const double total = figures[f].total_s / n;
    std::printf("%-11s %14.0f %12.2f %18.0f %12.2f %12.0f\n", names[f], build * 1e9,
                build / json_build, total * 1e9, total / json_total,
                static_cast<double>(figures[f].bytes) / n);
  }
  return 0;
}
