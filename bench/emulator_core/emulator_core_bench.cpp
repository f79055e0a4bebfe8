// SPDX-License-Identifier: Apache-2.0
// The emulator core on the source poller's hot path: parse a keyset query, List a page from
// the (sys_updated_on, sys_id) index, render it as Table API JSON. Rows/s = items_per_second.
//
//   build-bench/bench/emulator_core_bench --benchmark_filter=Keyset
#include <benchmark/benchmark.h>

#include <memory>

#include "snowcar/testbed/emulator/data_gen.h"
#include "snowcar/testbed/emulator/row_render.h"
#include "snowcar/testbed/emulator/table_store.h"

namespace snowcar::emulator {
namespace {

class FixedClock final : public Clock {
 public:
  int64_t NowMillis() const override { return 1772366400000; }  // 2026-03-01 12:00:00
};

const std::vector<std::string> kTwentyFields = {
    "sys_id",         "sys_updated_on", "sys_created_on",
    "sys_mod_count",  "number",         "short_description",
    "description",    "caller_id",      "opened_at",
    "priority",       "impact",         "urgency",
    "state",          "category",       "assignment_group",
    "assigned_to",    "cmdb_ci",        "active",
    "correlation_id", "sys_updated_by"};

// One shared table per size, built once.
TableStore& Store(size_t rows) {
  static FixedClock clock;
  static std::map<size_t, std::unique_ptr<TableStore>> stores;
  auto& slot = stores[rows];
  if (!slot) {
    slot = std::make_unique<TableStore>(clock);
    GenOptions o;
    o.rows = rows;
    o.span_seconds = static_cast<int64_t>(rows / 2);  // ~4 rows per distinct second
    o.rows_per_second = 4;
    if (!Populate(*slot, "incident", o).ok()) std::abort();
  }
  return *slot;
}

// Pages through the whole table by keyset (the poller's query shape), wrapping around.
void RunKeyset(benchmark::State& state, size_t rows, const std::vector<std::string>& fields,
               DisplayValue dv) {
  TableStore& store = Store(rows);
  const size_t page_size = static_cast<size_t>(state.range(0));
  RenderOptions render;
  render.display_value = dv;
  render.link_base = "http://127.0.0.1:8080/api/now/table/";
  std::string ts = "1970-01-01 00:00:00", id;
  std::string body;
  size_t rendered = 0, bytes = 0;
  for (auto _ : state) {
    ListRequest req;
    req.limit = page_size;
    req.fields = fields;
    // NOLINTBEGIN(performance-inefficient-string-concatenation): one query per page read; its cost
    // is noise beside the page
    req.query = ParseEncodedQuery("sys_updated_on>" + ts +
                                  "^ORDERBYsys_updated_on^ORDERBYsys_id^NQsys_updated_on=" + ts +
                                  "^sys_id>" + id + "^ORDERBYsys_updated_on^ORDERBYsys_id");
    // NOLINTEND(performance-inefficient-string-concatenation)
    auto page = store.List("incident", req);
    if (!page.ok() || !page->used_index) {
      state.SkipWithError("list failed or missed the index");
      break;
    }
    body.clear();
    AppendListBody(*page, render, &store, &body);
    benchmark::DoNotOptimize(body.data());
    rendered += page->rows.size();
    bytes += body.size();
    if (page->rows.size() < page_size) {
      ts = "1970-01-01 00:00:00";
      id.clear();
    } else {
      ts = std::string(page->rows.back()->sys_updated_on());
      id = std::string(page->rows.back()->sys_id());
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(rendered));
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
}

void BM_Keyset100k_20Fields(benchmark::State& state) {
  RunKeyset(state, 100000, kTwentyFields, DisplayValue::kFalse);
}
void BM_Keyset100k_AllFields(benchmark::State& state) {
  RunKeyset(state, 100000, {}, DisplayValue::kFalse);
}
void BM_Keyset100k_20Fields_DisplayAll(benchmark::State& state) {
  RunKeyset(state, 100000, kTwentyFields, DisplayValue::kAll);
}
void BM_Keyset1M_20Fields(benchmark::State& state) {
  RunKeyset(state, 1000000, kTwentyFields, DisplayValue::kFalse);
}

// Offset paging with a non-index order: the scan + sort fallback, for comparison.
void BM_ScanSortOffset100k_20Fields(benchmark::State& state) {
  TableStore& store = Store(100000);
  RenderOptions render;
  std::string body;
  size_t offset = 0, rendered = 0;
  for (auto _ : state) {
    ListRequest req;
    req.limit = static_cast<size_t>(state.range(0));
    req.offset = offset;
    req.fields = kTwentyFields;
    req.query = ParseEncodedQuery("active=true^ORDERBYnumber");
    auto page = store.List("incident", req);
    body.clear();
    AppendListBody(*page, render, &store, &body);
    benchmark::DoNotOptimize(body.data());
    rendered += page->rows.size();
    offset = page->rows.empty() ? 0 : offset + req.limit;
  }
  state.SetItemsProcessed(static_cast<int64_t>(rendered));
}

// Writer cost while the index holds 100k rows (update moves a row to the end of the index).
void BM_Update100k(benchmark::State& state) {
  TableStore& store = Store(100000);
  auto snap = *store.Snapshot("incident");
  size_t i = 0, n = 0;
  for (auto _ : state) {
    auto r = store.Update("incident", snap[i % snap.size()]->sys_id(),
                          {{"description", std::to_string(n++)}});
    benchmark::DoNotOptimize(r);
    i += 7919;
  }
  state.SetItemsProcessed(static_cast<int64_t>(n));
}

BENCHMARK(BM_Keyset100k_20Fields)->Arg(1000)->Arg(100)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Keyset100k_AllFields)->Arg(1000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Keyset100k_20Fields_DisplayAll)->Arg(1000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Keyset1M_20Fields)->Arg(1000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ScanSortOffset100k_20Fields)->Arg(1000)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Update100k)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace snowcar::emulator

BENCHMARK_MAIN();
