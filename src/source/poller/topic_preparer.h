// SPDX-License-Identifier: Apache-2.0
// Creates a table's topic before the table's first produce, when topic.creation is on
// (snowcar/kafka/topic_creation.h). Shared by every poller of the process.
//
// Why a thread of its own: the look-up and CreateTopics wait for the cluster, and a poller
// never waits on the shared pool. Requests run one after another on this thread; each answer
// is posted to the asking poller's strand. A topic found or created once is remembered, so
// later pollers of it (a deletes stream, a table handed back in a source group) ask nothing.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "snowcar/common/status.h"
#include "snowcar/kafka/topic_admin.h"
#include "snowcar/kafka/topic_creation.h"

namespace snowcar::source {

class TopicPreparer {
 public:
  // `admin` may be null only in tests that never call Prepare for a missing topic.
  TopicPreparer(kafka::TopicCreation rules, std::unique_ptr<kafka::TopicAdmin> admin);
  ~TopicPreparer();  // finishes the request in progress, drops the rest
  TopicPreparer(const TopicPreparer&) = delete;
  TopicPreparer& operator=(const TopicPreparer&) = delete;

  using Done = std::function<void(Status)>;
  // Makes sure `topic` exists, then posts `done` to `executor` with Ok or why not (the
  // message names the topic, the broker's refusal and what it would have been created with).
  void Prepare(const std::string& topic, boost::asio::any_io_executor executor, Done done);

  const kafka::TopicCreation& rules() const { return rules_; }

 private:
  struct Request {
    std::string topic;
    boost::asio::any_io_executor executor;
    Done done;
  };
  void Run();
  Status EnsureOne(const std::string& topic);

  const kafka::TopicCreation rules_;
  const std::unique_ptr<kafka::TopicAdmin> admin_;  // used on thread_ only
  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<Request> queue_;    // guarded by mu_
  std::set<std::string> ready_;  // guarded by mu_: topics known to exist
  bool stopping_ = false;        // guarded by mu_
  std::thread thread_;
};

}  // namespace snowcar::source
