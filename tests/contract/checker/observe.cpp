// SPDX-License-Identifier: Apache-2.0
#include "checker/observe.h"

#include <curl/curl.h>
#include <librdkafka/rdkafka.h>

#include <memory>

#include "support/kafka_client.h"

namespace snowcar::contract {
namespace {

struct HandleFree {
  void operator()(rd_kafka_t* rk) const {
    if (rk != nullptr) rd_kafka_destroy(rk);
  }
};
using Handle = std::unique_ptr<rd_kafka_t, HandleFree>;

Result<Handle> Consumer(const std::string& bootstrap, const std::string& group,
                        bool read_committed = false) {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), err, sizeof err);
  // assign() never joins the group: the id only names the consumer queue.
  rd_kafka_conf_set(conf, "group.id", group.c_str(), err, sizeof err);
  rd_kafka_conf_set(conf, "enable.auto.commit", "false", err, sizeof err);
  // The end of a partition is where its read stops: under read_committed the last offsets
  // below the watermark may be transaction markers or aborted records, never delivered.
  rd_kafka_conf_set(conf, "enable.partition.eof", "true", err, sizeof err);
  rd_kafka_conf_set(conf, "isolation.level", read_committed ? "read_committed" : "read_uncommitted",
                    err, sizeof err);
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
  if (rk == nullptr) {
    rd_kafka_conf_destroy(conf);
    return Status::Internal(std::string("consumer: ") + err);
  }
  rd_kafka_poll_set_consumer(rk);
  return Handle(rk);
}

Result<int> Partitions(rd_kafka_t* rk, const std::string& topic, int timeout_ms) {
  rd_kafka_topic_t* t = rd_kafka_topic_new(rk, topic.c_str(), nullptr);
  const rd_kafka_metadata_t* md = nullptr;
  rd_kafka_resp_err_t err = rd_kafka_metadata(rk, 0, t, &md, timeout_ms);
  rd_kafka_topic_destroy(t);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return Status::Unavailable("metadata of " + topic + ": " + rd_kafka_err2str(err));
  }
  int n = md->topic_cnt == 1 && md->topics[0].err == RD_KAFKA_RESP_ERR_NO_ERROR
              ? md->topics[0].partition_cnt
              : 0;
  rd_kafka_metadata_destroy(md);
  if (n <= 0) return Status::NotFound("topic " + topic + " does not exist");
  return n;
}

size_t Append(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

}  // namespace

Result<TopicDump> ReadTopic(const std::string& bootstrap, const std::string& topic,
                            std::chrono::milliseconds timeout, bool read_committed) {
  SNOWCAR_ASSIGN_OR_RETURN(Handle rk, Consumer(bootstrap, "contract-reader", read_committed));
  const int ms = static_cast<int>(timeout.count());
  SNOWCAR_ASSIGN_OR_RETURN(int partitions, Partitions(rk.get(), topic, ms));
  TopicDump dump;
  dump.topic = topic;
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(partitions);
  std::map<int32_t, int64_t> pending;  // partition -> high watermark still to reach
  for (int p = 0; p < partitions; ++p) {
    int64_t low = 0;
    int64_t high = 0;
    rd_kafka_resp_err_t err =
        rd_kafka_query_watermark_offsets(rk.get(), topic.c_str(), p, &low, &high, ms);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      rd_kafka_topic_partition_list_destroy(list);
      return Status::Unavailable("watermarks of " + topic + ": " + rd_kafka_err2str(err));
    }
    dump.marks.push_back({p, low, high});
    if (high > low) {
      rd_kafka_topic_partition_list_add(list, topic.c_str(), p)->offset = low;
      pending[p] = high;
    }
  }
  rd_kafka_assign(rk.get(), list);
  rd_kafka_topic_partition_list_destroy(list);
  std::map<int32_t, std::vector<KafkaRecord>> by_partition;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!pending.empty()) {
    if (std::chrono::steady_clock::now() > deadline) {
      return Status::DeadlineExceeded("reading " + topic + ": " + std::to_string(pending.size()) +
                                      " partition(s) not read to their end");
    }
    rd_kafka_message_t* m = rd_kafka_consumer_poll(rk.get(), 200);
    if (m == nullptr) continue;
    if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      testsupport::Message copy = testsupport::CopyMessage(m);
      KafkaRecord r;
      r.partition = copy.partition;
      r.offset = copy.offset;
      r.key = std::move(copy.key);
      r.value = std::move(copy.value);
      r.headers = std::move(copy.headers);
      auto it = pending.find(m->partition);
      if (it != pending.end() && m->offset + 1 >= it->second) pending.erase(it);
      by_partition[m->partition].push_back(std::move(r));
    } else if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      // Under read_committed the end is the last stable offset, which a transaction still
      // open holds below the watermark read first: what lies past it is not readable yet.
      auto it = pending.find(m->partition);
      if (it != pending.end() && (read_committed || m->offset >= it->second)) pending.erase(it);
    }
    rd_kafka_message_destroy(m);
  }
  for (auto& [p, records] : by_partition) {
    for (auto& r : records) dump.records.push_back(std::move(r));
  }
  return dump;
}

Result<std::map<int32_t, int64_t>> GroupOffsets(const std::string& bootstrap,
                                                const std::string& group, const std::string& topic,
                                                int partitions) {
  SNOWCAR_ASSIGN_OR_RETURN(Handle rk, Consumer(bootstrap, group));
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(partitions);
  for (int i = 0; i < partitions; ++i) rd_kafka_topic_partition_list_add(list, topic.c_str(), i);
  std::map<int32_t, int64_t> out;
  rd_kafka_resp_err_t err = rd_kafka_committed(rk.get(), list, 10000);
  if (err == RD_KAFKA_RESP_ERR_NO_ERROR) {
    for (int i = 0; i < list->cnt; ++i) {
      if (list->elems[i].offset >= 0) out[list->elems[i].partition] = list->elems[i].offset;
    }
  }
  rd_kafka_topic_partition_list_destroy(list);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
    return Status::Unavailable("committed offsets of " + group + ": " + rd_kafka_err2str(err));
  }
  return out;
}

Result<HttpAnswer> HttpGet(const std::string& url) {
  CURL* curl = curl_easy_init();
  HttpAnswer answer;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, 20000L);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, Append);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &answer.body);
  const CURLcode rc = curl_easy_perform(curl);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &answer.status);
  curl_easy_cleanup(curl);
  if (rc != CURLE_OK) return Status::Unavailable("GET " + url + ": " + curl_easy_strerror(rc));
  return answer;
}

Result<std::vector<boost::json::object>> EmulatorRows(const std::string& emulator_url,
                                                      const std::string& table) {
  SNOWCAR_ASSIGN_OR_RETURN(HttpAnswer a, HttpGet(emulator_url + "/_emulator/snapshot/" + table));
  if (a.status != 200) return Status::Internal("snapshot of " + table + ": " + a.body);
  boost::system::error_code ec;
  auto v = boost::json::parse(a.body, ec);
  if (ec || !v.is_object() || !v.as_object().contains("result")) {
    return Status::Internal("snapshot of " + table + " is not JSON");
  }
  std::vector<boost::json::object> out;
  for (const auto& row : v.as_object().at("result").as_array()) {
    if (row.is_object()) out.push_back(row.as_object());
  }
  return out;
}

Result<Journal> EmulatorJournal(const std::string& emulator_url) {
  SNOWCAR_ASSIGN_OR_RETURN(HttpAnswer a, HttpGet(emulator_url + "/_emulator/journal?since=0"));
  if (a.status != 200) return Status::Internal("journal: " + a.body);
  boost::system::error_code ec;
  auto v = boost::json::parse(a.body, ec);
  if (ec || !v.is_object()) return Status::Internal("journal is not JSON");
  Journal out;
  for (const auto& e : v.as_object().at("entries").as_array()) {
    const auto& o = e.as_object();
    JournalEntry j;
    j.seq = static_cast<uint64_t>(o.at("seq").to_number<int64_t>());
    j.method = std::string(o.at("method").as_string());
    j.target = std::string(o.at("target").as_string());
    j.status = static_cast<int>(o.at("status").to_number<int64_t>());
    out.entries.push_back(std::move(j));
  }
  out.complete = out.entries.empty() || out.entries.front().seq == 1;
  return out;
}

std::map<std::string, int64_t> AcceptedWrites(const Journal& journal, const std::string& table,
                                              const std::string& method) {
  std::map<std::string, int64_t> out;
  for (const auto& e : journal.entries) {
    if (e.method != method || e.status < 200 || e.status > 299) continue;
    // /api/now/table/<table>/<sys_id>[?...], or under /api/now/v1/ and /api/now/v2/.
    const std::string marker = "table/" + table + "/";
    const size_t at = e.target.find(marker);
    if (at == std::string::npos) continue;
    std::string id = e.target.substr(at + marker.size());
    id = id.substr(0, id.find('?'));
    ++out[id];
  }
  return out;
}

std::optional<std::string> RegistrySchema(const std::string& registry_url, int32_t id) {
  auto a = HttpGet(registry_url + "/schemas/ids/" + std::to_string(id));
  if (!a.ok() || a->status != 200) return std::nullopt;
  boost::system::error_code ec;
  auto v = boost::json::parse(a->body, ec);
  if (ec || !v.is_object()) return std::nullopt;
  const auto* s = v.as_object().if_contains("schema");
  if (s == nullptr || !s->is_string()) return std::nullopt;
  return std::string(s->as_string());
}

}  // namespace snowcar::contract
