// SPDX-License-Identifier: Apache-2.0
#include "demo/kafka.h"

#include <boost/asio/thread_pool.hpp>
#include <boost/json.hpp>
#include <future>

#include "snowcar/kafka/producer.h"
#include "snowcar/kafka/topic_reader.h"
#include "snowcar/testbed/broker/log_start.h"

namespace snowcar::demo {
namespace {

// librdkafka's own warnings (a broker briefly away while the demo stops it) would clutter the
// demo's screen; errors still show.
constexpr const char* kLogLevel = "3";

// sys_mod_count of a source record's JSON value; the whole value when it has none, so a
// record that cannot be parsed still counts as a version of its own.
std::string VersionOf(const kafka::InRecord& record) {
  std::string value = record.value.value_or("");
  boost::system::error_code ec;
  const auto parsed = boost::json::parse(value, ec);
  if (!ec && parsed.is_object()) {
    if (const auto* n = parsed.as_object().if_contains("sys_mod_count")) {
      if (n->is_string()) return std::string(n->as_string());
      if (n->is_int64()) return std::to_string(n->as_int64());
    }
  }
  return value;
}

}  // namespace

struct CommandProducer::Impl {
  // Delivery reports are posted here; declared first so it outlives the producer, whose
  // destructor cancels what is still pending.
  boost::asio::thread_pool reports{1};
  std::unique_ptr<kafka::KafkaProducer> producer;
};

CommandProducer::CommandProducer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CommandProducer::~CommandProducer() = default;

Result<std::unique_ptr<CommandProducer>> CommandProducer::Create(const std::string& bootstrap) {
  auto impl = std::make_unique<Impl>();
  kafka::ProducerOptions options;
  options.properties = {{"bootstrap.servers", bootstrap}, {"log_level", kLogLevel}};
  options.client_id = "snowcar-demo-commands";
  SNOWCAR_ASSIGN_OR_RETURN(impl->producer, kafka::KafkaProducer::Create(options));
  return std::unique_ptr<CommandProducer>(new CommandProducer(std::move(impl)));
}

Status CommandProducer::Send(const std::string& topic, const std::optional<std::string>& key,
                             const std::string& value, std::chrono::milliseconds timeout) {
  // Shared with the callback: it may run after a timed-out Send returned.
  auto report = std::make_shared<std::promise<kafka::DeliveryReport>>();
  std::future<kafka::DeliveryReport> delivered = report->get_future();
  kafka::OutRecord record;
  record.topic = topic;
  record.key = key;
  record.value = value;
  impl_->producer->Produce(std::move(record), impl_->reports.get_executor(),
                           [report](kafka::DeliveryReport r) { report->set_value(std::move(r)); });
  if (delivered.wait_for(timeout) != std::future_status::ready) {
    return Status::DeadlineExceeded("the command to " + topic + " was not acknowledged within " +
                                    std::to_string(timeout.count()) + " ms");
  }
  const kafka::DeliveryReport r = delivered.get();
  if (!r.status.ok()) {
    return Status::Unavailable("the broker refused the command to " + topic + ": " +
                               r.status.message());
  }
  return Status::Ok();
}

Result<Census> TakeCensus(const std::string& bootstrap, const std::vector<std::string>& topics,
                          const std::map<TopicPartition, int64_t>& from,
                          std::chrono::milliseconds timeout) {
  kafka::TopicReadOptions options;
  options.properties = {{"bootstrap.servers", bootstrap}, {"log_level", kLogLevel}};
  options.topics = topics;
  options.from = from;
  // A resume point the broker has dropped since (its 5 MiB per partition cap) would be out of
  // range, and the read would wait for records that never come: start at the first one held.
  SNOWCAR_ASSIGN_OR_RETURN(auto reader, broker::LogStartReader::Create(bootstrap));
  for (const auto& topic : topics) {
    SNOWCAR_ASSIGN_OR_RETURN(auto extents, reader->Read(topic, timeout));
    for (const auto& e : extents) {
      const auto it = options.from.find({e.topic, e.partition});
      if (it != options.from.end() && it->second < e.log_start) it->second = e.log_start;
    }
  }
  options.client_id = "snowcar-demo-census";
  options.timeout = timeout;
  Census census;
  for (const auto& topic : topics) census.records_per_topic[topic] += 0;
  auto ends = kafka::ReadToEnd(options, [&](const kafka::InRecord& record) {
    census.records += 1;
    census.records_per_topic[record.topic] += 1;
    census.versions[record.topic + "|" + record.key.value_or("") + "|" + VersionOf(record)] += 1;
  });
  if (!ends.ok()) return ends.status();
  census.end_offsets = std::move(*ends);
  // The first offsets again, after the read: whatever was dropped before or during it counts.
  for (const auto& topic : topics) {
    SNOWCAR_ASSIGN_OR_RETURN(auto extents, reader->Read(topic, timeout));
    census.dropped_per_topic[topic] = broker::DroppedOffsets(extents);
    census.dropped += census.dropped_per_topic[topic];
  }
  return census;
}

RestartCount CompareCensus(const Census& before, const Census& after) {
  RestartCount count;
  count.before = before.records;
  count.after = after.records;
  for (const auto& [version, n] : after.versions) {
    const bool seen_before = before.versions.count(version) > 0;
    count.re_emitted += seen_before ? n : n - 1;
  }
  return count;
}

}  // namespace snowcar::demo
