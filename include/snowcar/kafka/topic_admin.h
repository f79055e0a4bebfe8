// SPDX-License-Identifier: Apache-2.0
// Making sure a topic exists before anything is produced to it: a metadata look-up, and when
// the topic is missing a CreateTopics request with what topic.creation decided for it
// (topic_creation.h). An existing topic is left exactly as it is, even when its partitions or
// configs differ from the rules: changing a live topic is the platform team's call.
//
// Blocking: each call waits for the cluster's answers. Call it off the shared pool (the
// source's topic preparer runs it on a thread of its own).
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>

#include "snowcar/common/status.h"
#include "snowcar/kafka/topic_creation.h"

namespace snowcar::kafka {

class TopicAdmin {
 public:
  // `properties`: the user's `kafka.*` keys with the prefix stripped (bootstrap, security).
  static Result<std::unique_ptr<TopicAdmin>> Create(
      const std::map<std::string, std::string>& properties);
  ~TopicAdmin();
  TopicAdmin(const TopicAdmin&) = delete;
  TopicAdmin& operator=(const TopicAdmin&) = delete;

  enum class Outcome { kExisted, kCreated };
  // Ok(kExisted) when the cluster already has `spec.name` (nothing is changed), Ok(kCreated)
  // once it was created and shows in the metadata. Otherwise: PermissionDenied when an ACL
  // refused the creation, FailedPrecondition when the cluster refused what was asked (a
  // policy, a replication factor above the broker count, an unknown topic config),
  // Unavailable or DeadlineExceeded when the cluster did not answer. Each message names the
  // topic, the broker's error and how the topic would have been created.
  Result<Outcome> Ensure(const NewTopicSpec& spec, std::chrono::milliseconds timeout);

  struct Impl;

 private:
  explicit TopicAdmin(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// "6 partitions, replication factor 3, cleanup.policy=compact" (-1 read as the broker's
// default), for messages and logs.
std::string DescribeSpec(const NewTopicSpec& spec);

}  // namespace snowcar::kafka
