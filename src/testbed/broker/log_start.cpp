// SPDX-License-Identifier: Apache-2.0
#include "snowcar/testbed/broker/log_start.h"

#include <algorithm>
#include <set>
#include <utility>

#include "snowcar/common/log.h"

namespace snowcar::broker {
namespace {

// The reader's client complains while a broker is down (the fault hooks do that on purpose);
// those lines are noise next to what the watch reports.
void ReaderLogger(const rd_kafka_t* /*rk*/, int level, const char* fac, const char* buf) {
  SNOWCAR_LOG(kDebug, "broker.log_start.librdkafka",
              {{"syslog_level", level}, {"facility", fac}, {"message", buf}});
}

}  // namespace

Result<std::unique_ptr<LogStartReader>> LogStartReader::Create(const std::string& bootstrap) {
  char errstr[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set_log_cb(conf, ReaderLogger);
  // Asking about a topic must never bring it into being.
  const std::pair<const char*, std::string> settings[] = {
      {"bootstrap.servers", bootstrap},
      {"client.id", "snowcar-log-start-reader"},
      {"allow.auto.create.topics", "false"},
  };
  for (const auto& [key, value] : settings) {
    if (rd_kafka_conf_set(conf, key, value.c_str(), errstr, sizeof errstr) != RD_KAFKA_CONF_OK) {
      rd_kafka_conf_destroy(conf);
      return Status::InvalidArgument(std::string("log start reader: ") + key + ": " + errstr);
    }
  }
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
  if (rk == nullptr) {
    rd_kafka_conf_destroy(conf);  // rd_kafka_new takes it only on success
    return Status::Internal(std::string("log start reader: ") + errstr);
  }
  std::unique_ptr<LogStartReader> reader(new LogStartReader());
  reader->rk_ = rk;
  return reader;
}

LogStartReader::~LogStartReader() {
  if (rk_ != nullptr) rd_kafka_destroy(rk_);
}

Result<std::vector<PartitionExtent>> LogStartReader::Read(std::string_view topic,
                                                          std::chrono::milliseconds timeout) {
  const int timeout_ms = static_cast<int>(timeout.count());
  const rd_kafka_metadata_t* md = nullptr;
  const rd_kafka_resp_err_t err =
      rd_kafka_metadata(rk_, /*all_topics=*/1, nullptr, &md, timeout_ms);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return Status::Unavailable(std::string("metadata: ") + rd_kafka_err2str(err));
  }
  std::vector<PartitionExtent> out;
  bool found = topic.empty();
  Status failed = Status::Ok();
  for (int t = 0; t < md->topic_cnt && failed.ok(); ++t) {
    const rd_kafka_metadata_topic_t& mt = md->topics[t];
    if (!topic.empty() && topic != mt.topic) continue;
    if (mt.err != RD_KAFKA_RESP_ERR_NO_ERROR) continue;
    found = true;
    for (int p = 0; p < mt.partition_cnt; ++p) {
      PartitionExtent e{mt.topic, mt.partitions[p].id};
      const rd_kafka_resp_err_t q = rd_kafka_query_watermark_offsets(
          rk_, mt.topic, e.partition, &e.log_start, &e.log_end, timeout_ms);
      if (q != RD_KAFKA_RESP_ERR_NO_ERROR) {
        failed = Status::Unavailable("offsets of " + e.topic + " [" + std::to_string(e.partition) +
                                     "]: " + rd_kafka_err2str(q));
        break;
      }
      out.push_back(std::move(e));
    }
  }
  rd_kafka_metadata_destroy(md);
  SNOWCAR_RETURN_IF_ERROR(failed);
  if (!found) return Status::NotFound("topic '" + std::string(topic) + "' does not exist");
  return out;
}

int64_t DroppedOffsets(const std::vector<PartitionExtent>& extents) {
  int64_t sum = 0;
  for (const PartitionExtent& e : extents) sum += e.log_start;
  return sum;
}

Result<std::unique_ptr<EvictionWatch>> EvictionWatch::Start(const std::string& bootstrap,
                                                            std::chrono::milliseconds interval,
                                                            OnDropped on_dropped) {
  if (interval <= std::chrono::milliseconds::zero()) {
    return Status::InvalidArgument("eviction watch: the interval must be positive");
  }
  std::unique_ptr<EvictionWatch> watch(new EvictionWatch());
  SNOWCAR_ASSIGN_OR_RETURN(watch->reader_, LogStartReader::Create(bootstrap));
  watch->interval_ = interval;
  watch->on_dropped_ = std::move(on_dropped);
  watch->thread_ = std::thread([w = watch.get()] { w->Run(); });
  return watch;
}

EvictionWatch::~EvictionWatch() {
  {
    MutexLock lock(mu_);
    stop_ = true;
  }
  wake_.NotifyAll();
  if (thread_.joinable()) thread_.join();
}

uint64_t EvictionWatch::passes() const {
  MutexLock lock(mu_);
  return passes_;
}

void EvictionWatch::Run() {
  // A request may take up to this long; a broker taken down by a fault hook must not hold the
  // watch (and the destructor) for long.
  const auto timeout = std::min(interval_, std::chrono::milliseconds(2000));
  std::set<std::pair<std::string, int32_t>> reported;  // this thread only
  for (;;) {
    {
      MutexLock lock(mu_);
      const auto deadline = std::chrono::steady_clock::now() + interval_;
      while (!stop_ && wake_.WaitUntil(lock, deadline)) {
      }
      if (stop_) return;
    }
    auto extents = reader_->Read("", timeout);
    if (!extents.ok()) {
      // Down on purpose (fault hooks) or still starting: the next pass sees it.
      SNOWCAR_LOG(kDebug, "broker.log_start.unreadable", {{"error", extents.status().ToString()}});
    } else {
      for (const PartitionExtent& e : *extents) {
        if (e.log_start <= 0 || !reported.insert({e.topic, e.partition}).second) continue;
        SNOWCAR_LOG(kWarn, "broker.records_evicted",
                    {{"topic", e.topic},
                     {"partition", e.partition},
                     {"log_start_offset", e.log_start},
                     {"log_end_offset", e.log_end},
                     {"cap_bytes", kMockPartitionCapBytes},
                     {"cap_batches", kMockPartitionCapBatches},
                     {"message",
                      "the mock keeps at most 5 MiB of record batches per partition and has "
                      "dropped the oldest; offsets below log_start_offset are gone (reported "
                      "once per partition)"}});
        if (on_dropped_) on_dropped_(e);
      }
    }
    MutexLock lock(mu_);
    ++passes_;
  }
}

}  // namespace snowcar::broker
