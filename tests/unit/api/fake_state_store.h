// SPDX-License-Identifier: Apache-2.0
// An in-memory StateStore for the api tests: just the calls the socket routes make, plus a
// switch that makes every call fail (to test the error path).
#pragma once

#include <map>
#include <mutex>
#include <tuple>

#include "snowcar/state/state_store.h"

namespace snowcar::api::testing {

class FakeStateStore final : public state::StateStore {
 public:
  void AddCursor(state::StoredCursor c) {
    std::lock_guard lock(mu_);
    cursors_.push_back(std::move(c));
  }
  void AddDedup(const std::string& table, state::DedupKey key) {
    std::lock_guard lock(mu_);
    dedup_[table].push_back(std::move(key));
  }
  void FailWith(Status s) {
    std::lock_guard lock(mu_);
    fail_ = std::move(s);
  }
  int reset_calls() const {
    std::lock_guard lock(mu_);
    return reset_calls_;
  }

  const std::string& dir() const override { return dir_; }

  Result<std::optional<state::Cursor>> LoadCursor(const state::CursorIdentity& id) override {
    std::lock_guard lock(mu_);
    if (!fail_.ok()) return fail_;
    for (const auto& c : cursors_) {
      if (c.identity == id) return std::optional<state::Cursor>(c.cursor);
    }
    return std::optional<state::Cursor>();
  }
  Result<std::vector<state::StoredCursor>> ListCursors() override {
    std::lock_guard lock(mu_);
    if (!fail_.ok()) return fail_;
    return cursors_;
  }
  Result<std::vector<state::StoredCursor>> CursorsForTable(std::string_view table) override {
    std::lock_guard lock(mu_);
    if (!fail_.ok()) return fail_;
    std::vector<state::StoredCursor> out;
    for (const auto& c : cursors_) {
      if (c.identity.table == table) out.push_back(c);
    }
    return out;
  }
  Status ResetTable(std::string_view table) override {
    std::lock_guard lock(mu_);
    if (!fail_.ok()) return fail_;
    ++reset_calls_;
    std::erase_if(cursors_, [&](const auto& c) { return c.identity.table == table; });
    dedup_.erase(std::string(table));
    return Status::Ok();
  }
  Result<std::unique_ptr<state::DedupWindow>> LoadDedupWindow(const state::CursorIdentity&,
                                                              const state::DedupPolicy&) override {
    return Status::Internal("not used by the api tests");
  }
  Result<std::vector<state::DedupKey>> DedupEntriesFor(std::string_view table,
                                                       std::string_view sys_id) override {
    std::lock_guard lock(mu_);
    if (!fail_.ok()) return fail_;
    std::vector<state::DedupKey> out;
    auto it = dedup_.find(std::string(table));
    if (it == dedup_.end()) return out;
    for (const auto& k : it->second) {
      if (k.sys_id == sys_id) out.push_back(k);
    }
    return out;
  }
  Result<uint64_t> DedupCount(std::string_view table) override {
    std::lock_guard lock(mu_);
    if (!fail_.ok()) return fail_;
    auto it = dedup_.find(std::string(table));
    return static_cast<uint64_t>(it == dedup_.end() ? 0 : it->second.size());
  }
  Status Commit(const state::CursorIdentity&, const state::Cursor&, state::DedupWindow&) override {
    return Status::Internal("not used by the api tests");
  }
  Result<std::optional<std::string>> GetCorrelation(std::string_view table, std::string_view field,
                                                    std::string_view value) override {
    std::lock_guard lock(mu_);
    if (!fail_.ok()) return fail_;
    auto it = correlation_.find({std::string(table), std::string(field), std::string(value)});
    if (it == correlation_.end()) return std::optional<std::string>();
    return std::optional<std::string>(it->second);
  }
  Status PutCorrelation(std::string_view table, std::string_view field, std::string_view value,
                        std::string_view sys_id) override {
    std::lock_guard lock(mu_);
    correlation_[{std::string(table), std::string(field), std::string(value)}] =
        std::string(sys_id);
    return Status::Ok();
  }
  Status EraseCorrelation(std::string_view table, std::string_view field,
                          std::string_view value) override {
    std::lock_guard lock(mu_);
    correlation_.erase({std::string(table), std::string(field), std::string(value)});
    return Status::Ok();
  }
  uint32_t schema_version() const override { return state::kSchemaVersion; }

 private:
  mutable std::mutex mu_;
  std::string dir_ = "/fake";
  Status fail_;
  int reset_calls_ = 0;
  std::vector<state::StoredCursor> cursors_;
  std::map<std::string, std::vector<state::DedupKey>> dedup_;
  std::map<std::tuple<std::string, std::string, std::string>, std::string> correlation_;
};

}  // namespace snowcar::api::testing
