// SPDX-License-Identifier: Apache-2.0
// What one contract run starts: the properties of each replica for a feature combination, and
// the expectations the checker gets for it (duplicate bounds from the schedule's faults).
#pragma once

#include <map>
#include <string>

#include "schedule.h"

namespace snowcar::contract {

using Features = std::map<std::string, std::string>;  // dimension -> value (pairwise.h)

constexpr int kBatch = 20;          // snow.source.batch.size: the per-crash repeat bound
constexpr int kSinkPartitions = 2;  // partitions of the command topic
constexpr char kSinkTable[] = "u_contract";
constexpr char kSinkUser[] = "admin";
// Exactly-once runs alternate transaction.boundary by their seed's parity (key
// "transaction_boundary" of Features, beside the dimensions): even seeds commit a transaction
// per page (poll), odd ones keep it open up to this long (interval), so a kill -9, a SIGTERM or
// a broker restart mostly lands inside an open transaction; per page, at this workload's
// few rows a poll, it mostly lands between two.
constexpr int kTransactionIntervalMs = 1000;

struct Endpoints {
  std::string emulator;   // base URL
  std::string bootstrap;  // broker
  std::string registry;   // "" when the format needs none
  std::string inc_topic;  // source topic of incident (the writer's table, deletes apply)
  std::string ctr_topic;  // source topic of u_contract (the sink's table, echo applies)
  std::string cmd_topic;  // the sink's command topic
  std::string ok_topic;   // the sink's success reports
  std::string sink_group;
  std::string source_group;  // "" with one replica
  // The tables' aliases. Exactly-once names each table's transactional id after the instance's
  // host and the alias, and every emulator is 127.0.0.1: runs side by side on one broker need
  // aliases of their own, or they fence each other.
  std::string inc_alias = "inc";
  std::string ctr_alias = "ctr";
  std::string state_topic = "ct-state";  // exactly-once: the tables' committed state
};

// The properties of replica `replica` (state and socket under `dir`).
std::map<std::string, std::string> ReplicaProps(const Features& f, const Endpoints& ep, int replica,
                                                const std::string& dir);

// Repeats allowed on a source topic for a run with this schedule (docs/semantics.md): one
// page per kill -9, per broker outage and per SIGTERM that outlasts its timeout, plus for
// shared tables what a killed owner committed since its last snapshot. With exactly-once, 0
// whatever the faults (read with read_committed).
int64_t SourceDuplicateBound(const Features& f, const Schedule& schedule);

bool NeedsRegistry(const Features& f);
bool DeletesAudit(const Features& f);
bool DeletesReconcile(const Features& f);
int Replicas(const Features& f);
// exactly.once.source.support=required: the run needs Apache Kafka (real_broker.h).
bool ExactlyOnce(const Features& f);

}  // namespace snowcar::contract
