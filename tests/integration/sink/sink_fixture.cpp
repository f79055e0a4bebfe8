// SPDX-License-Identifier: Apache-2.0
#include "sink_fixture.h"

#include <librdkafka/rdkafka.h>
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "snowcar/api/client.h"
#include "support/wait.h"

namespace snowcar::sinkit {

using namespace std::chrono_literals;

std::string SysId(int n) {
  char buf[33];
  std::snprintf(buf, sizeof buf, "5c%030x", n);
  return buf;
}

testsupport::OutMessage Command(std::optional<std::string> key,
                                std::optional<boost::json::object> value, int32_t partition,
                                testsupport::Headers headers) {
  testsupport::OutMessage m;
  m.key = std::move(key);
  if (value) m.value = boost::json::serialize(*value);
  m.partition = partition;
  m.headers = std::move(headers);
  return m;
}

void SinkIntegrationTest::SetUp() {
  SharedBrokerTest::SetUp();
  emulator_ = std::make_unique<emulator::EmulatorServer>();
  ASSERT_TRUE(emulator_->store().CreateTable(kTable).ok());
  ASSERT_TRUE(emulator_->Start().ok());
  auto producer = testsupport::TestProducer::Create(bootstrap(), {{"linger.ms", "1"}});
  ASSERT_TRUE(producer.ok()) << producer.status().ToString();
  producer_ = std::move(producer).value();
}

void SinkIntegrationTest::TearDown() {
  producer_.reset();
  if (emulator_) emulator_->Stop();
}

std::string SinkIntegrationTest::NewTopic(int partitions) {
  std::string topic = testsupport::UniqueName("cmds");
  EXPECT_TRUE(broker().CreateTopic(topic, partitions).ok());
  return topic;
}

std::string SinkIntegrationTest::NewGroup() const { return testsupport::UniqueName("sink"); }

SinkProcess SinkIntegrationTest::StartSink(const std::string& topic, const std::string& group,
                                           const std::vector<std::string>& sets,
                                           const std::string& state_name) {
  SinkProcess p;
  p.state_dir = dir_.File(state_name);
  p.socket = dir_.File(state_name + ".sock");
  testsupport::ChildOptions opts;
  opts.capture_stderr = true;
  opts.args = {"run"};
  std::vector<std::string> all = {
      "snow.url=" + emulator_->base_url(),
      "snow.auth.username=admin",
      "snow.auth.password=admin-emulator",
      "source.enabled=false",
      "sink.enabled=true",
      "state.dir=" + p.state_dir,
      "socket.path=" + p.socket,
      "log.level=info",
      "kafka.bootstrap.servers=" + bootstrap(),
      "kafka.group.id=" + group,
      "kafka.session.timeout.ms=6000",
      "kafka.auto.commit.interval.ms=200",
      "snow.sink.topics=" + topic,
      std::string("snow.sink.table=") + kTable,
      "snow.sink.unknown.field.behavior=passthrough",
      "snow.retry.max.attempts=3",
      "snow.retry.initial.backoff.ms=20",
      "snow.retry.max.backoff.ms=200",
      "shutdown.timeout.ms=5000",
  };
  // A `<key>.file` in `sets` (a password kept in a file) replaces the default `<key>`: the
  // configuration refuses a key given both ways.
  for (const auto& s : sets) {
    const std::string key = s.substr(0, s.find('='));
    if (!key.ends_with(".file")) continue;
    const std::string stem = key.substr(0, key.size() - 5) + "=";
    std::erase_if(all, [&](const std::string& d) { return d.starts_with(stem); });
  }
  all.insert(all.end(), sets.begin(), sets.end());
  for (const auto& s : all) {
    opts.args.push_back("--set");
    opts.args.push_back(s);
  }
  auto child = testsupport::ChildProcess::Spawn(SNOWCAR_BINARY, opts);
  EXPECT_TRUE(child.ok()) << child.status().ToString();
  if (!child.ok()) return p;
  p.child = std::move(child).value();
  api::Client client;
  const bool ready = testsupport::WaitFor(
      [&] {
        auto r = client.Get(p.socket, "/v1/ready");
        return r.ok() && r->status == 200;
      },
      20s, 20ms);
  EXPECT_TRUE(ready) << "the sink never became ready; stderr:\n" << p.child->Stderr();
  return p;
}

void SinkIntegrationTest::WaitAssigned(const SinkProcess& sink, size_t partitions,
                                       std::chrono::milliseconds timeout) {
  const bool assigned = testsupport::WaitFor(
      [&] { return Partitions(sink).at("partitions").as_array().size() == partitions; }, timeout,
      50ms);
  ASSERT_TRUE(assigned) << "lanes: " << boost::json::serialize(Partitions(sink));
}

void SinkIntegrationTest::StopSink(SinkProcess& sink) {
  ASSERT_NE(sink.child, nullptr);
  ASSERT_TRUE(sink.child->Signal(SIGTERM).ok());
  auto status = sink.child->Wait(20s);
  ASSERT_TRUE(status.ok()) << status.status().ToString();
  EXPECT_TRUE(status->ok()) << status->ToString() << "\n" << sink.child->Stderr();
}

std::string SinkIntegrationTest::Tail(const SinkProcess& sink) {
  if (sink.child == nullptr) return {};
  std::string err = sink.child->Stderr();
  return err.size() > 4000 ? err.substr(err.size() - 4000) : err;
}

boost::json::object SinkIntegrationTest::Partitions(const SinkProcess& sink) {
  api::Client client;
  auto r = client.Get(sink.socket, "/v1/sink/partitions");
  if (!r.ok() || r->status != 200) return boost::json::object{{"partitions", boost::json::array{}}};
  boost::system::error_code ec;
  auto v = boost::json::parse(r->body, ec);
  if (ec || !v.is_object()) return boost::json::object{{"partitions", boost::json::array{}}};
  return v.as_object();
}

int64_t SinkIntegrationTest::Metric(const SinkProcess& sink, const std::string& sample) {
  api::Client client;
  auto r = client.Get(sink.socket, "/metrics");
  if (!r.ok()) return -1;
  std::istringstream in(r->body);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(sample + " ", 0) == 0) return std::stoll(line.substr(sample.size() + 1));
  }
  return -1;
}

bool SinkIntegrationTest::WaitApplied(const SinkProcess& sink, const std::string& operation,
                                      size_t n) {
  const std::string sample = "snowcar_sink_records_total{operation=\"" + operation + "\"}";
  return testsupport::WaitFor([&] { return Metric(sink, sample) == static_cast<int64_t>(n); }, 60s,
                              50ms);
}

void SinkIntegrationTest::Produce(const std::string& topic,
                                  const std::vector<testsupport::OutMessage>& messages) {
  auto reports = producer_->ProduceAll(topic, messages, 20s);
  ASSERT_TRUE(reports.ok()) << reports.status().ToString();
  for (const auto& r : *reports) ASSERT_EQ(r.error, RD_KAFKA_RESP_ERR_NO_ERROR);
}

std::vector<int64_t> SinkIntegrationTest::Committed(const std::string& group,
                                                    const std::string& topic, int n) {
  auto offsets = testsupport::CommittedOffsets(bootstrap(), group, topic, n);
  EXPECT_TRUE(offsets.ok()) << offsets.status().message();
  return offsets.ok() ? *offsets : std::vector<int64_t>(n, -1);
}

void SinkIntegrationTest::CommitFor(const std::string& group, const std::string& topic,
                                    const std::vector<int64_t>& offsets) {
  const Status committed = testsupport::CommitOffsets(bootstrap(), group, topic, offsets);
  EXPECT_TRUE(committed.ok()) << committed.message();
}

void SinkIntegrationTest::CopyCommitted(const std::string& from_group, const std::string& to_group,
                                        const std::string& topic, int n) {
  auto from = testsupport::GroupHandle(bootstrap(), from_group);
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(n);
  for (int i = 0; i < n; ++i) rd_kafka_topic_partition_list_add(list, topic.c_str(), i);
  rd_kafka_resp_err_t err = rd_kafka_committed(from.get(), list, 10000);
  EXPECT_EQ(err, RD_KAFKA_RESP_ERR_NO_ERROR) << rd_kafka_err2str(err);
  rd_kafka_topic_partition_list_t* to_commit = rd_kafka_topic_partition_list_new(n);
  for (int i = 0; i < list->cnt; ++i) {
    const auto& e = list->elems[i];
    if (e.offset < 0) continue;
    // The list copies the metadata with the entry.
    rd_kafka_topic_partition_t* c =
        rd_kafka_topic_partition_list_add(to_commit, e.topic, e.partition);
    c->offset = e.offset;
    if (e.metadata_size > 0) {
      c->metadata = std::malloc(e.metadata_size);
      std::memcpy(c->metadata, e.metadata, e.metadata_size);
      c->metadata_size = e.metadata_size;
    }
  }
  if (to_commit->cnt > 0) {
    auto to = testsupport::GroupHandle(bootstrap(), to_group);
    err = rd_kafka_commit(to.get(), to_commit, 0);
    EXPECT_EQ(err, RD_KAFKA_RESP_ERR_NO_ERROR) << rd_kafka_err2str(err);
  }
  rd_kafka_topic_partition_list_destroy(to_commit);
  rd_kafka_topic_partition_list_destroy(list);
}

std::vector<testsupport::Message> SinkIntegrationTest::ReadTopic(const std::string& topic,
                                                                 size_t count) {
  std::vector<testsupport::Message> out;
  auto rk = testsupport::GroupHandle(bootstrap(), testsupport::UniqueName("reader"));
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(list, topic.c_str(), 0)->offset = RD_KAFKA_OFFSET_BEGINNING;
  EXPECT_EQ(rd_kafka_assign(rk.get(), list), RD_KAFKA_RESP_ERR_NO_ERROR);
  rd_kafka_topic_partition_list_destroy(list);
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while (out.size() < count && std::chrono::steady_clock::now() < deadline) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(rk.get(), 100);
    if (m == nullptr) continue;
    if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      testsupport::Message msg;
      msg.topic = topic;
      msg.partition = m->partition;
      msg.offset = m->offset;
      if (m->key) msg.key = std::string(static_cast<const char*>(m->key), m->key_len);
      if (m->payload) {
        msg.value = std::string(static_cast<const char*>(m->payload), m->len);
      }
      rd_kafka_headers_t* headers = nullptr;
      if (rd_kafka_message_headers(m, &headers) == RD_KAFKA_RESP_ERR_NO_ERROR) {
        const char* name = nullptr;
        const void* value = nullptr;
        size_t size = 0;
        for (size_t i = 0; rd_kafka_header_get_all(headers, i, &name, &value, &size) ==
                           RD_KAFKA_RESP_ERR_NO_ERROR;
             ++i) {
          msg.headers.emplace_back(
              name, value ? std::string(static_cast<const char*>(value), size) : std::string());
        }
      }
      out.push_back(std::move(msg));
    }
    rd_kafka_message_destroy(m);
  }
  rd_kafka_consumer_close(rk.get());
  return out;
}

std::vector<std::map<std::string, std::string>> SinkIntegrationTest::Rows() {
  std::vector<std::map<std::string, std::string>> out;
  auto schema = emulator_->store().Schema(kTable);
  auto rows = emulator_->store().Snapshot(kTable);
  EXPECT_TRUE(rows.ok());
  if (!rows.ok() || schema == nullptr) return out;
  // Rows may have been written under a schema that learned fields later: read by position
  // with the newest schema (fields are only ever appended).
  for (const auto& row : *rows) {
    std::map<std::string, std::string> m;
    for (size_t i = 0; i < schema->size(); ++i) m[schema->field(i).name] = std::string(row->Get(i));
    out.push_back(std::move(m));
  }
  return out;
}

std::optional<std::map<std::string, std::string>> SinkIntegrationTest::Row(
    const std::string& sys_id) {
  for (auto& row : Rows()) {
    if (row["sys_id"] == sys_id) return row;
  }
  return std::nullopt;
}

void SinkIntegrationTest::Seed(const std::string& sys_id,
                               std::vector<std::pair<std::string, std::string>> fields) {
  fields.emplace_back("sys_id", sys_id);
  auto r = emulator_->store().Insert(kTable, fields);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
}

std::vector<emulator::JournalEntry> SinkIntegrationTest::Journal() {
  return emulator_->journal().All();
}

std::string SinkIntegrationTest::JournalText() {
  std::string out;
  for (const auto& e : Journal()) {
    out += e.method + " " + e.target + " -> " + std::to_string(e.status) +
           (e.fault.empty() ? "" : " (" + e.fault + ")") + "\n";
  }
  return out;
}

}  // namespace snowcar::sinkit
