// SPDX-License-Identifier: Apache-2.0
#include "support/kafka_client.h"

#include <algorithm>
#include <thread>

namespace snowcar::testsupport {
namespace {

using Clock = std::chrono::steady_clock;

int RemainingMs(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return static_cast<int>(std::max<int64_t>(0, left.count()));
}

// Builds a conf from defaults + overrides; names the property librdkafka rejected.
Result<rd_kafka_conf_t*> MakeConf(const KafkaConfig& defaults, const KafkaConfig& overrides) {
  KafkaConfig all = defaults;
  for (const auto& [k, v] : overrides) all[k] = v;
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  char errstr[512];
  for (const auto& [k, v] : all) {
    if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), errstr, sizeof errstr) != RD_KAFKA_CONF_OK) {
      rd_kafka_conf_destroy(conf);
      return Status::InvalidArgument("kafka property '" + k + "': " + errstr);
    }
  }
  return conf;
}

Result<KafkaHandle> MakeHandle(rd_kafka_type_t type, rd_kafka_conf_t* conf) {
  char errstr[512];
  rd_kafka_t* rk = rd_kafka_new(type, conf, errstr, sizeof errstr);
  if (rk == nullptr) {
    rd_kafka_conf_destroy(conf);
    return Status::InvalidArgument(std::string("cannot create kafka client: ") + errstr);
  }
  return KafkaHandle(rk);
}

}  // namespace

Message CopyMessage(const rd_kafka_message_t* m) {
  Message out;
  out.topic = rd_kafka_topic_name(m->rkt);
  out.partition = m->partition;
  out.offset = m->offset;
  if (m->key != nullptr) out.key.emplace(static_cast<const char*>(m->key), m->key_len);
  if (m->payload != nullptr) {
    out.value.emplace(static_cast<const char*>(m->payload), m->len);
  }
  rd_kafka_headers_t* hdrs = nullptr;
  if (rd_kafka_message_headers(m, &hdrs) == RD_KAFKA_RESP_ERR_NO_ERROR) {
    const char* name = nullptr;
    const void* value = nullptr;
    size_t size = 0;
    for (size_t i = 0;
         rd_kafka_header_get_all(hdrs, i, &name, &value, &size) == RD_KAFKA_RESP_ERR_NO_ERROR;
         ++i) {
      out.headers.emplace_back(name, value != nullptr
                                         ? std::string(static_cast<const char*>(value), size)
                                         : std::string());
    }
  }
  out.timestamp_ms = rd_kafka_message_timestamp(m, &out.timestamp_type);
  return out;
}

KafkaHandle GroupHandle(const std::string& bootstrap, const std::string& group) {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), err, sizeof err);
  rd_kafka_conf_set(conf, "group.id", group.c_str(), err, sizeof err);
  rd_kafka_conf_set(conf, "enable.auto.commit", "false", err, sizeof err);
  return KafkaHandle(rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err));
}

Result<std::vector<int64_t>> CommittedOffsets(const std::string& bootstrap,
                                              const std::string& group, const std::string& topic,
                                              int partitions) {
  auto rk = GroupHandle(bootstrap, group);
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(partitions);
  for (int i = 0; i < partitions; ++i) rd_kafka_topic_partition_list_add(list, topic.c_str(), i);
  const rd_kafka_resp_err_t err = rd_kafka_committed(rk.get(), list, 10000);
  std::vector<int64_t> out(partitions, -1);
  for (int i = 0; i < list->cnt; ++i) {
    const auto& e = list->elems[i];
    if (e.offset >= 0) out[e.partition] = e.offset;
  }
  rd_kafka_topic_partition_list_destroy(list);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return Status::Unavailable(std::string("committed offsets: ") + rd_kafka_err2str(err));
  }
  return out;
}

Status CommitOffsets(const std::string& bootstrap, const std::string& group,
                     const std::string& topic, const std::vector<int64_t>& offsets) {
  auto rk = GroupHandle(bootstrap, group);
  rd_kafka_topic_partition_list_t* list =
      rd_kafka_topic_partition_list_new(static_cast<int>(offsets.size()));
  for (size_t i = 0; i < offsets.size(); ++i) {
    if (offsets[i] < 0) continue;
    rd_kafka_topic_partition_list_add(list, topic.c_str(), static_cast<int32_t>(i))->offset =
        offsets[i];
  }
  rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR_NO_ERROR;
  if (list->cnt > 0) err = rd_kafka_commit(rk.get(), list, 0);
  rd_kafka_topic_partition_list_destroy(list);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return Status::Internal(std::string("commit: ") + rd_kafka_err2str(err));
  }
  return Status::Ok();
}

std::optional<std::string> Message::Header(const std::string& name) const {
  for (const auto& [k, v] : headers) {
    if (k == name) return v;
  }
  return std::nullopt;
}

void KafkaHandleDeleter::operator()(rd_kafka_t* rk) const { rd_kafka_destroy(rk); }

std::vector<OutMessage> NumberedMessages(int first, int n) {
  std::vector<OutMessage> out;
  out.reserve(static_cast<size_t>(n));
  for (int i = first; i < first + n; ++i) {
    OutMessage m;
    m.key = "key-" + std::to_string(i);
    m.value = "value-" + std::to_string(i);
    m.headers = {{"seq", std::to_string(i)}};
    out.push_back(std::move(m));
  }
  return out;
}

// --- TestProducer ------------------------------------------------------------------------------

Result<std::unique_ptr<TestProducer>> TestProducer::Create(const std::string& bootstrap,
                                                           const KafkaConfig& config) {
  SNOWCAR_ASSIGN_OR_RETURN(rd_kafka_conf_t * conf, MakeConf({{"bootstrap.servers", bootstrap},
                                                             {"enable.idempotence", "true"},
                                                             {"acks", "all"},
                                                             {"linger.ms", "5"}},
                                                            config));
  std::unique_ptr<TestProducer> p(new TestProducer());
  rd_kafka_conf_set_dr_msg_cb(conf, &TestProducer::OnDelivery);
  rd_kafka_conf_set_opaque(conf, p.get());
  SNOWCAR_ASSIGN_OR_RETURN(p->rk_, MakeHandle(RD_KAFKA_PRODUCER, conf));
  return p;
}

TestProducer::~TestProducer() {
  // Give in-flight messages a moment; a test that cared already flushed.
  if (rk_) rd_kafka_flush(rk_.get(), 1000);
}

void TestProducer::OnDelivery(rd_kafka_t* /*rk*/, const rd_kafka_message_t* msg, void* opaque) {
  auto* self = static_cast<TestProducer*>(opaque);
  DeliveryReport r;
  r.error = msg->err;
  r.partition = msg->partition;
  r.offset = msg->offset;
  if (msg->key != nullptr) r.key.assign(static_cast<const char*>(msg->key), msg->key_len);
  std::lock_guard<std::mutex> lock(self->mu_);
  self->reports_.push_back(std::move(r));
}

Status TestProducer::Produce(const std::string& topic, const OutMessage& m) {
  while (true) {
    rd_kafka_headers_t* hdrs = rd_kafka_headers_new(m.headers.size());
    for (const auto& [k, v] : m.headers) {
      rd_kafka_header_add(hdrs, k.data(), static_cast<ssize_t>(k.size()), v.data(),
                          static_cast<ssize_t>(v.size()));
    }
    // The producev macros cast their arguments textually: give them plain variables.
    const void* key = m.key ? m.key->data() : nullptr;
    const size_t key_len = m.key ? m.key->size() : 0;
    void* value = m.value ? const_cast<char*>(m.value->data()) : nullptr;
    const size_t value_len = m.value ? m.value->size() : 0;
    const int32_t partition = m.partition;
    const int64_t timestamp = m.timestamp_ms;
    const rd_kafka_resp_err_t err = rd_kafka_producev(
        rk_.get(), RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(partition),
        RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_KEY(key, key_len),
        RD_KAFKA_V_VALUE(value, value_len), RD_KAFKA_V_TIMESTAMP(timestamp),
        RD_KAFKA_V_HEADERS(hdrs), RD_KAFKA_V_END);
    if (err == RD_KAFKA_RESP_ERR_NO_ERROR) return Status::Ok();  // headers now owned by rk
    rd_kafka_headers_destroy(hdrs);
    if (err != RD_KAFKA_RESP_ERR__QUEUE_FULL) {
      return Status::Unavailable("produce to '" + topic + "': " + rd_kafka_err2str(err));
    }
    rd_kafka_poll(rk_.get(), 50);  // serve delivery reports to make room
  }
}

Status TestProducer::Flush(std::chrono::milliseconds timeout) {
  const rd_kafka_resp_err_t err = rd_kafka_flush(rk_.get(), static_cast<int>(timeout.count()));
  if (err == RD_KAFKA_RESP_ERR_NO_ERROR) return Status::Ok();
  return Status::DeadlineExceeded(std::to_string(rd_kafka_outq_len(rk_.get())) +
                                  " messages still undelivered after " +
                                  std::to_string(timeout.count()) + " ms");
}

Result<std::vector<DeliveryReport>> TestProducer::ProduceAll(
    const std::string& topic, const std::vector<OutMessage>& messages,
    std::chrono::milliseconds timeout) {
  SNOWCAR_RETURN_IF_ERROR(Flush(timeout));
  TakeReports();
  for (const OutMessage& m : messages) SNOWCAR_RETURN_IF_ERROR(Produce(topic, m));
  SNOWCAR_RETURN_IF_ERROR(Flush(timeout));
  return TakeReports();
}

std::vector<DeliveryReport> TestProducer::TakeReports() {
  std::lock_guard<std::mutex> lock(mu_);
  return std::exchange(reports_, {});
}

std::optional<std::string> TestProducer::FatalError() const {
  char errstr[512];
  const rd_kafka_resp_err_t err = rd_kafka_fatal_error(rk_.get(), errstr, sizeof errstr);
  if (err == RD_KAFKA_RESP_ERR_NO_ERROR) return std::nullopt;
  return std::string(rd_kafka_err2name(err)) + ": " + errstr;
}

// --- TestConsumer ------------------------------------------------------------------------------

Result<std::unique_ptr<TestConsumer>> TestConsumer::Create(const std::string& bootstrap,
                                                           const std::string& group,
                                                           const std::vector<std::string>& topics,
                                                           const KafkaConfig& config) {
  if (topics.empty()) return Status::InvalidArgument("TestConsumer: no topics to subscribe to");
  SNOWCAR_ASSIGN_OR_RETURN(rd_kafka_conf_t * conf,
                           MakeConf({{"bootstrap.servers", bootstrap},
                                     {"group.id", group},
                                     {"auto.offset.reset", "earliest"},
                                     {"enable.auto.commit", "false"},
                                     {"enable.partition.eof", "false"},
                                     // The 2.0.2 mock keeps a member that left until its
                                     // session times out and makes the next join wait for
                                     // it; 6 s (above the mock's ~3 s join delay) keeps a
                                     // consumer restart in the same group quick.
                                     {"session.timeout.ms", "6000"},
                                     {"heartbeat.interval.ms", "500"}},
                                    config));
  std::unique_ptr<TestConsumer> c(new TestConsumer());
  SNOWCAR_ASSIGN_OR_RETURN(c->rk_, MakeHandle(RD_KAFKA_CONSUMER, conf));
  rd_kafka_poll_set_consumer(c->rk_.get());
  rd_kafka_topic_partition_list_t* list =
      rd_kafka_topic_partition_list_new(static_cast<int>(topics.size()));
  for (const auto& t : topics)
    rd_kafka_topic_partition_list_add(list, t.c_str(), RD_KAFKA_PARTITION_UA);
  const rd_kafka_resp_err_t err = rd_kafka_subscribe(c->rk_.get(), list);
  rd_kafka_topic_partition_list_destroy(list);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return Status::InvalidArgument(std::string("subscribe: ") + rd_kafka_err2str(err));
  }
  return c;
}

TestConsumer::~TestConsumer() {
  if (rk_) rd_kafka_consumer_close(rk_.get());
}

Result<std::vector<Message>> TestConsumer::PollUntil(
    const std::function<bool(const std::vector<Message>&)>& done,
    std::chrono::milliseconds timeout) {
  std::vector<Message> got;
  const auto deadline = Clock::now() + timeout;
  while (!done(got)) {
    const int left = RemainingMs(deadline);
    if (left == 0) {
      return Status::DeadlineExceeded("consumer saw " + std::to_string(got.size()) +
                                      " messages in " + std::to_string(timeout.count()) +
                                      " ms without reaching its condition");
    }
    rd_kafka_message_t* m = rd_kafka_consumer_poll(rk_.get(), std::min(left, 100));
    if (m == nullptr) continue;
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      rd_kafka_message_destroy(m);
      continue;
    }
    if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      Status s = Status::Unavailable(std::string("consumer error: ") + rd_kafka_message_errstr(m));
      rd_kafka_message_destroy(m);
      return s;
    }
    got.push_back(CopyMessage(m));
    rd_kafka_message_destroy(m);
  }
  return got;
}

Result<std::vector<Message>> TestConsumer::PollCount(size_t count,
                                                     std::chrono::milliseconds timeout) {
  return PollUntil([count](const std::vector<Message>& m) { return m.size() >= count; }, timeout);
}

std::vector<Message> TestConsumer::PollFor(std::chrono::milliseconds quiet) {
  std::vector<Message> got;
  const auto deadline = Clock::now() + quiet;
  while (int left = RemainingMs(deadline)) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(rk_.get(), std::min(left, 100));
    if (m == nullptr) continue;
    if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) got.push_back(CopyMessage(m));
    rd_kafka_message_destroy(m);
  }
  return got;
}

Status TestConsumer::Commit(const std::vector<Message>& processed) {
  std::map<std::pair<std::string, int32_t>, int64_t> next;
  for (const Message& m : processed) {
    int64_t& n = next[{m.topic, m.partition}];
    n = std::max(n, m.offset + 1);
  }
  if (next.empty()) return Status::Ok();
  rd_kafka_topic_partition_list_t* list =
      rd_kafka_topic_partition_list_new(static_cast<int>(next.size()));
  for (const auto& [tp, offset] : next) {
    rd_kafka_topic_partition_list_add(list, tp.first.c_str(), tp.second)->offset = offset;
  }
  const rd_kafka_resp_err_t err = rd_kafka_commit(rk_.get(), list, /*async=*/0);
  rd_kafka_topic_partition_list_destroy(list);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return Status::Unavailable(std::string("commit: ") + rd_kafka_err2str(err));
  }
  return Status::Ok();
}

// --- One-shot helpers -------------------------------------------------------------------------

Result<std::vector<DeliveryReport>> ProduceMessages(const std::string& bootstrap,
                                                    const std::string& topic,
                                                    const std::vector<OutMessage>& messages,
                                                    std::chrono::milliseconds timeout) {
  SNOWCAR_ASSIGN_OR_RETURN(auto producer, TestProducer::Create(bootstrap));
  return producer->ProduceAll(topic, messages, timeout);
}

Result<std::vector<Message>> ConsumeMessages(const std::string& bootstrap, const std::string& group,
                                             const std::string& topic, size_t count,
                                             std::chrono::milliseconds timeout) {
  SNOWCAR_ASSIGN_OR_RETURN(auto consumer, TestConsumer::Create(bootstrap, group, {topic}));
  SNOWCAR_ASSIGN_OR_RETURN(auto messages, consumer->PollCount(count, timeout));
  SNOWCAR_RETURN_IF_ERROR(consumer->Commit(messages));
  return messages;
}

namespace {

// `read` of `topic`'s metadata entry, asked of every topic so nothing is auto-created.
Result<int> FromTopicMetadata(const std::string& bootstrap, const std::string& topic,
                              std::chrono::milliseconds timeout,
                              int (*read)(const rd_kafka_metadata_topic_t&)) {
  SNOWCAR_ASSIGN_OR_RETURN(
      rd_kafka_conf_t * conf,
      MakeConf({{"bootstrap.servers", bootstrap}, {"allow.auto.create.topics", "false"}}, {}));
  SNOWCAR_ASSIGN_OR_RETURN(KafkaHandle rk, MakeHandle(RD_KAFKA_PRODUCER, conf));
  const rd_kafka_metadata_t* md = nullptr;
  const rd_kafka_resp_err_t err = rd_kafka_metadata(rk.get(), /*all_topics=*/1, nullptr, &md,
                                                    static_cast<int>(timeout.count()));
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return Status::Unavailable(std::string("metadata: ") + rd_kafka_err2str(err));
  }
  Result<int> out = Status::NotFound("topic '" + topic + "' does not exist");
  for (int i = 0; i < md->topic_cnt; ++i) {
    if (topic == md->topics[i].topic && md->topics[i].err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      out = read(md->topics[i]);
    }
  }
  rd_kafka_metadata_destroy(md);
  return out;
}

}  // namespace

Result<int> ReplicationFactor(const std::string& bootstrap, const std::string& topic,
                              std::chrono::milliseconds timeout) {
  return FromTopicMetadata(bootstrap, topic, timeout, [](const rd_kafka_metadata_topic_t& t) {
    return t.partition_cnt > 0 ? t.partitions[0].replica_cnt : 0;
  });
}

Result<int> PartitionCount(const std::string& bootstrap, const std::string& topic,
                           std::chrono::milliseconds timeout) {
  return FromTopicMetadata(bootstrap, topic, timeout,
                           [](const rd_kafka_metadata_topic_t& t) { return t.partition_cnt; });
}

}  // namespace snowcar::testsupport
