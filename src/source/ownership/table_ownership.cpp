// SPDX-License-Identifier: Apache-2.0
#include "table_ownership.h"

#include <boost/json.hpp>
#include <future>

#include "snowcar/api/prometheus.h"
#include "snowcar/api/readiness.h"
#include "snowcar/common/log.h"
#include "snowcar/common/time.h"
#include "snowcar/source/rows/keyset_query.h"

namespace snowcar::source {
namespace {

using SteadyClock = std::chrono::steady_clock;
using namespace std::chrono_literals;

int64_t WallMs() { return SystemClock::Instance().NowMillis(); }

std::vector<std::string> Aliases(const SourceSettings& settings) {
  std::vector<std::string> out;
  for (const TableSettings& t : settings.tables) out.push_back(t.alias);
  return out;
}

}  // namespace

TableOwnership::TableOwnership(OwnershipOptions options, const SourceSettings& settings,
                               state::StateStore& store,
                               std::shared_ptr<kafka::RecordProducer> producer,
                               boost::asio::any_io_executor executor, api::HealthRegistry* health,
                               PollerFactory factory)
    : options_(std::move(options)),
      settings_(settings),
      store_(store),
      producer_(std::move(producer)),
      executor_(std::move(executor)),
      health_(health),
      factory_(std::move(factory)),
      map_(Aliases(settings)),
      tables_topic_(CoordinationTopic(options_.group_id)),
      state_topic_(ChangelogTopic(options_.group_id)),
      publisher_(producer_, executor_, state_topic_, options_.replica_id,
                 options_.snapshot_max_bytes) {}

TableOwnership::~TableOwnership() {
  if (thread_.joinable()) Stop(SteadyClock::now() + 10s);
}

const TableSettings* TableOwnership::Table(const std::string& alias) const {
  for (const TableSettings& t : settings_.tables) {
    if (t.alias == alias) return &t;
  }
  return nullptr;
}

Status TableOwnership::Start() {
  auto changelog = StateChangelog::Create(options_.kafka_properties,
                                          options_.group_id + ".restore." + options_.replica_id);
  if (!changelog.ok()) return changelog.status().WithContext("source group");
  changelog_ = std::move(changelog).value();
  const auto partitions = static_cast<int32_t>(map_.size());
  SNOWCAR_RETURN_IF_ERROR(
      changelog_->EnsureTopic({tables_topic_, partitions, false}, 30s).WithContext("source group"));
  SNOWCAR_RETURN_IF_ERROR(
      changelog_->EnsureTopic({state_topic_, partitions, true}, 30s).WithContext("source group"));

  kafka::ConsumerOptions consumer;
  consumer.properties = options_.kafka_properties;
  consumer.properties["group.id"] = options_.group_id;
  consumer.topics = {tables_topic_};
  consumer.client_id = "snowcar-source-group";
  consumer.listener.on_assigned = [this](const std::vector<kafka::TopicPartition>& tps) {
    OnAssigned(tps);
  };
  consumer.listener.on_revoked = [this](const std::vector<kafka::TopicPartition>& tps) {
    OnRevoked(tps, /*lost=*/false);
  };
  consumer.listener.on_lost = [this](const std::vector<kafka::TopicPartition>& tps) {
    OnRevoked(tps, /*lost=*/true);
  };
  // Leaving the group runs the revoke path, which drains pollers: give it the handoff budget.
  consumer.close_timeout = options_.handoff_timeout + 5s;
  auto created = kafka::KafkaConsumer::Create(std::move(consumer));
  if (!created.ok()) return created.status().WithContext("source group consumer");
  {
    std::lock_guard lock(mu_);  // Json() may read it from the socket thread
    consumer_ = std::move(created).value();
  }
  joined_ = true;
  if (health_ != nullptr) health_->Report("source.group", true, "member of " + options_.group_id);
  thread_ = std::thread([this] { Run(); });
  SNOWCAR_LOG(kInfo, "source.group.joined",
              {{"group", options_.group_id},
               {"replica", options_.replica_id},
               {"tables", static_cast<int64_t>(map_.size())},
               {"topic", tables_topic_}});
  return Status::Ok();
}

void TableOwnership::Run() {
  while (!stop_.load()) {
    auto polled = consumer_->Poll(200ms);
    if (!polled.ok()) {
      // Fatal for the group consumer: give the tables up and say so; the other replicas
      // take them over once the group drops this member.
      SNOWCAR_LOG(kError, "source.group.consumer_failed", {{"error", polled.status().message()}});
      if (health_ != nullptr) health_->Report("source.group", false, polled.status().message());
      break;
    }
    // Records on the coordination topic carry nothing: only its partitions matter.
    if (stop_.load()) break;
    const auto now = SteadyClock::now();
    if (now - last_publish_round_ >= std::chrono::milliseconds(options_.snapshot_interval_ms)) {
      last_publish_round_ = now;
      std::vector<std::pair<std::string, int32_t>> owned;
      {
        std::lock_guard lock(mu_);
        for (const auto& [alias, o] : owned_) owned.emplace_back(alias, o.partition);
      }
      for (const auto& [alias, partition] : owned) {
        if (const TableSettings* table = Table(alias); table != nullptr) {
          PublishIdSet(*table, partition, /*releasing=*/false);
        }
        PublishIfChanged(alias, partition, false);
      }
    }
  }
  // Leaving runs on_revoked for what we still own (stop, final snapshot), then LeaveGroup.
  consumer_->Close();
  std::vector<std::string> left;
  {
    std::lock_guard lock(mu_);
    for (const auto& [alias, o] : owned_) left.push_back(alias);
  }
  // Close gave up before the revoke ran (coordinator unreachable): stop them anyway.
  for (const std::string& alias : left) Release(alias, /*publish=*/true);
}

SteadyClock::time_point TableOwnership::StopBy() const {
  const auto handoff = SteadyClock::now() + options_.handoff_timeout;
  const int64_t ns = stop_deadline_ns_.load();
  if (ns == 0) return handoff;
  return std::min(handoff, SteadyClock::time_point(SteadyClock::duration(ns)));
}

void TableOwnership::OnAssigned(const std::vector<kafka::TopicPartition>& partitions) {
  for (const kafka::TopicPartition& tp : partitions) {
    if (tp.topic != tables_topic_) continue;
    std::optional<std::string> alias = map_.AliasOf(tp.partition);
    if (!alias.has_value()) {
      SNOWCAR_LOG(kInfo, "source.group.spare_partition", {{"partition", tp.partition}});
      continue;
    }
    if (stop_.load()) break;
    Acquire(*alias, tp.partition);
  }
}

void TableOwnership::OnRevoked(const std::vector<kafka::TopicPartition>& partitions, bool lost) {
  // Stop every revoked poller at once, then wait: the drains overlap.
  std::vector<std::string> aliases;
  for (const kafka::TopicPartition& tp : partitions) {
    if (tp.topic != tables_topic_) continue;
    if (auto alias = map_.AliasOf(tp.partition)) aliases.push_back(*alias);
  }
  for (const std::string& alias : aliases) {
    {
      std::lock_guard lock(mu_);
      if (lost) ++lost_;
    }
    // A lost table may already have a new owner: publishing now could overwrite its newer
    // state with ours. Only a clean revoke publishes.
    Release(alias, /*publish=*/!lost);
  }
}

TableOwnership::Restore TableOwnership::RestoreTable(const TableSettings& table,
                                                     int32_t partition) {
  Restore r;
  const auto began = SteadyClock::now();
  r.at_ms = WallMs();
  {
    std::lock_guard lock(mu_);
    restoring_ = table.alias;
    restoring_read_ = 0;
  }
  int64_t read = 0;
  auto value =
      changelog_->ReadLatest(state_topic_, partition, table.alias, options_.handoff_timeout, &read);
  r.records_read = read;
  if (!value.ok()) {
    // The local state is older than (or equal to) the changelog's, never newer than what
    // Kafka acknowledged: starting from it re-emits rows, it never skips any.
    r.outcome = "failed";
    r.detail = value.status().message();
  } else if (!value->has_value()) {
    r.outcome = "none";
  } else {
    auto snapshot = DecodeSnapshot(**value);
    if (!snapshot.ok()) {
      r.outcome = "failed";
      r.detail = snapshot.status().message();
    } else {
      const state::DedupPolicy policy = settings_.dedup_policy();
      auto applied = ApplySnapshot(store_, *snapshot, IdentityFor(settings_, table), policy);
      if (applied.ok()) {
        if (Status s = ApplyDeletesState(store_, settings_, table, *snapshot, policy); !s.ok()) {
          applied = s;
        }
      }
      if (!applied.ok()) {
        r.outcome = "failed";
        r.detail = applied.status().message();
      } else {
        r.outcome = std::string(RestoreOutcomeName(*applied));
        if (*applied == RestoreOutcome::kApplied) {
          publisher_.Restored(table.alias, *snapshot);
          RestoreIdSet(table, partition, *snapshot, r);
        } else if (Reconciles(table.deletes)) {
          r.idset = "kept";
        }
      }
    }
  }
  r.seconds = std::chrono::duration<double>(SteadyClock::now() - began).count();
  {
    std::lock_guard lock(mu_);
    restoring_.clear();
    restoring_read_ = read;
  }
  if (r.outcome == "failed") {
    SNOWCAR_LOG(kWarn, "source.group.restore_failed",
                {{"table", table.alias}, {"error", r.detail}, {"fallback", "local state"}});
  }
  return r;
}

void TableOwnership::Acquire(const std::string& alias, int32_t partition) {
  const TableSettings* table = Table(alias);
  if (table == nullptr) return;
  {
    std::lock_guard lock(mu_);
    if (owned_.count(alias) != 0) return;
  }
  const int64_t since = WallMs();
  Restore restore = RestoreTable(*table, partition);
  std::shared_ptr<TablePoller> poller = factory_(*table);
  {
    std::lock_guard lock(mu_);
    owned_[alias] = Owned{partition, poller, since};
    restores_[alias] = restore;
    ++acquired_;
  }
  poller->Start();
  SNOWCAR_LOG(kInfo, "source.group.table_acquired",
              {{"table", alias},
               {"partition", partition},
               {"replica", options_.replica_id},
               {"at_ms", since},
               {"restore", restore.outcome},
               {"restore_ms", static_cast<int64_t>(restore.seconds * 1000)},
               {"records_read", restore.records_read}});
}

void TableOwnership::Release(const std::string& alias, bool publish) {
  Owned owned;
  {
    std::lock_guard lock(mu_);
    auto it = owned_.find(alias);
    if (it == owned_.end()) return;
    owned = it->second;
  }
  std::future<void> stopped = owned.poller->Stop();
  if (stopped.wait_until(StopBy()) != std::future_status::ready) {
    // Produces still unreported: commit what is acknowledged and let the table go. The rows
    // in flight may be emitted again by the next owner (at least once).
    owned.poller->ForceFinish().wait_for(5s);
  }
  if (publish) {
    // The poller has stopped and flushed its emitted ids: the copy is the whole set.
    if (const TableSettings* table = Table(alias); table != nullptr) {
      PublishIdSet(*table, owned.partition, /*releasing=*/true);
    }
    PublishIfChanged(alias, owned.partition, /*wait=*/true);
  }
  publisher_.Forget(alias);  // the next owner publishes from here on
  {
    std::lock_guard lock(mu_);
    owned_.erase(alias);
    retired_.push_back(owned.poller);
    ++released_;
  }
  // The table's health entry belongs to its owner; a failed table must not keep this
  // replica unhealthy once another replica owns it.
  if (health_ != nullptr) health_->Remove("source." + alias);
  SNOWCAR_LOG(kInfo, "source.group.table_released",
              {{"table", alias},
               {"partition", owned.partition},
               {"replica", options_.replica_id},
               {"at_ms", WallMs()},
               {"published", publish}});
}

bool TableOwnership::PublishIfChanged(const std::string& alias, int32_t partition, bool wait) {
  const TableSettings* table = Table(alias);
  if (table == nullptr) return false;
  auto captured = CaptureSnapshot(store_, IdentityFor(settings_, *table));
  if (!captured.ok()) {
    SNOWCAR_LOG(kWarn, "source.group.snapshot_failed",
                {{"table", alias}, {"error", captured.status().message()}});
    return false;
  }
  if (!captured->has_value()) return false;  // nothing committed yet: nothing to hand over
  TableSnapshot& snapshot = **captured;
  if (Status s = CaptureDeletesState(store_, settings_, *table, snapshot); !s.ok()) {
    SNOWCAR_LOG(kWarn, "source.group.snapshot_failed", {{"table", alias}, {"error", s.message()}});
    return false;
  }
  return publisher_.Publish(alias, partition, std::move(snapshot),
                            wait ? std::optional(StopBy()) : std::nullopt);
}

void TableOwnership::Stop(SteadyClock::time_point deadline) {
  stop_deadline_ns_ = deadline.time_since_epoch().count();
  stop_ = true;
  if (consumer_) consumer_->Wake();
  if (thread_.joinable()) thread_.join();
  SNOWCAR_LOG(kInfo, "source.group.left",
              {{"group", options_.group_id}, {"replica", options_.replica_id}});
}

bool TableOwnership::Started() const {
  if (!joined_.load()) return false;
  std::lock_guard lock(mu_);
  for (const auto& [alias, o] : owned_) {
    if (!o.poller->started()) return false;
  }
  return true;
}

std::vector<std::shared_ptr<TablePoller>> TableOwnership::Current() const {
  std::lock_guard lock(mu_);
  std::vector<std::shared_ptr<TablePoller>> out;
  for (const auto& [alias, o] : owned_) out.push_back(o.poller);
  return out;
}

void TableOwnership::ReleaseWindows() {
  std::lock_guard lock(mu_);
  for (auto& [alias, o] : owned_) o.poller->ReleaseWindow();
  for (auto& poller : retired_) poller->ReleaseWindow();
}

boost::json::object TableOwnership::Json() const {
  namespace json = boost::json;
  json::object out;
  out["group_id"] = options_.group_id;
  out["replica_id"] = options_.replica_id;
  out["coordination_topic"] = tables_topic_;
  out["changelog_topic"] = state_topic_;
  out["tables_configured"] = static_cast<int64_t>(map_.size());
  std::lock_guard lock(mu_);
  if (consumer_) {
    // librdkafka 2.0 does not expose the group generation id; the rebalance events this
    // member took part in move with it.
    const auto s = consumer_->stats();
    out["rebalances"] = {{"assigned", s.assigned}, {"revoked", s.revoked}, {"lost", s.lost}};
    out["generation_seen"] = s.assigned + s.revoked + s.lost;
  }
  json::array owned;
  for (const auto& [alias, o] : owned_) {
    json::object t;
    t["table"] = alias;
    t["partition"] = o.partition;
    t["since"] = FormatIso8601Millis(o.since_ms);
    t["state"] = std::string(TableStateName(o.poller->status().Read().state));
    owned.push_back(std::move(t));
  }
  out["owned"] = std::move(owned);
  json::array restores;
  for (const auto& [alias, r] : restores_) {
    json::object t;
    t["table"] = alias;
    t["outcome"] = r.outcome;
    t["seconds"] = r.seconds;
    t["records_read"] = r.records_read;
    t["at"] = FormatIso8601Millis(r.at_ms);
    if (!r.detail.empty()) t["detail"] = r.detail;
    if (!r.idset.empty()) t["idset"] = {{"outcome", r.idset}, {"ids", r.idset_ids}};
    restores.push_back(std::move(t));
  }
  out["restores"] = std::move(restores);
  if (restoring_.empty()) {
    out["restoring"] = nullptr;
  } else {
    out["restoring"] = {{"table", restoring_}, {"records_read", restoring_read_}};
  }
  out["handoffs"] = {{"acquired", acquired_}, {"released", released_}, {"lost", lost_}};
  out["snapshots"] = {{"published", publisher_.published()}, {"failed", publisher_.failed()}};
  out["idset_copies"] = {{"published", idset_copies_published_.load()},
                         {"failed", idset_copies_failed_.load()}};
  return out;
}

void TableOwnership::WriteMetrics(std::string& out) const {
  std::lock_guard lock(mu_);
  api::WriteMetricFamily(out, "snowcar_source_owned_tables", "gauge",
                         "Tables this replica polls now (source.group.id)");
  out += "snowcar_source_owned_tables " + std::to_string(owned_.size()) + "\n";
  api::WriteMetricFamily(out, "snowcar_source_handoffs_total", "counter",
                         "Tables this replica acquired, released cleanly or lost");
  out += "snowcar_source_handoffs_total{event=\"acquired\"} " + std::to_string(acquired_) + "\n";
  out += "snowcar_source_handoffs_total{event=\"released\"} " + std::to_string(released_) + "\n";
  out += "snowcar_source_handoffs_total{event=\"lost\"} " + std::to_string(lost_) + "\n";
  api::WriteMetricFamily(out, "snowcar_source_restore_seconds", "gauge",
                         "How long the table's last state restore from the changelog took");
  for (const auto& [alias, r] : restores_) {
    out += "snowcar_source_restore_seconds{table=\"" + api::EscapeLabelValue(alias) + "\"} " +
           std::to_string(r.seconds) + "\n";
  }
  api::WriteMetricFamily(out, "snowcar_source_snapshots_published_total", "counter",
                         "Table state snapshots acknowledged on the changelog topic");
  out +=
      "snowcar_source_snapshots_published_total " + std::to_string(publisher_.published()) + "\n";
}

}  // namespace snowcar::source
