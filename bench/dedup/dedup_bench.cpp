// SPDX-License-Identifier: Apache-2.0
// Dedup index throughput: snowcar's DedupWindow against the seed's design, on one key stream.
//
// The stream looks like a source sweep: one table, `YYYY-MM-DD HH:MM:SS` advancing by one
// second every 1-8 rows, a random 32-hex sys_id per row, a small sys_mod_count. Each side
// builds its key the way its design does from a row:
//   Seed*      the seed's cache: the string "ts|sys_id|mod" in a std::unordered_set, with a
//              FIFO of set iterators for eviction (the C++ form of a LinkedHashMap with
//              removeEldestEntry), capped at the window.
//   Window*    snowcar's DedupWindow (from StateStore::LoadDedupWindow): Insert(ts, sys_id,
//              mod) on the parsed row, which the poller has anyway for its cursor.
//   Durable*   the same window with StateStore::Commit every 500 rows, so the RocksDB write
//              of the entries (and of their pruning) is part of the cost.
// Check+insert runs on keys not seen before with a full window (every insert evicts);
// Lookup* runs on keys that are all present or all absent. Warmup is LoadDedupWindow of a
// full 50 000-entry window from disk, the restart cost.
//
// CPU times are process CPU (MeasureProcessCPUTime), so RocksDB's background flushes and
// compactions are charged to the benchmark that caused them; rates (items_per_second) are
// per CPU second. Wall time is shown too: on a loaded machine it is the larger one.
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <cstdio>
#include <deque>
#include <filesystem>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include "snowcar/common/log.h"
#include "snowcar/common/time.h"
#include "snowcar/state/state_store.h"

namespace {

using namespace snowcar;
using namespace snowcar::state;

constexpr size_t kWindow = 50000;
constexpr size_t kRows = 1 << 20;
constexpr int64_t kWrapSeconds = 100000000;  // keeps ts increasing when the stream wraps

struct Row {
  int64_t ts;
  uint32_t mod;
  char ts_text[20];  // "YYYY-MM-DD HH:MM:SS"
  char sys_id[33];
};

const std::vector<Row>& Rows() {
  static const std::vector<Row> rows = [] {
    std::vector<Row> out(kRows);
    std::mt19937_64 rng(42);
    int64_t ts = 1764633600;
    int left_in_second = 1;
    for (Row& r : out) {
      if (--left_in_second == 0) {
        ++ts;
        left_in_second = 1 + static_cast<int>(rng() % 8);
      }
      r.ts = ts;
      r.mod = static_cast<uint32_t>(rng() % 4);
      const std::string text = FormatSnowTimestamp(ts);
      std::snprintf(r.ts_text, sizeof(r.ts_text), "%s", text.c_str());
      std::snprintf(r.sys_id, sizeof(r.sys_id), "%016llx%016llx",
                    static_cast<unsigned long long>(rng()), static_cast<unsigned long long>(rng()));
    }
    return out;
  }();
  return rows;
}

// ---- the seed's cache -----------------------------------------------------------------------
class SeedFifoCache {
 public:
  explicit SeedFifoCache(size_t cap) : cap_(cap) { set_.reserve(cap * 2); }
  static std::string Key(const Row& r) {
    std::string k;
    k.reserve(64);
    k.append(r.ts_text).append("|").append(r.sys_id).append("|").append(std::to_string(r.mod));
    return k;
  }
  bool Contains(const Row& r) const { return set_.count(Key(r)) != 0; }
  // True when new (the row is emitted), false when a duplicate.
  bool CheckInsert(const Row& r) {
    auto [it, inserted] = set_.insert(Key(r));
    if (!inserted) return false;
    fifo_.push_back(it);
    if (fifo_.size() > cap_) {
      set_.erase(fifo_.front());
      fifo_.pop_front();
    }
    return true;
  }

 private:
  size_t cap_;
  std::unordered_set<std::string> set_;
  std::deque<std::unordered_set<std::string>::iterator> fifo_;
};

// ---- snowcar's window -------------------------------------------------------------------------
const CursorIdentity kIdentity{"bench.service-now.com", "incident", "fp", "sys_updated_on"};

class TempStore {
 public:
  TempStore() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "dedup-bench-XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) std::abort();
    dir_ = tmpl;
    Reopen();
  }
  ~TempStore() {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }
  void Reopen() {
    store_.reset();
    auto s = StateStore::Open(StateStoreOptions{dir_});
    if (!s.ok()) {
      std::fprintf(stderr, "%s\n", s.status().ToString().c_str());
      std::abort();
    }
    store_ = std::move(s).value();
  }
  StateStore& store() { return *store_; }
  std::unique_ptr<DedupWindow> Window(const DedupPolicy& policy) {
    auto w = store_->LoadDedupWindow(kIdentity, policy);
    if (!w.ok()) std::abort();
    return std::move(w).value();
  }

 private:
  std::string dir_;
  std::unique_ptr<StateStore> store_;
};

// Fills `w` with rows [0, kWindow) and commits them when asked to.
void Fill(DedupWindow& w, StateStore* store) {
  const auto& rows = Rows();
  for (size_t i = 0; i < kWindow; ++i) w.Insert(rows[i].ts, rows[i].sys_id, rows[i].mod);
  if (store &&
      !store->Commit(kIdentity, Cursor{rows[kWindow - 1].ts, "", Phase::kBackfill}, w).ok()) {
    std::abort();
  }
}

void BM_SeedFifoCache_CheckInsert(benchmark::State& state) {
  const auto& rows = Rows();
  SeedFifoCache cache(kWindow);
  for (size_t i = 0; i < kWindow; ++i) cache.CheckInsert(rows[i]);
  size_t i = kWindow;
  for (auto _ : state) {
    benchmark::DoNotOptimize(cache.CheckInsert(rows[i]));
    if (++i == kRows) i = 0;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}

// One insert per iteration into a full window, through `insert(window, ts, row)`; after the
// last row the rows come round again with their timestamps moved on, so each insert is new.
template <typename Insert>
void WindowInserts(benchmark::State& state, Insert insert) {
  const auto& rows = Rows();
  TempStore ts;
  auto w = ts.Window(DedupPolicy{kWrapSeconds * 100, kWindow});
  Fill(*w, nullptr);
  size_t i = kWindow;
  int64_t offset = 0;
  for (auto _ : state) {
    const Row& r = rows[i];
    benchmark::DoNotOptimize(insert(*w, r.ts + offset, r));
    if (++i == kRows) {
      i = 0;
      offset += kWrapSeconds;
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}

void BM_Window_CheckInsert(benchmark::State& state) {
  WindowInserts(state,
                [](auto& w, int64_t ts, const Row& r) { return w.Insert(ts, r.sys_id, r.mod); });
}

// The same through the DedupKey overload, which copies the sys_id into a std::string per row.
void BM_Window_CheckInsert_DedupKeyApi(benchmark::State& state) {
  WindowInserts(state, [](auto& w, int64_t ts, const Row& r) {
    return w.Insert(DedupKey{ts, r.sys_id, r.mod});
  });
}

// Commit every 500 rows. CapBound: an overlap so large the window stays full, so every commit
// also deletes the 500 entries the cap dropped (the costliest case). Overlap2: the default
// overlap, where pruning by time keeps the window small.
void DurableCheckInsertCommit500(benchmark::State& state, int64_t overlap) {
  const auto& rows = Rows();
  TempStore ts;
  auto w = ts.Window(DedupPolicy{overlap, kWindow});
  Fill(*w, &ts.store());
  size_t i = kWindow;
  int64_t offset = 0;
  size_t since_commit = 0;
  for (auto _ : state) {
    const Row& r = rows[i];
    benchmark::DoNotOptimize(w->Insert(r.ts + offset, r.sys_id, r.mod));
    if (++since_commit == 500) {
      since_commit = 0;
      Status s = ts.store().Commit(kIdentity, Cursor{r.ts + offset, r.sys_id, Phase::kStream}, *w);
      if (!s.ok()) state.SkipWithError(s.ToString().c_str());
    }
    if (++i == kRows) {
      i = 0;
      offset += kWrapSeconds;
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
  state.counters["window"] = static_cast<double>(w->size());
}

template <bool kPresent>
void BM_SeedFifoCache_Lookup(benchmark::State& state) {
  const auto& rows = Rows();
  SeedFifoCache cache(kWindow);
  for (size_t i = 0; i < kWindow; ++i) cache.CheckInsert(rows[i]);
  const size_t base = kPresent ? 0 : kWindow;
  size_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(cache.Contains(rows[base + i]));
    if (++i == kWindow) i = 0;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}

template <bool kPresent>
void BM_Window_Lookup(benchmark::State& state) {
  const auto& rows = Rows();
  TempStore ts;
  auto w = ts.Window(DedupPolicy{kWrapSeconds, kWindow});
  Fill(*w, nullptr);
  const size_t base = kPresent ? 0 : kWindow;
  size_t i = 0;
  for (auto _ : state) {
    const Row& r = rows[base + i];
    benchmark::DoNotOptimize(w->Contains(r.ts, r.sys_id, r.mod));
    if (++i == kWindow) i = 0;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}

// Restart warm-up: a full window committed, the store closed (flushed) and reopened, then
// LoadDedupWindow timed.
void BM_Durable_Warmup50k(benchmark::State& state) {
  TempStore ts;
  {
    auto w = ts.Window(DedupPolicy{kWrapSeconds, kWindow});
    Fill(*w, &ts.store());
  }
  ts.Reopen();
  size_t loaded = 0;
  for (auto _ : state) {
    auto w = ts.Window(DedupPolicy{kWrapSeconds, kWindow});
    loaded = w->size();
    benchmark::DoNotOptimize(w);
  }
  if (loaded != kWindow) state.SkipWithError("warm-up did not load the full window");
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * loaded));
  state.counters["entries"] = static_cast<double>(loaded);
}

BENCHMARK(BM_SeedFifoCache_CheckInsert)->MeasureProcessCPUTime();
BENCHMARK(BM_Window_CheckInsert)->MeasureProcessCPUTime();
BENCHMARK(BM_Window_CheckInsert_DedupKeyApi)->MeasureProcessCPUTime();
void BM_Durable_CheckInsertCommit500_CapBound(benchmark::State& state) {
  DurableCheckInsertCommit500(state, kWrapSeconds * 100);
}
void BM_Durable_CheckInsertCommit500_Overlap2(benchmark::State& state) {
  DurableCheckInsertCommit500(state, 2);
}

BENCHMARK(BM_Durable_CheckInsertCommit500_CapBound)->MeasureProcessCPUTime();
BENCHMARK(BM_Durable_CheckInsertCommit500_Overlap2)->MeasureProcessCPUTime();
BENCHMARK(BM_SeedFifoCache_Lookup<true>)
    ->MeasureProcessCPUTime()
    ->Name("BM_SeedFifoCache_LookupPresent");
BENCHMARK(BM_Window_Lookup<true>)->MeasureProcessCPUTime()->Name("BM_Window_LookupPresent");
BENCHMARK(BM_SeedFifoCache_Lookup<false>)
    ->MeasureProcessCPUTime()
    ->Name("BM_SeedFifoCache_LookupAbsent");
BENCHMARK(BM_Window_Lookup<false>)->MeasureProcessCPUTime()->Name("BM_Window_LookupAbsent");
BENCHMARK(BM_Durable_Warmup50k)->MeasureProcessCPUTime()->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  snowcar::log::SetLevel(snowcar::log::Level::kWarn);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  Rows();  // generate the stream before any timing
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
