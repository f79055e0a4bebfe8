// SPDX-License-Identifier: Apache-2.0
// The shared state-store fixture (library snowcar::state_fixture): a real RocksDB state store
// in a temp dir, the small builders its tests need, and a store that forwards to a real one.
//
//   class CursorStoreTest : public testsupport::StateStoreTest {};
//   TEST_F(CursorStoreTest, X) {
//     TempDir tmp;                          // deleted with everything in it at scope exit
//     auto store = OpenOrDie(tmp.path());   // null (and the test failed) if it cannot open
//     store->LoadCursor(Identity("incident"));
//   }
//
// Tests of other modules that only want a store use OpenStateStore; a test that makes one
// call fail derives from ForwardingStateStore and overrides that call.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "snowcar/state/state_store.h"
#include "support/temp_dir.h"

namespace snowcar::testsupport {

// Opens (or creates) the store in `dir`. When it cannot, the test fails with the reason and
// the result is null.
std::unique_ptr<state::StateStore> OpenStateStore(const std::string& dir);

// The identity of table alias `table`'s cursor, on instance acme.service-now.com unless told.
state::CursorIdentity StateIdentity(const std::string& table,
                                    const std::string& fingerprint = "fp1",
                                    const std::string& instance = "acme.service-now.com",
                                    const std::string& ts_field = "sys_updated_on");

// A ServiceNow-shaped sys_id (32 lowercase hex) derived from `n`; distinct n, distinct ids.
std::string HexId(uint64_t n);

// A temp dir whose path is a string, as StateStoreOptions and the store's messages name it.
class StateDir {
 public:
  const std::string& path() const { return path_; }
  // path()/name.
  std::string Sub(const std::string& name) const { return dir_.File(name); }

 private:
  TempDir dir_{"snowcar-state"};
  std::string path_ = dir_.path().string();
};

// The base of the state store's tests: TempDir, OpenOrDie, Identity and HexId by their short
// names inside TEST_F.
class StateStoreTest : public ::testing::Test {
 protected:
  using TempDir = StateDir;
  static std::unique_ptr<state::StateStore> OpenOrDie(const std::string& dir) {
    return OpenStateStore(dir);
  }
  static state::CursorIdentity Identity(const std::string& table,
                                        const std::string& fingerprint = "fp1",
                                        const std::string& instance = "acme.service-now.com",
                                        const std::string& ts_field = "sys_updated_on") {
    return StateIdentity(table, fingerprint, instance, ts_field);
  }
  static std::string HexId(uint64_t n) { return testsupport::HexId(n); }
};

// Forwards every call a store must answer (StateStore's pure virtual members) to `real`, which
// outlives it; the optional calls keep StateStore's defaults, as a store without them would
// answer. A test overrides the call it wants to fail or count.
class ForwardingStateStore : public state::StateStore {
 public:
  explicit ForwardingStateStore(state::StateStore* real) : real_(real) {}

  const std::string& dir() const override { return real_->dir(); }
  Result<std::optional<state::Cursor>> LoadCursor(const state::CursorIdentity& id) override {
    return real_->LoadCursor(id);
  }
  Result<std::vector<state::StoredCursor>> ListCursors() override { return real_->ListCursors(); }
  Result<std::vector<state::StoredCursor>> CursorsForTable(std::string_view table) override {
    return real_->CursorsForTable(table);
  }
  Status ResetTable(std::string_view table) override { return real_->ResetTable(table); }
  Result<std::unique_ptr<state::DedupWindow>> LoadDedupWindow(
      const state::CursorIdentity& id, const state::DedupPolicy& policy) override {
    return real_->LoadDedupWindow(id, policy);
  }
  Result<std::vector<state::DedupKey>> DedupEntriesFor(std::string_view table,
                                                       std::string_view sys_id) override {
    return real_->DedupEntriesFor(table, sys_id);
  }
  Result<uint64_t> DedupCount(std::string_view table) override { return real_->DedupCount(table); }
  Status Commit(const state::CursorIdentity& id, const state::Cursor& cursor,
                state::DedupWindow& window) override {
    return real_->Commit(id, cursor, window);
  }
  Result<std::optional<std::string>> GetCorrelation(std::string_view table, std::string_view field,
                                                    std::string_view value) override {
    return real_->GetCorrelation(table, field, value);
  }
  Status PutCorrelation(std::string_view table, std::string_view field, std::string_view value,
                        std::string_view sys_id) override {
    return real_->PutCorrelation(table, field, value, sys_id);
  }
  Status EraseCorrelation(std::string_view table, std::string_view field,
                          std::string_view value) override {
    return real_->EraseCorrelation(table, field, value);
  }
  uint32_t schema_version() const override { return real_->schema_version(); }

 protected:
  state::StateStore* real() const { return real_; }

 private:
  state::StateStore* real_;
};

}  // namespace snowcar::testsupport
