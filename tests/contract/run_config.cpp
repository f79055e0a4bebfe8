// SPDX-License-Identifier: Apache-2.0
#include "run_config.h"

namespace snowcar::contract {

bool NeedsRegistry(const Features& f) {
  const std::string& fmt = f.at("format");
  return fmt == "avro" || fmt == "json_schema";
}

bool DeletesAudit(const Features& f) {
  return f.at("deletes") == "audit" || f.at("deletes") == "audit+reconcile";
}

bool DeletesReconcile(const Features& f) {
  return f.at("deletes") == "reconcile" || f.at("deletes") == "audit+reconcile";
}

int Replicas(const Features& f) { return std::stoi(f.at("replicas")); }

bool ExactlyOnce(const Features& f) {
  const auto it = f.find("exactly_once");
  return it != f.end() && it->second == "on";
}

std::map<std::string, std::string> ReplicaProps(const Features& f, const Endpoints& ep, int replica,
                                                const std::string& dir) {
  std::map<std::string, std::string> p = {
      {"state.dir", dir + "/state"},
      {"socket.path", dir + "/run/snowcar.sock"},
      {"source.enabled", "true"},
      {"sink.enabled", "true"},
      {"threads", "2"},
      {"log.format", "json"},
      {"shutdown.timeout.ms", "5000"},
      {"snow.url", ep.emulator},
      {"snow.auth.username", kSinkUser},
      {"snow.auth.password", "admin-emulator"},
      {"snow.retry.initial.backoff.ms", "50"},
      {"snow.retry.max.backoff.ms", "500"},
      {"snow.retry.max.attempts", "3"},
      {"kafka.bootstrap.servers", ep.bootstrap},
      {"kafka.session.timeout.ms", "6000"},
      {"kafka.auto.commit.interval.ms", "200"},
      // Source: the writer's table and the sink's table.
      {"snow.tables", ep.ctr_alias + "," + ep.inc_alias},
      {"snow.table." + ep.inc_alias + ".name", "incident"},
      {"snow.table." + ep.inc_alias + ".topic", ep.inc_topic},
      {"snow.table." + ep.ctr_alias + ".name", kSinkTable},
      {"snow.table." + ep.ctr_alias + ".topic", ep.ctr_topic},
      {"snow.source.poll.interval.ms", "200"},
      {"snow.source.batch.size", std::to_string(kBatch)},
      {"snow.source.backfill.parallelism", f.at("parallelism")},
      {"snow.source.emit.tombstones", f.at("tombstones")},
      {"snow.source.emit.envelope", f.at("envelope")},
      {"snow.source.echo", f.at("echo")},
      {"snow.table." + ep.inc_alias + ".deletes", f.at("deletes")},
      // Sink: PATCH commands keyed by sys_id, a success report for each.
      {"kafka.group.id", ep.sink_group},
      {"snow.sink.topics", ep.cmd_topic},
      {"snow.sink.table", kSinkTable},
      {"snow.sink.ordering", f.at("ordering")},
      {"snow.sink.max.in.flight", "4"},
      {"snow.sink.unknown.field.behavior", "passthrough"},
      {"snow.sink.reporter.success.topic", ep.ok_topic},
  };
  if (DeletesReconcile(f)) p["snow.table." + ep.inc_alias + ".reconcile.interval.ms"] = "1000";
  if (ExactlyOnce(f)) {
    p["exactly.once.source.support"] = "required";
    p["snow.source.exactly.once.state.topic"] = ep.state_topic;
    if (f.count("transaction_boundary") && f.at("transaction_boundary") == "interval") {
      p["transaction.boundary"] = "interval";
      p["transaction.boundary.interval.ms"] = std::to_string(kTransactionIntervalMs);
    }
  }
  const std::string& fmt = f.at("format");
  if (fmt != "json") {
    p["snow.source.schema.mode"] = "typed";
    p["value.format"] = fmt;
  }
  if (NeedsRegistry(f)) p["schema.registry.url"] = ep.registry;
  if (Replicas(f) > 1) {
    p["source.group.id"] = ep.source_group;
    p["source.group.replica.id"] = "r" + std::to_string(replica);
    p["source.group.snapshot.interval.ms"] = "500";
  }
  return p;
}

int64_t SourceDuplicateBound(const Features& f, const Schedule& schedule) {
  // Each row version the source observed, exactly once, across every fault the schedules
  // draw (docs/semantics.md, Exactly-once): a page and its cursor commit together or not at all.
  if (ExactlyOnce(f)) return 0;
  int64_t bound = 0;
  for (const auto& e : schedule.events) {
    switch (e.kind) {
      case FaultKind::kKill9:
        // A page per table the killed replica owned, and with shared tables the rows it
        // committed since its last acknowledged snapshot (500 ms here: a page at most).
        bound += int64_t{kBatch} * (Replicas(f) > 1 ? 2 : 1);
        break;
      case FaultKind::kSigterm:
      case FaultKind::kReplicaCycle:
      case FaultKind::kBrokerDown:
        // A graceful stop or handover repeats nothing unless its timeout runs out (then the
        // records in flight); an outage repeats records written but reported as failed.
        bound += kBatch;
        break;
      default:
        break;
    }
  }
  return bound;
}

}  // namespace snowcar::contract
