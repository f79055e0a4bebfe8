// SPDX-License-Identifier: Apache-2.0
// The reconciliation id set moving with its table (idset_changelog.h says how it is laid out
// on the changelog and why): the owner publishes a copy after each finished sweep and on
// release; a new owner restores the copy the snapshot names before the table's first poll.
#include <deque>
#include <future>
#include <random>

#include "../deletes/reconcile_sweep.h"
#include "idset_changelog.h"
#include "snowcar/common/log.h"
#include "snowcar/common/time.h"
#include "table_ownership.h"

namespace snowcar::source {
namespace {

using SteadyClock = std::chrono::steady_clock;

// Chunks produced and not yet acknowledged at most, so a ten-million-id set never sits in
// the producer's queue whole (8 x 512 KiB).
constexpr size_t kChunksInFlight = 8;

std::string NewNonce() {
  std::random_device device;
  std::uniform_int_distribution<uint32_t> pick;
  char text[9];
  std::snprintf(text, sizeof text, "%08x", pick(device));
  return text;
}

Result<std::optional<IdSetManifest>> LocalManifest(state::StateStore& store,
                                                   const std::string& instance,
                                                   const std::string& alias) {
  SNOWCAR_ASSIGN_OR_RETURN(std::optional<std::string> text,
                           store.GetIdSetManifest(instance, alias));
  if (!text.has_value()) return std::optional<IdSetManifest>();
  SNOWCAR_ASSIGN_OR_RETURN(IdSetManifest manifest, DecodeIdSetManifest(*text));
  return std::optional<IdSetManifest>(std::move(manifest));
}

Result<std::optional<SweepState>> LocalSweep(state::StateStore& store, const std::string& instance,
                                             const std::string& alias) {
  SNOWCAR_ASSIGN_OR_RETURN(std::optional<std::string> text, store.GetSweepState(instance, alias));
  if (!text.has_value()) return std::optional<SweepState>();
  SNOWCAR_ASSIGN_OR_RETURN(SweepState sweep, DecodeSweepState(*text));
  return std::optional<SweepState>(std::move(sweep));
}

}  // namespace

void TableOwnership::PublishIdSet(const TableSettings& table, int32_t partition, bool releasing) {
  if (!Reconciles(table.deletes)) return;
  const std::string& instance = settings_.instance;
  auto sweep = LocalSweep(store_, instance, table.alias);
  auto previous = LocalManifest(store_, instance, table.alias);
  if (!sweep.ok() || !previous.ok()) {
    SNOWCAR_LOG(kWarn, "source.group.idset_copy_failed",
                {{"table", table.alias},
                 {"error", (!sweep.ok() ? sweep.status() : previous.status()).message()}});
    return;
  }
  // Before the first finished sweep the set is not yet a baseline: a copy would tell the
  // next owner that it is one.
  if (!sweep->has_value() || (*sweep)->sweeps == 0) return;
  const uint64_t sweeps = (*sweep)->sweeps;
  if (!releasing) {
    if (previous->has_value() && (*previous)->at_sweep >= sweeps) return;
    auto failed = idset_failed_at_sweep_.find(table.alias);
    if (failed != idset_failed_at_sweep_.end() && failed->second >= sweeps) return;
  }

  IdSetManifest next;
  next.generation = previous->has_value() ? (*previous)->generation + 1 : 1;
  next.nonce = NewNonce();
  next.at_sweep = sweeps;
  const auto began = SteadyClock::now();
  const auto deadline = StopBy();
  std::deque<std::future<Status>> in_flight;
  Status status = Status::Ok();
  auto settle_one = [&] {
    if (in_flight.front().wait_until(deadline) != std::future_status::ready) {
      status = Status::DeadlineExceeded("a chunk was not acknowledged in time");
    } else if (Status s = in_flight.front().get(); !s.ok()) {
      status = s;
    }
    in_flight.pop_front();
  };
  std::string after;
  while (status.ok()) {
    auto ids = store_.IdSetRange(instance, table.alias, after, "", kIdsPerChunk);
    if (!ids.ok()) {
      status = ids.status();
      break;
    }
    if (ids->empty() && next.chunks > 0) break;
    auto value = EncodeIdSetChunk(next, next.chunks, *ids);
    if (!value.ok()) {
      status = value.status();
      break;
    }
    kafka::OutRecord record;
    record.topic = state_topic_;
    record.partition = partition;
    record.key = IdSetChunkKey(table.alias, next, next.chunks);
    record.value = std::move(value).value();
    auto done = std::make_shared<std::promise<Status>>();
    in_flight.push_back(done->get_future());
    producer_->Produce(std::move(record), executor_, [done](const kafka::DeliveryReport& report) {
      done->set_value(report.status);
    });
    ++next.chunks;
    next.ids += ids->size();
    if (ids->size() < kIdsPerChunk) break;  // an empty set still writes one (empty) chunk
    after = ids->back();
    while (status.ok() && in_flight.size() >= kChunksInFlight) settle_one();
  }
  while (!in_flight.empty()) {
    // Every delivery is waited for (or the deadline passes) before anything names the copy.
    if (status.ok()) {
      settle_one();
    } else {
      in_flight.pop_front();
    }
  }
  if (status.ok()) {
    next.written_at_ms = SystemClock::Instance().NowMillis();
    status = store_.PutIdSetManifest(instance, table.alias, EncodeIdSetManifest(next));
  }
  if (!status.ok()) {
    ++idset_copies_failed_;
    idset_failed_at_sweep_[table.alias] = sweeps;
    SNOWCAR_LOG(kWarn, "source.group.idset_copy_failed",
                {{"table", table.alias},
                 {"generation", next.generation},
                 {"error", status.message()},
                 {"kept", previous->has_value() ? (*previous)->generation : int64_t{0}}});
    return;
  }
  idset_failed_at_sweep_.erase(table.alias);
  // The snapshot that names the new copy; once Kafka holds it the old copy is garbage. When
  // it is not acknowledged now, a later round's snapshot names the copy (the store has it).
  const bool named = PublishIfChanged(table.alias, partition, /*wait=*/true);
  if (named) ++idset_copies_published_;
  if (named && previous->has_value()) {
    for (int64_t i = 0; i < (*previous)->chunks; ++i) {
      kafka::OutRecord tombstone;
      tombstone.topic = state_topic_;
      tombstone.partition = partition;
      tombstone.key = IdSetChunkKey(table.alias, **previous, i);
      tombstone.value.reset();
      producer_->Produce(std::move(tombstone), executor_, [](const kafka::DeliveryReport&) {});
    }
  }
  SNOWCAR_LOG(kInfo, "source.group.idset_copied",
              {{"table", table.alias},
               {"generation", next.generation},
               {"ids", static_cast<int64_t>(next.ids)},
               {"chunks", next.chunks},
               {"at_sweep", static_cast<int64_t>(sweeps)},
               {"named", named},
               {"ms", static_cast<int64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                               SteadyClock::now() - began)
                                               .count())}});
}

void TableOwnership::RestoreIdSet(const TableSettings& table, int32_t partition,
                                  const TableSnapshot& snapshot, Restore& restore) {
  if (!Reconciles(table.deletes)) return;
  const std::string& instance = settings_.instance;
  std::string why;  // why no copy could be restored
  if (!snapshot.idset.has_value()) {
    why = "the snapshot names no copy of the id set";
  } else if (auto manifest = DecodeIdSetManifest(*snapshot.idset); !manifest.ok()) {
    why = manifest.status().message();
  } else if (auto local = LocalManifest(store_, instance, table.alias);
             local.ok() && local->has_value() && **local == *manifest) {
    // This replica wrote or restored that copy: its own set holds everything the copy does,
    // and what it emitted since (a restart of the same replica after kill -9).
    restore.idset = "kept";
    return;
  } else {
    Status status = store_.ClearIdSet(instance, table.alias);
    std::vector<bool> seen(static_cast<size_t>(manifest->chunks), false);
    uint64_t ids = 0;
    if (status.ok()) {
      status = changelog_->Scan(
          state_topic_, partition, options_.handoff_timeout,
          [&](std::string_view key, const std::string_view* value) {
            if (!status.ok() || value == nullptr) return;
            const std::optional<int64_t> index = IdSetChunkIndex(key, table.alias, *manifest);
            if (!index.has_value() || *index >= manifest->chunks ||
                seen[static_cast<size_t>(*index)]) {
              return;
            }
            auto chunk = DecodeIdSetChunk(*value, *manifest, *index);
            if (!chunk.ok()) {
              status = chunk.status();
              return;
            }
            status = store_.UpdateIdSet(instance, table.alias, *chunk, {});
            seen[static_cast<size_t>(*index)] = true;
            ids += chunk->size();
          },
          &restore.records_read);
    }
    const auto found = static_cast<int64_t>(std::count(seen.begin(), seen.end(), true));
    if (status.ok() && (found != manifest->chunks || ids != manifest->ids)) {
      status = Status::DataLoss("generation " + std::to_string(manifest->generation) + ": " +
                                std::to_string(found) + " of " + std::to_string(manifest->chunks) +
                                " chunks, " + std::to_string(ids) + " of " +
                                std::to_string(manifest->ids) + " ids found");
    }
    // Recorded only once the set is whole: a crash half-way through leaves no manifest that
    // would make the next restore keep a partial set.
    if (status.ok()) status = store_.PutIdSetManifest(instance, table.alias, *snapshot.idset);
    if (status.ok()) {
      restore.idset = "restored";
      restore.idset_ids = ids;
      return;
    }
    why = status.message();
  }
  // No copy: whatever the local set holds (nothing, or what this replica knew when it last
  // owned the table) is no list of what was emitted. The next sweep takes a baseline.
  restore.idset = "baseline";
  auto sweep = LocalSweep(store_, instance, table.alias);
  Status kept = sweep.status();
  if (sweep.ok() && sweep->has_value()) {
    kept =
        store_.PutSweepState(instance, table.alias, EncodeSweepState(RestartAsBaseline(**sweep)));
  }
  // A table still before its first sweep loses nothing by it.
  const bool mattered = !sweep.ok() || (sweep->has_value() && (*sweep)->seeded);
  const log::Level level = mattered ? log::Level::kWarn : log::Level::kInfo;
  if (log::Enabled(level)) {
    log::Write(level, "source.group.idset_not_restored",
               {{"table", table.alias},
                {"reason", why},
                {"next_sweep", "baseline"},
                {"error", kept.ok() ? std::string() : kept.message()}});
  }
}

}  // namespace snowcar::source
