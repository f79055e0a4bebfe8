// SPDX-License-Identifier: Apache-2.0
// The consumer's properties: what snowcar requires, forces and defaults before a client exists.
#include "consumer_conf.h"

#include "client_check.h"

namespace snowcar::kafka {
namespace internal {

Result<ConfPtr> PrepareConsumerConf(const ConsumerOptions& options, Dropped dropped,
                                    std::map<std::string, std::string>& properties) {
  const auto& user = options.properties;
  SNOWCAR_RETURN_IF_ERROR(CheckAliasConflicts(user));
  auto group = user.find("group.id");
  if (group == user.end() || group->second.empty()) {
    return Status::InvalidArgument("kafka property 'group.id' is required (set kafka.group.id)");
  }
  auto store = user.find("enable.auto.offset.store");
  if (store != user.end() && store->second != "false") {
    return Status::InvalidArgument(
        "kafka property 'enable.auto.offset.store' must stay false: the sink stores the offset "
        "of a record only once it is done with it");
  }
  // Eager assignment (librdkafka's own default) on purpose: with the cooperative-sticky
  // assignor, librdkafka 2.0.2 (Debian 12's) aborts when a member closed before its first
  // SyncGroup answer is destroyed (librdkafka #4312; KafkaConsumer::Close avoids it by not
  // destroying such a member) and can keep a consumer closed during a rebalance waiting until
  // its close timeout (#4527, fixed in 2.4.0); an assertion on assignments still in progress
  // at terminate was also seen here on the mock cluster.
  properties = MergeProperties(
      user,
      {{"partition.assignment.strategy", "range,roundrobin"}, {"auto.offset.reset", "earliest"}},
      ClientKind::kConsumer, dropped);
  properties["enable.auto.offset.store"] = "false";
  properties["client.id"] = ClientId(user, options.client_id);
  return BuildConf(properties);
}

}  // namespace internal

Status KafkaConsumer::CheckProperties(const ConsumerOptions& options) {
  std::map<std::string, std::string> properties;
  SNOWCAR_ASSIGN_OR_RETURN(
      internal::ConfPtr conf,
      internal::PrepareConsumerConf(options, internal::Dropped::kQuiet, properties));
  return internal::CreateClientOffline(RD_KAFKA_CONSUMER, std::move(conf));
}

}  // namespace snowcar::kafka
