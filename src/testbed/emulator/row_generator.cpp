// SPDX-License-Identifier: Apache-2.0
#include "snowcar/testbed/emulator/row_generator.h"

#include <chrono>
#include <random>

#include "snowcar/common/log.h"

namespace snowcar::emulator {
namespace {

// The field a generated update changes: short_description when the table has one.
std::string UpdateField(const TableSchema& schema) {
  for (const char* name : {"short_description", "description", "name"}) {
    if (schema.IndexOf(name)) return name;
  }
  if (schema.size() > TableSchema::kFirstTableField) {
    return schema.field(TableSchema::kFirstTableField).name;
  }
  return "short_description";
}

}  // namespace

Status RowGenerator::Start(RowGeneratorOptions options) {
  if (options.tables.empty()) return Status::InvalidArgument("writer needs at least one table");
  for (const auto& t : options.tables) {
    if (!store_.TableExists(t))
      return Status::InvalidArgument("writer table '" + t + "' does not exist");
  }
  if (options.rows_per_second < 0 || options.update_share < 0 || options.update_share > 1 ||
      options.late_share < 0 || options.late_share > 1 || options.burst_rows < 0 ||
      options.burst_interval_ms <= 0 || options.late_seconds < 0) {
    return Status::InvalidArgument(
        "writer options out of range: rows_per_second >= 0, update_share and late_share in "
        "[0,1], burst_rows >= 0, burst_interval_ms > 0, late_seconds >= 0");
  }
  std::lock_guard lock(mu_);
  if (running_) return Status::FailedPrecondition("writer already running; stop it first");
  if (thread_.joinable()) thread_.join();
  stop_ = false;
  running_ = true;
  thread_ = std::thread([this, options = std::move(options)] { Run(options); });
  return Status::Ok();
}

void RowGenerator::Stop() {
  std::thread t;
  {
    std::lock_guard lock(mu_);
    stop_ = true;
    cv_.notify_all();
    t = std::move(thread_);
  }
  if (t.joinable()) t.join();
  std::lock_guard lock(mu_);
  running_ = false;
}

bool RowGenerator::running() const {
  std::lock_guard lock(mu_);
  return running_;
}

RowGeneratorStats RowGenerator::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

Status RowGenerator::UpdateRandom(const std::string& table, uint64_t pick, int64_t backdate,
                                  const std::string& user) {
  // RowAt is O(log n); a snapshot per update would cost O(rows) at every write.
  auto picked = store_.RowAt(table, pick);
  if (!picked.ok()) return picked.status();
  const RowPtr& row = *picked;
  auto schema = store_.Schema(table);
  uint64_t n;
  {
    std::lock_guard lock(mu_);
    n = ++counter_;
  }
  WriteOptions wo;
  wo.user = user;
  wo.backdate_seconds = backdate;
  auto r = store_.Update(
      table, row->sys_id(),
      {{UpdateField(*schema), "updated by the emulator writer #" + std::to_string(n)}}, wo);
  return r.ok() ? Status::Ok() : r.status();
}

Status RowGenerator::WriteNow(const std::string& table, int creates, int updates,
                              int64_t backdate_seconds, const std::string& user) {
  auto schema = store_.Schema(table);
  if (!schema) return Status::InvalidArgument("writer table '" + table + "' does not exist");
  const std::string field = UpdateField(*schema);
  WriteOptions wo;
  wo.user = user;
  wo.backdate_seconds = backdate_seconds;
  for (int i = 0; i < creates; ++i) {
    uint64_t n;
    {
      std::lock_guard lock(mu_);
      n = ++counter_;
    }
    auto r =
        store_.Insert(table, {{field, "created by the emulator writer #" + std::to_string(n)}}, wo);
    std::lock_guard lock(mu_);
    if (!r.ok()) {
      ++stats_.failed;
      return r.status();
    }
    ++stats_.inserted;
    if (backdate_seconds > 0) ++stats_.late;
  }
  uint64_t rng_seed;
  {
    std::lock_guard lock(mu_);
    rng_seed = counter_ * 7919 + 1;
  }
  std::mt19937_64 rng(rng_seed);
  for (int i = 0; i < updates; ++i) {
    Status st = UpdateRandom(table, rng(), backdate_seconds, user);
    std::lock_guard lock(mu_);
    if (!st.ok()) {
      ++stats_.failed;
      return st;
    }
    ++stats_.updated;
    if (backdate_seconds > 0) ++stats_.late;
  }
  return Status::Ok();
}

void RowGenerator::Run(RowGeneratorOptions o) {
  using std::chrono::steady_clock;
  std::mt19937_64 rng(o.seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const auto start = steady_clock::now();
  auto next_burst = start + std::chrono::milliseconds(o.burst_interval_ms);
  double steady_done = 0;
  size_t table_turn = 0;
  SNOWCAR_LOG(
      kInfo, "emulator.writer.started",
      {{"tables", std::to_string(o.tables.size())}, {"rows_per_second", o.rows_per_second}});
  for (;;) {
    {
      std::unique_lock lock(mu_);
      if (cv_.wait_for(lock, std::chrono::milliseconds(20), [this] { return stop_; })) break;
    }
    const auto now = steady_clock::now();
    const double elapsed = std::chrono::duration<double>(now - start).count();
    const double due = elapsed * o.rows_per_second;
    while (steady_done + 1 <= due) {
      steady_done += 1;
      const std::string& table = o.tables[table_turn++ % o.tables.size()];
      const int64_t backdate = unit(rng) < o.late_share ? o.late_seconds : 0;
      const bool update = unit(rng) < o.update_share;
      // Failures are counted in the stats; the writer carries on.
      (void)WriteNow(table, update ? 0 : 1, update ? 1 : 0, backdate, o.user);
    }
    if (o.burst_rows > 0 && now >= next_burst) {
      next_burst += std::chrono::milliseconds(o.burst_interval_ms);
      const std::string& table = o.tables[table_turn++ % o.tables.size()];
      (void)WriteNow(table, static_cast<int>(o.burst_rows), 0, 0, o.user);
    }
  }
  SNOWCAR_LOG(kInfo, "emulator.writer.stopped", {});
}

}  // namespace snowcar::emulator
