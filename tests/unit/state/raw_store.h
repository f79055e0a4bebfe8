// SPDX-License-Identifier: Apache-2.0
// Opens a closed state store with plain RocksDB, for tests that write a layout an older
// snowcar left (migrations) or look at the bytes the store wrote (layout checks).
#pragma once

#include <gtest/gtest.h>
#include <rocksdb/db.h>

#include <string>
#include <vector>

#include "state/key_codec.h"

namespace snowcar::state::testing {

// The handles `fn(db, handles)` gets, by family.
struct RawFamilies {
  rocksdb::ColumnFamilyHandle* cursor;
  rocksdb::ColumnFamilyHandle* dedup;
  rocksdb::ColumnFamilyHandle* meta;
};

// Opens the closed store in `dir`, runs `fn(db, families)`, and closes it again.
template <typename Fn>
void WithRawStore(const std::string& dir, Fn&& fn) {
  std::vector<rocksdb::ColumnFamilyDescriptor> cfs;
  for (const char* name : {"default", codec::kCursorCf, codec::kDedupCf, codec::kCorrelationCf,
                           codec::kMetaCf, codec::kOriginCf, codec::kIdSetCf}) {
    cfs.emplace_back(name, rocksdb::ColumnFamilyOptions());
  }
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::DB* db = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(rocksdb::DBOptions(), dir, cfs, &handles, &db).ok());
  fn(*db, RawFamilies{handles[1], handles[2], handles[4]});
  for (auto* h : handles) ASSERT_TRUE(db->DestroyColumnFamilyHandle(h).ok());
  delete db;
}

}  // namespace snowcar::state::testing
