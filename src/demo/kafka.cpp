#include "demo/kafka.h"

#include <librdkafka/rdkafka.h>

#include <atomic>
#include <boost/json.hpp>
#include <cstring>

namespace snowcar::demo {
namespace {

using Clock = std::chrono::steady_clock;

struct KafkaHandle {
  rd_kafka_t* rk = nullptr;
  ~KafkaHandle() {
    if (rk != nullptr) rd_kafka_destroy(rk);
  }
};

Result<rd_kafka_conf_t*> MakeConf(const std::map<std::string, std::string>& props) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char err[512];
  for (const auto& [k, v] : props) {
    if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK) {
      rd_kafka_conf_destroy(conf);
      return Status::InvalidArgument("kafka property " + k + ": " + err);
    }
  }
  return conf;
}

void DeliveryReport(rd_kafka_t*, const rd_kafka_message_t* msg, void* opaque) {
  auto* failed = static_cast<std::atomic<int>*>(opaque);
  if (msg->err != RD_KAFKA_RESP_ERR_NO_ERROR) failed->fetch_add(1);
}

// sys_mod_count of a source record's JSON value; the whole value when it has none, so a
// record that cannot be parsed still counts as a version of its own.
std::string VersionOf(const rd_kafka_message_t* m) {
  const std::string_view value(static_cast<const char*>(m->payload), m->payload ? m->len : 0);
  boost::system::error_code ec;
  const auto parsed = boost::json::parse(value, ec);
  if (!ec && parsed.is_object()) {
    if (const auto* n = parsed.as_object().if_contains("sys_mod_count")) {
      if (n->is_string()) return std::string(n->as_string());
      if (n->is_int64()) return std::to_string(n->as_int64());
    }
  }
  return std::string(value);
}

}  // namespace

struct CommandProducer::Impl {
  KafkaHandle handle;
  std::atomic<int> failed{0};
};

CommandProducer::CommandProducer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CommandProducer::~CommandProducer() = default;

Result<std::unique_ptr<CommandProducer>> CommandProducer::Create(const std::string& bootstrap) {
  auto impl = std::make_unique<Impl>();
  SNOWCAR_ASSIGN_OR_RETURN(rd_kafka_conf_t * conf, MakeConf({{"bootstrap.servers", bootstrap},
                                                             {"client.id", "snowcar-demo-commands"},
                                                             {"enable.idempotence", "true"},
                                                             {"log_level", "3"}}));
  rd_kafka_conf_set_dr_msg_cb(conf, DeliveryReport);
  rd_kafka_conf_set_opaque(conf, &impl->failed);
  char err[512];
  impl->handle.rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  if (impl->handle.rk == nullptr) {
    rd_kafka_conf_destroy(conf);
    return Status::Internal(std::string("kafka producer: ") + err);
  }
  return std::unique_ptr<CommandProducer>(new CommandProducer(std::move(impl)));
}

Status CommandProducer::Send(const std::string& topic, const std::optional<std::string>& key,
                             const std::string& value, std::chrono::milliseconds timeout) {
  rd_kafka_t* rk = impl_->handle.rk;
  const int failed_before = impl_->failed.load();
  // The producev macros paste their arguments into casts: plain variables only.
  const void* key_data = key.has_value() ? key->data() : nullptr;
  const size_t key_size = key.has_value() ? key->size() : 0;
  const rd_kafka_resp_err_t err = rd_kafka_producev(
      rk, RD_KAFKA_V_TOPIC(topic.c_str()),
      RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()),
      RD_KAFKA_V_KEY(key_data, key_size), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return Status::Unavailable("produce to " + topic + ": " + rd_kafka_err2str(err));
  }
  if (rd_kafka_flush(rk, static_cast<int>(timeout.count())) != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return Status::DeadlineExceeded("the command to " + topic + " was not acknowledged within " +
                                    std::to_string(timeout.count()) + " ms");
  }
  if (impl_->failed.load() != failed_before) {
    return Status::Unavailable("the broker refused the command to " + topic);
  }
  return Status::Ok();
}

Result<Census> TakeCensus(const std::string& bootstrap, const std::vector<std::string>& topics,
                          const std::map<Partition, int64_t>& from,
                          std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  const auto left_ms = [&] {
    return static_cast<int>(std::max<int64_t>(
        1, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count()));
  };
  // Partitions are assigned, not subscribed: no group join (seconds on the mock broker) and
  // nothing committed.
  SNOWCAR_ASSIGN_OR_RETURN(rd_kafka_conf_t * conf, MakeConf({{"bootstrap.servers", bootstrap},
                                                             {"group.id", "snowcar-demo-census"},
                                                             {"client.id", "snowcar-demo-census"},
                                                             {"enable.auto.commit", "false"},
                                                             {"enable.partition.eof", "false"},
                                                             {"log_level", "3"}}));
  char err[512];
  KafkaHandle consumer;
  consumer.rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
  if (consumer.rk == nullptr) {
    rd_kafka_conf_destroy(conf);
    return Status::Internal(std::string("kafka consumer: ") + err);
  }
  rd_kafka_poll_set_consumer(consumer.rk);

  Census census;
  std::map<Partition, int64_t> high;  // where each partition ends now
  rd_kafka_topic_partition_list_t* assign = rd_kafka_topic_partition_list_new(16);
  for (const auto& topic : topics) {
    rd_kafka_topic_t* rkt = rd_kafka_topic_new(consumer.rk, topic.c_str(), nullptr);
    const rd_kafka_metadata_t* md = nullptr;
    const rd_kafka_resp_err_t merr = rd_kafka_metadata(consumer.rk, 0, rkt, &md, left_ms());
    rd_kafka_topic_destroy(rkt);
    if (merr != RD_KAFKA_RESP_ERR_NO_ERROR || md->topic_cnt != 1 || md->topics[0].err != 0) {
      if (md != nullptr) rd_kafka_metadata_destroy(md);
      rd_kafka_topic_partition_list_destroy(assign);
      return Status::Unavailable("no metadata for topic " + topic + ": " + rd_kafka_err2str(merr));
    }
    for (int i = 0; i < md->topics[0].partition_cnt; ++i) {
      const int32_t p = md->topics[0].partitions[i].id;
      int64_t low = 0;
      int64_t hi = 0;
      const rd_kafka_resp_err_t werr =
          rd_kafka_query_watermark_offsets(consumer.rk, topic.c_str(), p, &low, &hi, left_ms());
      if (werr != RD_KAFKA_RESP_ERR_NO_ERROR) {
        rd_kafka_metadata_destroy(md);
        rd_kafka_topic_partition_list_destroy(assign);
        return Status::Unavailable("no offsets for " + topic + "/" + std::to_string(p) + ": " +
                                   rd_kafka_err2str(werr));
      }
      const auto it = from.find({topic, p});
      const int64_t start = it != from.end() ? it->second : low;
      census.end_offsets[{topic, p}] = start;
      census.records_per_topic[topic] += 0;
      if (start < hi) {
        high[{topic, p}] = hi;
        rd_kafka_topic_partition_list_add(assign, topic.c_str(), p)->offset = start;
      }
    }
    rd_kafka_metadata_destroy(md);
  }
  const rd_kafka_resp_err_t aerr = rd_kafka_assign(consumer.rk, assign);
  rd_kafka_topic_partition_list_destroy(assign);
  if (aerr != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return Status::Unavailable(std::string("assign: ") + rd_kafka_err2str(aerr));
  }

  size_t remaining = high.size();
  while (remaining > 0) {
    if (Clock::now() >= deadline) {
      rd_kafka_consumer_close(consumer.rk);
      return Status::DeadlineExceeded("reading the source topics took longer than " +
                                      std::to_string(timeout.count()) + " ms; " +
                                      std::to_string(remaining) + " partition(s) unfinished");
    }
    rd_kafka_message_t* m = rd_kafka_consumer_poll(consumer.rk, 100);
    if (m == nullptr) continue;
    if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      const Partition tp{rd_kafka_topic_name(m->rkt), m->partition};
      auto hit = high.find(tp);
      int64_t& end = census.end_offsets[tp];
      if (hit != high.end() && m->offset >= end && m->offset < hit->second) {
        end = m->offset + 1;
        census.records += 1;
        census.records_per_topic[tp.first] += 1;
        const std::string key(static_cast<const char*>(m->key), m->key ? m->key_len : 0);
        census.versions[tp.first + "|" + key + "|" + VersionOf(m)] += 1;
        if (end >= hit->second) --remaining;
      }
    }
    rd_kafka_message_destroy(m);
  }
  rd_kafka_consumer_close(consumer.rk);
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
