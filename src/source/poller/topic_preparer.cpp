// SPDX-License-Identifier: Apache-2.0
#include "topic_preparer.h"

#include <boost/asio/post.hpp>

#include "snowcar/common/log.h"

namespace snowcar::source {
namespace {

// One look-up and creation; the table backs off and asks again when it runs out.
constexpr std::chrono::seconds kEnsureTimeout{30};

}  // namespace

TopicPreparer::TopicPreparer(kafka::TopicCreation rules, std::unique_ptr<kafka::TopicAdmin> admin)
    : rules_(std::move(rules)), admin_(std::move(admin)), thread_([this] { Run(); }) {}

TopicPreparer::~TopicPreparer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    queue_.clear();
  }
  wake_.notify_all();
  thread_.join();
}

void TopicPreparer::Prepare(const std::string& topic, boost::asio::any_io_executor executor,
                            Done done) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (ready_.count(topic) == 0 && !stopping_) {
      queue_.push_back(Request{topic, std::move(executor), std::move(done)});
      wake_.notify_one();
      return;
    }
  }
  boost::asio::post(executor, [done = std::move(done)] { done(Status::Ok()); });
}

void TopicPreparer::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    Request request = std::move(queue_.front());
    queue_.pop_front();
    const bool known = ready_.count(request.topic) != 0;
    lock.unlock();
    Status status = known ? Status::Ok() : EnsureOne(request.topic);
    lock.lock();
    if (status.ok()) ready_.insert(request.topic);
    boost::asio::post(request.executor, [done = std::move(request.done),
                                         status = std::move(status)] { done(status); });
  }
}

Status TopicPreparer::EnsureOne(const std::string& topic) {
  const std::optional<kafka::NewTopicSpec> spec = rules_.For(topic);
  if (!spec || admin_ == nullptr) return Status::Ok();
  auto outcome = admin_->Ensure(*spec, kEnsureTimeout);
  if (!outcome.ok()) {
    SNOWCAR_LOG(kWarn, "source.topic_create_failed",
                {{"topic", topic}, {"group", spec->group}, {"error", outcome.status().message()}});
    return outcome.status();
  }
  if (*outcome == kafka::TopicAdmin::Outcome::kCreated) {
    SNOWCAR_LOG(
        kInfo, "source.topic_created",
        {{"topic", topic}, {"group", spec->group}, {"settings", kafka::DescribeSpec(*spec)}});
  }
  return Status::Ok();
}

}  // namespace snowcar::source
