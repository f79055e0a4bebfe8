// SPDX-License-Identifier: Apache-2.0
#include "arrival_reader.h"

#include <unistd.h>

#include <boost/json.hpp>
#include <charconv>
#include <cstdio>
#include <unordered_set>
#include <utility>

namespace snowcar::bench {

uint64_t SequenceOf(const char* value, size_t size) {
  boost::system::error_code ec;
  const boost::json::value v = boost::json::parse(boost::json::string_view(value, size), ec);
  if (ec || !v.is_object()) return 0;
  const auto* field = v.as_object().if_contains("u_freshness_seq");
  if (field == nullptr) return 0;
  if (field->is_int64()) return static_cast<uint64_t>(field->as_int64());
  if (!field->is_string()) return 0;
  const auto& text = field->as_string();
  uint64_t seq = 0;
  const auto [end, err] = std::from_chars(text.data(), text.data() + text.size(), seq);
  return (err == std::errc() && end == text.data() + text.size()) ? seq : 0;
}

ArrivalReader::ArrivalReader(ReaderOptions options) : options_(std::move(options)) {}

ArrivalReader::~ArrivalReader() { Stop(); }

bool ArrivalReader::Start() {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  // A group of its own per reader: nothing is committed, the name only has to be free.
  static std::atomic<int> readers{0};
  const std::string group =
      "freshness-reader-" + std::to_string(::getpid()) + "-" + std::to_string(++readers);
  // fetch.wait.max.ms: how long the broker may hold a fetch that finds nothing new. A record
  // arriving meanwhile is answered at once on Apache Kafka; the short wait bounds what the
  // reader adds where it is not (librdkafka's mock answers when the wait ends).
  const std::pair<const char*, const char*> props[] = {
      {"bootstrap.servers", options_.bootstrap.c_str()},
      {"group.id", group.c_str()},
      {"enable.auto.commit", "false"},
      {"enable.partition.eof", "false"},
      {"fetch.wait.max.ms", "10"},
      {"fetch.error.backoff.ms", "10"},
      {"isolation.level", options_.read_committed ? "read_committed" : "read_uncommitted"},
      {"client.id", "freshness-reader"}};
  for (const auto& [k, v] : props) {
    if (rd_kafka_conf_set(conf, k, v, err, sizeof err) != RD_KAFKA_CONF_OK) {
      std::fprintf(stderr, "freshness reader: %s: %s\n", k, err);
      rd_kafka_conf_destroy(conf);
      return false;
    }
  }
  rk_ = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
  if (rk_ == nullptr) {
    std::fprintf(stderr, "freshness reader: rd_kafka_new: %s\n", err);
    return false;
  }
  rd_kafka_poll_set_consumer(rk_);
  rd_kafka_topic_partition_list_t* parts = rd_kafka_topic_partition_list_new(
      static_cast<int>(options_.topics.size()) * options_.partitions);
  for (const std::string& topic : options_.topics) {
    for (int p = 0; p < options_.partitions; ++p) {
      rd_kafka_topic_partition_list_add(parts, topic.c_str(), p)->offset =
          RD_KAFKA_OFFSET_BEGINNING;
    }
  }
  const rd_kafka_resp_err_t assigned = rd_kafka_assign(rk_, parts);
  rd_kafka_topic_partition_list_destroy(parts);
  if (assigned != RD_KAFKA_RESP_ERR_NO_ERROR) {
    std::fprintf(stderr, "freshness reader: assign: %s\n", rd_kafka_err2str(assigned));
    return false;
  }
  thread_ = std::thread([this] { Run(); });
  return true;
}

void ArrivalReader::Stop() {
  if (thread_.joinable()) {
    stop_ = true;
    thread_.join();
  }
  if (rk_ != nullptr) {
    rd_kafka_consumer_close(rk_);
    rd_kafka_destroy(rk_);
    rk_ = nullptr;
  }
}

void ArrivalReader::Run() {
  std::unordered_set<uint64_t> seen;
  while (!stop_) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(rk_, 50);
    if (m == nullptr) continue;
    // The stamp first: parsing the value is the reader's time, not the pipeline's.
    const auto now = std::chrono::steady_clock::now();
    if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      if (m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF) ++errors_;
      rd_kafka_message_destroy(m);
      continue;
    }
    const uint64_t seq =
        m->payload != nullptr ? SequenceOf(static_cast<const char*>(m->payload), m->len) : 0;
    rd_kafka_message_destroy(m);
    if (seq == 0) {
      ++backlog_;
      continue;
    }
    arrivals_.push_back(Arrival{
        seq, std::chrono::duration_cast<std::chrono::microseconds>(now - options_.epoch).count()});
    if (seen.insert(seq).second) distinct_ = static_cast<int64_t>(seen.size());
  }
}

}  // namespace snowcar::bench
