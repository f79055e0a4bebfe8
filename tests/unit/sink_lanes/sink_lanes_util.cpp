// SPDX-License-Identifier: Apache-2.0
#include "sink_lanes_util.h"

#include <boost/asio/post.hpp>
#include <cstdio>

namespace snowcar::sinktest {

Pool::Pool(int threads) : guard_(boost::asio::make_work_guard(io_)) {
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { io_.run(); });
}

Pool::~Pool() { Stop(); }

void Pool::Stop() {
  guard_.reset();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
}

std::string SysId(int n) {
  char buf[33];
  std::snprintf(buf, sizeof buf, "%032x", n);
  return buf;
}

kafka::InRecord Record(const std::string& topic, int32_t partition, int64_t offset,
                       std::optional<std::string> key, std::optional<boost::json::object> value) {
  kafka::InRecord r;
  r.topic = topic;
  r.partition = partition;
  r.offset = offset;
  r.key = std::move(key);
  if (value) r.value = boost::json::serialize(*value);
  r.timestamp_ms = 1700000000000;
  return r;
}

void HoldingClient::Send(servicenow::InstanceRequest request, boost::asio::any_io_executor executor,
                         servicenow::Completion done) {
  std::lock_guard lock(mu_);
  if (request.request_id.empty()) request.request_id = "hold-" + std::to_string(all_.size() + 1);
  all_.push_back(request);
  held_.push_back(Held{std::move(request), std::move(executor), std::move(done)});
}

size_t HoldingClient::held() const {
  std::lock_guard lock(mu_);
  return held_.size();
}

size_t HoldingClient::sent() const {
  std::lock_guard lock(mu_);
  return all_.size();
}

std::vector<servicenow::InstanceRequest> HoldingClient::requests() const {
  std::lock_guard lock(mu_);
  return all_;
}

size_t HoldingClient::ReleaseNext(size_t n) {
  size_t released = 0;
  while (released < n) {
    Held h;
    {
      std::lock_guard lock(mu_);
      if (held_.empty()) break;
      h = std::move(held_.front());
      held_.pop_front();
    }
    servicenow::CallResult result = handler_(h.request);
    result.method = h.request.method;
    result.target = h.request.target;
    result.request_id = h.request.request_id;
    if (result.attempts == 0) result.attempts = 1;
    boost::asio::post(h.executor, [done = std::move(h.done), result = std::move(result)]() mutable {
      done(std::move(result));
    });
    ++released;
  }
  return released;
}

servicenow::CallResult Ok(boost::json::object record, int status) {
  servicenow::CallResult r;
  r.http_status = status;
  r.response.kind = record.empty() ? servicenow::BodyKind::kEmpty : servicenow::BodyKind::kRecord;
  r.response.record = std::move(record);
  return r;
}

servicenow::CallResult Rows(boost::json::array rows) {
  servicenow::CallResult r;
  r.http_status = 200;
  r.response.kind = servicenow::BodyKind::kList;
  r.response.rows = std::move(rows);
  return r;
}

servicenow::CallResult Fail(servicenow::OutcomeClass klass, int status, std::string message) {
  servicenow::CallResult r;
  r.klass = klass;
  r.http_status = status;
  r.message = std::move(message);
  r.response.error_message = r.message;
  return r;
}

boost::json::object BodyOf(const servicenow::InstanceRequest& request) {
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(request.body, ec);
  if (ec || !v.is_object()) return {};
  return v.as_object();
}

std::string BodyField(const servicenow::InstanceRequest& request, const std::string& key) {
  boost::json::object body = BodyOf(request);
  const boost::json::value* v = body.if_contains(key);
  if (v == nullptr || !v->is_string()) return "<absent>";
  return std::string(v->as_string());
}

}  // namespace snowcar::sinktest
