// SPDX-License-Identifier: Apache-2.0
// How much state a table and a sink take, per entry, measured on the real store: the figures
// behind docs/production.md's sizing of the state volume and of memory.
//
//   build/bench/state_size_bench [entries]        (default 200000; make bench runs it too)
//
// Dedup: one table's window of `entries` row versions (ts advancing one second every 1 to 8
// rows, random 32-hex sys_ids, sys_mod_count below 10, as a source sweep writes them),
// committed every 500 rows like the poller does. Correlation: `entries` cache entries
// (correlation_id values of 36 characters, as a UUID, to 32-hex sys_ids). Each store is
// closed (RocksDB flushes its memtables) and reopened; the figures are RocksDB's
// total-sst-files-size of the column family divided by the entries, and the whole
// directory's size (SST, WAL, MANIFEST, logs) divided by the entries. Heap per dedup entry is
// mallinfo2's in-use bytes before and after LoadDedupWindow, the restart's warm-up. Id set:
// `entries` sys_ids of reconciliation's id set, and the time to read them back as a sweep does.
#include <malloc.h>
#include <stdlib.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "snowcar/common/log.h"
#include "snowcar/state/state_store.h"

namespace {

using namespace snowcar;
using namespace snowcar::state;

std::string RandomHex(std::mt19937_64& rng, size_t n) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s(n, '0');
  for (char& c : s) c = kHex[rng() % 16];
  return s;
}

uint64_t DirBytes(const std::string& dir) {
  uint64_t total = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) total += e.file_size();
  }
  return total;
}

uint64_t SstBytes(const StateStore& store, const std::string& family) {
  for (const auto& p : store.NumericProperties()) {
    if (p.column_family == family && p.property == "rocksdb.total-sst-files-size") return p.value;
  }
  return 0;
}

std::unique_ptr<StateStore> OpenOrDie(const std::string& dir) {
  auto store = StateStore::Open({.dir = dir});
  if (!store.ok()) {
    std::fprintf(stderr, "open %s: %s\n", dir.c_str(), store.status().message().c_str());
    std::exit(1);
  }
  return std::move(store).value();
}

const CursorIdentity kIdentity{"acme.service-now.com", "incident", "fp", "sys_updated_on"};

void Dedup(const std::string& dir, size_t entries) {
  const DedupPolicy policy{.overlap_seconds = 1 << 30, .window_records = entries};
  {
    auto store = OpenOrDie(dir);
    auto window = store->LoadDedupWindow(kIdentity, policy);
    if (!window.ok()) std::exit(1);
    std::mt19937_64 rng(42);
    int64_t ts = 1764633600;
    int left = 1;
    std::string last_id;
    for (size_t i = 0; i < entries; ++i) {
      if (--left == 0) {
        ++ts;
        left = 1 + static_cast<int>(rng() % 8);
      }
      last_id = RandomHex(rng, 32);
      (*window)->Insert(ts, last_id, static_cast<uint32_t>(rng() % 10));
      if ((i + 1) % 500 == 0 || i + 1 == entries) {
        if (!store->Commit(kIdentity, Cursor{ts, last_id, Phase::kStream}, **window).ok()) {
          std::exit(1);
        }
      }
    }
  }
  auto store = OpenOrDie(dir);
  const size_t before = mallinfo2().uordblks;
  auto window = store->LoadDedupWindow(kIdentity, policy);
  const size_t after = mallinfo2().uordblks;
  if (!window.ok() || (*window)->size() != entries) {
    std::fprintf(stderr, "window holds %zu entries, expected %zu\n",
                 window.ok() ? (*window)->size() : 0, entries);
    std::exit(1);
  }
  const auto n = static_cast<double>(entries);
  std::printf(
      "dedup        %8zu entries  %6.1f B/entry in SST  %6.1f B/entry whole dir  "
      "%6.1f B/entry heap (loaded window)\n",
      entries, static_cast<double>(SstBytes(*store, "dedup")) / n,
      static_cast<double>(DirBytes(dir)) / n, static_cast<double>(after - before) / n);
}

void Correlation(const std::string& dir, size_t entries) {
  {
    auto store = OpenOrDie(dir);
    std::mt19937_64 rng(7);
    for (size_t i = 0; i < entries; ++i) {
      std::string value = RandomHex(rng, 8) + "-" + RandomHex(rng, 4) + "-" + RandomHex(rng, 4) +
                          "-" + RandomHex(rng, 4) + "-" + RandomHex(rng, 12);
      if (!store->PutCorrelation("incident", "correlation_id", value, RandomHex(rng, 32)).ok()) {
        std::exit(1);
      }
    }
  }
  auto store = OpenOrDie(dir);
  const auto n = static_cast<double>(entries);
  std::printf("correlation  %8zu entries  %6.1f B/entry in SST  %6.1f B/entry whole dir\n", entries,
              static_cast<double>(SstBytes(*store, "correlation")) / n,
              static_cast<double>(DirBytes(dir)) / n);
}

// Reconciliation's id set: `entries` random 32-hex sys_ids written 10 000 at a time (as the
// pollers' notes are flushed), then one full read back in 10 000-id ranges (a sweep's reads).
void IdSet(const std::string& dir, size_t entries) {
  {
    auto store = OpenOrDie(dir);
    std::mt19937_64 rng(11);
    std::vector<std::string> batch;
    for (size_t i = 0; i < entries; ++i) {
      batch.push_back(RandomHex(rng, 32));
      if (batch.size() == 10000 || i + 1 == entries) {
        if (!store->UpdateIdSet(kIdentity.instance, kIdentity.table, batch, {}).ok()) std::exit(1);
        batch.clear();
      }
    }
  }
  auto store = OpenOrDie(dir);
  const auto began = std::chrono::steady_clock::now();
  size_t read = 0;
  std::string after;
  while (true) {
    auto ids = store->IdSetRange(kIdentity.instance, kIdentity.table, after, "", 10000);
    if (!ids.ok()) std::exit(1);
    if (ids->empty()) break;
    read += ids->size();
    after = ids->back();
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  if (read != entries) {
    std::fprintf(stderr, "id set holds %zu ids, expected %zu\n", read, entries);
    std::exit(1);
  }
  const auto n = static_cast<double>(entries);
  std::printf(
      "idset        %8zu entries  %6.1f B/entry in SST  %6.1f B/entry whole dir  "
      "%6.2f s to read it all in 10 000-id ranges\n",
      entries, static_cast<double>(SstBytes(*store, "idset")) / n,
      static_cast<double>(DirBytes(dir)) / n, seconds);
}

}  // namespace

int main(int argc, char** argv) {
  // make bench passes Google Benchmark's flags to every program: options are ignored.
  size_t entries = 200000;
  if (argc > 1 && argv[1][0] != '-') entries = std::strtoull(argv[1], nullptr, 10);
  if (entries == 0) {
    std::fprintf(stderr, "usage: state_size_bench [entries > 0]\n");
    return 2;
  }
  log::SetLevel(log::Level::kWarn);
  char pattern[] = "/tmp/snowcar-state-size-XXXXXX";
  if (mkdtemp(pattern) == nullptr) return 1;
  const std::string root = pattern;
  Dedup(root + "/dedup", entries);
  Correlation(root + "/correlation", entries);
  IdSet(root + "/idset", entries);
  std::filesystem::remove_all(root);
  return 0;
}
