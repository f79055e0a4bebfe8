// SPDX-License-Identifier: Apache-2.0
// Static group membership (KIP-345): which `group.instance.id` this replica's group consumers
// (the sink's and the source's table group) use.
//
// Why: a dynamic member that dies without leaving (kill -9, an OOM kill, a node loss) keeps
// its partitions until the group's session timeout runs out, so a replica restarted at once
// still sits idle that long. A static member that comes back with the same id takes its
// partitions back without a rebalance. The id must name the replica, not the process, and two
// live replicas must never share one (the newer fences the older), so it is only derived from
// a name that is stable and unique per replica: a StatefulSet pod's name, given through the
// downward API as POD_NAME. HOSTNAME is not used: a Deployment's pod names change with every
// rollout, a container runtime's host names are random, and processes on one host share it.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "snowcar/common/status.h"

namespace snowcar::kafka {

// The environment variable a StatefulSet sets from `metadata.name` (k8s/base does).
inline constexpr char kPodNameVariable[] = "POD_NAME";
// kafka.group.instance.id=off: static membership off even when POD_NAME is set.
inline constexpr std::string_view kStaticMembershipOff = "off";

struct StaticMembership {
  std::string id;      // empty: static membership is off
  std::string origin;  // where the id came from, or why it is off (for the start-up log)
};

// `configured` is kafka.group.instance.id ("" unless set); `pod_name` the value of POD_NAME,
// or nullptr when it is not set. An explicit id wins, `off` turns it off, otherwise a
// non-empty POD_NAME is the id. kInvalidArgument names the source when the id is not a valid
// Kafka group instance id (1 to 249 of [A-Za-z0-9._-]).
Result<StaticMembership> ResolveStaticMembership(std::string_view configured, const char* pod_name);

// Sets group.instance.id in `properties` (librdkafka's, the kafka.* keys without the prefix)
// to `membership.id`, or removes it when static membership is off.
void ApplyStaticMembership(const StaticMembership& membership,
                           std::map<std::string, std::string>& properties);

}  // namespace snowcar::kafka
