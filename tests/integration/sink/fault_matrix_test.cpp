// SPDX-License-Identifier: Apache-2.0
// The outcome matrix (docs/outcomes.md) proven on the wire: each failure row is made by the
// emulator's fault knobs (or a URL nothing usable answers at) and met by the real libcurl
// TableClient over a real socket, the real writer, lanes and error path, and a real Kafka
// producer dead-lettering into the embedded broker. Every sink column of the row (CREATE
// under each ambiguity policy, PATCH, PUT, DELETE, the correlation lookup) runs under
// behavior.on.api.errors = fail, log and ignore, each with a partition's lane and under key
// ordering: 42 cells at once, one table each (so the fault rules of one cell never touch
// another), one emulator for the row.
//
// Each cell must end as the decision table says:
//   success       the offset is reported done and the write is in the emulator;
//   hold / pause  the lane waits and retries the same record (RETRIES_EXHAUSTED or PRODUCE /
//                 INSTANCE_UNAVAILABLE), reports nothing done and dead-letters nothing; once
//                 the fault is cleared it completes with the write applied;
//   record error  exactly one record in the DLQ topic for the cell; `fail` stops the lane
//                 at the record, `log` and `ignore` report its offset done.
// And for every cell: no offset is reported done over a write the emulator does not hold
// (unless the cell is a record error), and the requests it sent are bounded (counted in the
// emulator's journal, per lane try).
//
// What a real socket cannot make: "drop before send" (the kernel takes the request's bytes
// before any server could refuse them, so the client always counts it as sent). The row
// `drop before apply` closes the connection after reading the request without running it:
// for the client a drop after send, for the data the harder case (nothing was written).
#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>

#include <array>
#include <boost/asio/io_context.hpp>
#include <boost/json.hpp>
#include <cctype>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sink/lanes/error_path.h"
#include "sink/lanes/keyed_lane.h"
#include "sink/lanes/lane.h"
#include "sink/lanes/sink_metrics.h"
#include "sink/writer/in_flight_limit.h"
#include "sink/writer/limited_client.h"
#include "sink/writer/table_api_writer.h"
#include "snowcar/common/log.h"
#include "snowcar/kafka/producer.h"
#include "snowcar/servicenow/curl_table_client.h"
#include "snowcar/servicenow/outcome_table.h"
#include "snowcar/state/state_store.h"
#include "snowcar/testbed/emulator/emulator_server.h"
#include "support/broker_fixture.h"
#include "support/temp_dir.h"
#include "support/wait.h"
#include "unit/sink_lanes/outcome_end.h"
#include "unit/sink_lanes/sink_lanes_util.h"

namespace snowcar::sinkit {
namespace {

using namespace std::chrono_literals;
using emulator::FaultKind;
using emulator::FaultRule;
using servicenow::Action;
using servicenow::CallPurpose;
using servicenow::FailureCase;
using sinktest::End;
using sinktest::EndName;
using sinktest::EndOf;
using testsupport::WaitFor;

constexpr int kMaxAttempts = 3;

// How a row is made on the wire.
enum class Wire {
  kRule,     // a fault rule on the cell's table and method
  kTls,      // https:// to the emulator's plain port
  kRefused,  // a port nothing listens on
  kDns,      // a name that does not resolve
  kKafka,    // the Table API answers; Kafka refuses every produce
};

struct Recipe {
  std::string_view row;     // the catalogue row whose outcome the cell must have
  std::string_view name;    // the test's name (the row, unless the wire differs)
  Wire wire = Wire::kRule;  //
  FaultRule rule = {};      // kRule: the rule; scope and trigger are filled per cell
  bool once = false;        // the fault meets one request only
  bool applies = true;      // kRule: the request takes effect despite the fault
  // kRule: the rule for DELETE when the row's fault cannot happen to a DELETE as it is (a
  // DELETE's answer has no body to cut short): an answer showing it, not applied.
  std::optional<FaultRule> delete_rule = std::nullopt;
};

const FailureCase& Row(std::string_view name) {
  for (const auto& f : servicenow::FailureCatalogue()) {
    if (f.name == name) return f;
  }
  ADD_FAILURE() << "no catalogue row " << name;
  return servicenow::FailureCatalogue()[0];
}

FaultRule Answer(std::string_view row) {
  const FailureCase& f = Row(row);
  FaultRule r;
  r.kind = FaultKind::kAnswer;
  r.status = f.http_status;
  r.body = std::string(f.body);
  return r;
}

FaultRule Kind(FaultKind kind, int status = 503, int64_t retry_after = 1) {
  FaultRule r;
  r.kind = kind;
  r.status = status;
  r.retry_after_seconds = retry_after;
  return r;
}

FaultRule Stall() {
  FaultRule r = Kind(FaultKind::kApplyThenStall);
  r.delay_ms = 1500;  // the client gives up after snow.http.request.timeout.ms (below)
  return r;
}

std::vector<Recipe> Recipes() {
  return {
      {"drop after send", "drop before apply", Wire::kRule, Kind(FaultKind::kDropBeforeApply),
       false, false},
      {"drop after send", "drop after send", Wire::kRule, Kind(FaultKind::kApplyThenDrop)},
      {"timeout after apply", "timeout after apply", Wire::kRule, Stall()},
      {"400", "400", Wire::kRule, Answer("400"), false, false},
      {"401 once", "401 once", Wire::kRule, Answer("401 once"), true, false},
      {"401 after refresh", "401 after refresh", Wire::kRule, Answer("401 after refresh"), false,
       false},
      {"403", "403", Wire::kRule, Kind(FaultKind::kForbidden), false, false},
      {"404", "404", Wire::kRule, Answer("404"), false, false},
      {"409", "409", Wire::kRule, Answer("409"), false, false},
      {"429 with Retry-After", "429 with Retry-After", Wire::kRule,
       Kind(FaultKind::kRateLimit, 0, 1), false, false},
      {"429 without Retry-After", "429 without Retry-After", Wire::kRule,
       Kind(FaultKind::kRateLimit, 0, -1), false, false},
      {"500", "500", Wire::kRule, Kind(FaultKind::kServerError, 500), false, false},
      {"502", "502", Wire::kRule, Kind(FaultKind::kServerError, 502), false, false},
      {"503", "503", Wire::kRule, Kind(FaultKind::kServerError, 503), false, false},
      {"504", "504", Wire::kRule, Answer("504"), false, false},
      {"malformed 2xx", "malformed 2xx", Wire::kRule, Kind(FaultKind::kMalformedJson), false, true,
       Answer("malformed 2xx")},
      {"200 with an error body", "200 with an error body", Wire::kRule,
       Answer("200 with an error body"), false, false},
      {"202", "202", Wire::kRule, Answer("202"), false, false},
      {"TLS failure", "TLS failure", Wire::kTls},
      {"connection refused", "connection refused", Wire::kRefused},
      {"DNS failure", "DNS failure", Wire::kDns},
      {"Kafka produce failure", "Kafka produce failure", Wire::kKafka},
  };
}

std::string MethodName(CallPurpose purpose) {
  switch (purpose) {
    case CallPurpose::kGetPage:
    case CallPurpose::kLookup:
    case CallPurpose::kSchemaById:
      return "GET";
    case CallPurpose::kCreateRetry:
    case CallPurpose::kCreateFailAmbiguous:
    case CallPurpose::kCreateCorrelation:
    case CallPurpose::kRegisterSchema:
      return "POST";
    case CallPurpose::kPatch:
    case CallPurpose::kPut:
    case CallPurpose::kDelete:
      return std::string(servicenow::CallPurposeName(purpose));  // their heading is the method
  }
  return "GET";
}

// One cell: a lane with its own settings, writer and error path, writing its own table.
struct Cell {
  CallPurpose purpose = CallPurpose::kPatch;
  sink::ApiErrorBehavior behavior = sink::ApiErrorBehavior::kFail;
  std::string name;   // for messages
  std::string table;  // u_fm_<n>
  std::string topic;  // the lane's (in-memory) topic: the DLQ record names it
  std::string value;  // the short_description the command writes
  End expected = End::kSuccess;
  Action action = Action::kSuccess;

  sink::SinkSettings settings;
  std::unique_ptr<sink::InFlightLimit> limit;
  std::unique_ptr<sink::LimitedClient> limited;
  std::unique_ptr<sink::TableApiWriter> writer;
  std::unique_ptr<sink::SinkMetrics> metrics;
  std::unique_ptr<sink::ErrorPath> error_path;
  std::shared_ptr<sink::PartitionLane> lane;

  // What the lane reported. Its events run under the lane's lock and take `mu`: hold `mu`
  // only to copy these (Read), never while calling into the lane.
  std::mutex mu;
  std::vector<int64_t> completed;
  int failed = 0;
  // Whether the write was in the emulator at the moment the lane reported the offset done.
  std::optional<bool> applied_when_done;

  struct Reported {
    std::vector<int64_t> completed;
    int failed = 0;
    std::optional<bool> applied_when_done;
  };
  Reported Read() {
    std::lock_guard lock(mu);
    return {completed, failed, applied_when_done};
  }
};

std::string_view BehaviorName(sink::ApiErrorBehavior b) {
  switch (b) {
    case sink::ApiErrorBehavior::kFail:
      return "fail";
    case sink::ApiErrorBehavior::kLog:
      return "log";
    case sink::ApiErrorBehavior::kIgnore:
      return "ignore";
  }
  return "?";
}

class FaultMatrix : public testsupport::SharedBrokerTest<FaultMatrix>,
                    public ::testing::WithParamInterface<Recipe> {
 protected:
  void TearDown() override {
    for (auto& cell : cells_) {
      if (cell->lane) cell->lane->Abandon();
    }
    if (client_) client_->Stop();
    pool_.Stop();
    cells_.clear();
    if (producer_) producer_->Close(2s);
    if (emulator_) emulator_->Stop();
    (void)broker().ClearRequestErrors(broker::ApiKey::kProduce);
  }

  // Is the cell's write in the emulator now?
  bool Applied(const Cell& cell);
  // Journal entries (requests) for the cell's table.
  size_t Requests(const Cell& cell);
  // DLQ records per originating topic, read from the start of the DLQ topic until its end.
  std::map<std::string, int> DlqByTopic(size_t at_least);

  testsupport::TempDir dir_{"fault-matrix"};
  std::unique_ptr<state::StateStore> store_;  // the correlation cache of every cell
  sinktest::Pool pool_{2};
  std::unique_ptr<emulator::EmulatorServer> emulator_;
  std::unique_ptr<servicenow::CurlTableClient> client_;
  std::unique_ptr<kafka::KafkaProducer> producer_;
  std::string dlq_topic_;
  std::vector<std::unique_ptr<Cell>> cells_;
};

bool FaultMatrix::Applied(const Cell& cell) {
  auto schema = emulator_->store().Schema(cell.table);
  auto rows = emulator_->store().Snapshot(cell.table);
  if (schema == nullptr || !rows.ok()) return false;
  std::optional<size_t> desc;
  std::optional<size_t> sys_id;
  for (size_t i = 0; i < schema->size(); ++i) {
    if (schema->field(i).name == "short_description") desc = i;
    if (schema->field(i).name == "sys_id") sys_id = i;
  }
  if (!desc || !sys_id) return false;
  int with_value = 0;
  bool seeded_row = false;
  for (const auto& row : *rows) {
    if (row->Get(*sys_id) == sinktest::SysId(1)) seeded_row = true;
    if (row->Get(*desc) == cell.value) ++with_value;
  }
  if (cell.purpose == CallPurpose::kDelete) return !seeded_row;
  return with_value >= 1;
}

size_t FaultMatrix::Requests(const Cell& cell) {
  const std::string path = "/api/now/table/" + cell.table;
  size_t n = 0;
  for (const auto& e : emulator_->journal().All()) {
    if (e.target.rfind(path, 0) == 0) ++n;
  }
  return n;
}

std::map<std::string, int> FaultMatrix::DlqByTopic(size_t at_least) {
  std::map<std::string, int> out;
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap().c_str(), err, sizeof err);
  rd_kafka_conf_set(conf, "group.id", testsupport::UniqueName("dlq-reader").c_str(), err,
                    sizeof err);
  rd_kafka_conf_set(conf, "enable.partition.eof", "true", err, sizeof err);
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(list, dlq_topic_.c_str(), 0)->offset =
      RD_KAFKA_OFFSET_BEGINNING;
  EXPECT_EQ(rd_kafka_assign(rk, list), RD_KAFKA_RESP_ERR_NO_ERROR);
  rd_kafka_topic_partition_list_destroy(list);
  size_t seen = 0;
  bool at_end = false;
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  while ((seen < at_least || !at_end) && std::chrono::steady_clock::now() < deadline) {
    rd_kafka_message_t* m = rd_kafka_consumer_poll(rk, 100);
    if (m == nullptr) continue;
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      at_end = true;
    } else if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      at_end = false;
      ++seen;
      rd_kafka_headers_t* headers = nullptr;
      const void* value = nullptr;
      size_t size = 0;
      if (rd_kafka_message_headers(m, &headers) == RD_KAFKA_RESP_ERR_NO_ERROR &&
          rd_kafka_header_get_last(headers, "__connect.errors.topic", &value, &size) ==
              RD_KAFKA_RESP_ERR_NO_ERROR) {
        ++out[std::string(static_cast<const char*>(value), size)];
      } else {
        ++out["<no topic header>"];
      }
    }
    rd_kafka_message_destroy(m);
  }
  rd_kafka_consumer_close(rk);
  rd_kafka_destroy(rk);
  return out;
}

TEST_P(FaultMatrix, EverySinkCellOfTheRowEndsAsTheTableSays) {
  const Recipe& recipe = GetParam();
  const FailureCase& failure = Row(recipe.row);

  log::SetLevel(log::Level::kError);  // thousands of expected backoffs
  auto store = state::StateStore::Open({.dir = dir_.File("state")});
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  store_ = std::move(store).value();

  emulator::EmulatorOptions eo;
  eo.threads = 2;
  emulator_ = std::make_unique<emulator::EmulatorServer>(eo);
  ASSERT_TRUE(emulator_->Start().ok());
  const std::string plain = emulator_->base_url();  // http://127.0.0.1:<port>

  servicenow::ClientOptions co;
  co.base_url = plain;
  if (recipe.wire == Wire::kTls) co.base_url = "https://" + plain.substr(plain.find("://") + 3);
  if (recipe.wire == Wire::kRefused) co.base_url = "http://127.0.0.1:1";
  // A label longer than 63 characters: the resolver refuses it without asking any name
  // server, so the row fails at once also offline (a name server that drops repeated queries
  // for an unknown name makes each lookup wait its 5 s timeout instead).
  if (recipe.wire == Wire::kDns) co.base_url = "http://" + std::string(64, 'x') + ".invalid";
  co.username = emulator::kDefaultUser;
  co.password = emulator::kDefaultPassword;
  co.connect_timeout_ms = 1000;
  co.request_timeout_ms = 300;  // "timeout after apply": the stalled answer comes too late
  co.max_concurrent_requests = 32;
  co.adaptive_throttling = false;
  co.retry.max_attempts = kMaxAttempts;
  co.retry.initial_backoff_ms = 5;
  co.retry.max_backoff_ms = 20;
  co.retry.max_elapsed_ms = 600;  // a Retry-After of 1 s ends the client's try at once
  auto client = servicenow::CurlTableClient::Create(pool_.io(), co);
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  client_ = std::move(client).value();

  dlq_topic_ = testsupport::UniqueName("fm-dlq");
  ASSERT_TRUE(broker().CreateTopic(dlq_topic_, 1).ok());
  const std::string ok_topic = testsupport::UniqueName("fm-ok");
  ASSERT_TRUE(broker().CreateTopic(ok_topic, 1).ok());
  kafka::ProducerOptions po;
  po.properties = {
      {"bootstrap.servers", bootstrap()}, {"linger.ms", "1"}, {"message.timeout.ms", "3000"}};
  po.idempotent = false;  // a refused produce fails its record, not the producer
  auto producer = kafka::KafkaProducer::Create(po);
  ASSERT_TRUE(producer.ok()) << producer.status().ToString();
  producer_ = std::move(producer).value();
  std::shared_ptr<kafka::RecordProducer> shared_producer(producer_.get(),
                                                         [](kafka::RecordProducer*) {});
  if (recipe.wire == Wire::kKafka) {
    std::vector<rd_kafka_resp_err_t> errors(5000, RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED);
    ASSERT_TRUE(broker().PushRequestErrors(broker::ApiKey::kProduce, errors).ok());
  }

  // The cells.
  int n = 0;
  for (CallPurpose purpose : servicenow::kTableApiPurposes) {
    if (purpose == CallPurpose::kGetPage) continue;  // the source's column: see the docs
    for (int cell_kind = 0; cell_kind < 6; ++cell_kind) {
      const sink::ApiErrorBehavior behavior =
          std::array{sink::ApiErrorBehavior::kFail, sink::ApiErrorBehavior::kLog,
                     sink::ApiErrorBehavior::kIgnore}[cell_kind % 3];
      // Every cell once with a partition's lane and once under key ordering (a KeyedLane
      // applying the record on its key's lane): the table holds per key as well.
      const bool keyed = cell_kind >= 3;
      auto cell = std::make_unique<Cell>();
      ++n;
      cell->purpose = purpose;
      cell->behavior = behavior;
      cell->name = std::string(servicenow::CallPurposeName(purpose)) + " / " +
                   std::string(BehaviorName(behavior)) + (keyed ? " / key" : "");
      char table[24];
      std::snprintf(table, sizeof table, "u_fm_%02d", n);  // no name a prefix of another
      cell->table = table;
      cell->topic = "cmds-" + std::to_string(n);
      cell->value = "v-" + std::to_string(n);
      const servicenow::Outcome outcome = servicenow::OutcomeOf(failure, purpose);
      cell->action = outcome.action;
      cell->expected = EndOf(outcome.action, recipe.applies);
      ASSERT_TRUE(emulator_->store().CreateTable(cell->table).ok());
      std::vector<std::pair<std::string, std::string>> seed = {
          {"sys_id", sinktest::SysId(1)}, {"short_description", "seeded"}, {"correlation_id", ""}};
      ASSERT_TRUE(emulator_->store().Insert(cell->table, seed).ok());

      sink::SinkSettings& s = cell->settings;
      s.table = cell->table;
      s.unknown_field = sink::UnknownFieldBehavior::kPassthrough;
      s.on_api_errors = behavior;
      s.dlq_topic = dlq_topic_;
      s.max_ambiguous_posts = kMaxAttempts;
      if (recipe.wire == Wire::kKafka) s.reporter_success_topic = ok_topic;
      std::optional<std::string> key = sinktest::SysId(1);
      std::optional<boost::json::object> value =
          boost::json::object{{"short_description", cell->value}};
      sinktest::ShapeCell(purpose, "CORR-" + std::to_string(n), s, key, value);
      if (recipe.wire == Wire::kRule) {
        FaultRule rule = purpose == CallPurpose::kDelete && recipe.delete_rule ? *recipe.delete_rule
                                                                               : recipe.rule;
        rule.scope.method = MethodName(purpose);
        rule.scope.path_prefix = "/api/now/table/" + cell->table;
        rule.next_n = recipe.once ? 1 : 1000000;
        emulator_->faults().AddRule(rule);
      }

      cell->limit = std::make_unique<sink::InFlightLimit>(4);
      cell->limited = std::make_unique<sink::LimitedClient>(*client_, *cell->limit);
      cell->writer = std::make_unique<sink::TableApiWriter>(*cell->limited, store_.get(), s);
      cell->metrics = std::make_unique<sink::SinkMetrics>();
      cell->error_path = std::make_unique<sink::ErrorPath>(s, shared_producer, *cell->metrics);
      sink::LaneDeps deps;
      deps.io = &pool_.io();
      deps.settings = &cell->settings;
      deps.writer = cell->writer.get();
      deps.error_path = cell->error_path.get();
      deps.metrics = cell->metrics.get();
      deps.gate = client_->gate();  // a pause waits at the instance's gate, as in the sidecar
      deps.options.initial_backoff = 5ms;
      deps.options.max_backoff = 40ms;
      Cell* raw = cell.get();
      const auto done = [this, raw](int64_t next) {
        const bool applied = Applied(*raw);
        std::lock_guard lock(raw->mu);
        raw->completed.push_back(next);
        if (!raw->applied_when_done) raw->applied_when_done = applied;
      };
      deps.events.completed = [done](const void*, const kafka::TopicPartition&, int64_t next) {
        done(next);
      };
      deps.events.progress = [done](const void*, const kafka::TopicPartition&, int64_t next,
                                    const std::string&) { done(next); };
      deps.events.pause = [](const void*, const kafka::TopicPartition&, bool) {};
      deps.events.failed = [raw](const void*, const kafka::TopicPartition&, const sink::Failure&) {
        std::lock_guard lock(raw->mu);
        ++raw->failed;
      };
      const kafka::TopicPartition tp{cell->topic, 0};
      if (keyed) {
        cell->lane = std::make_shared<sink::KeyedLane>(
            tp, &cell->settings, deps.events, sink::KeyedLane::Options{}, pool_.io().get_executor(),
            [tp, deps](sink::LaneEvents events) {
              sink::LaneDeps key_deps = deps;
              key_deps.events = std::move(events);
              return std::make_shared<sink::Lane>(tp, key_deps);
            });
      } else {
        cell->lane = std::make_shared<sink::Lane>(tp, deps);
      }
      cell->lane->Enqueue(sinktest::Record(cell->topic, 0, 0, key, value));
      cells_.push_back(std::move(cell));
    }
  }

  // Each cell reaches its end: done, failed, or held (two lane retries; one with a 1 s
  // Retry-After to honour, or when paused: it then waits at the instance's gate).
  const int64_t held_after = failure.retry_after.empty() ? 2 : 1;
  // The lane's snapshot is taken before the cell's lock, never under it (see Cell::mu): the
  // other order deadlocks this thread with a lane reporting its end in between.
  const auto settled = [&](Cell& c) {
    const sink::LaneStatus lane = c.lane->Snapshot();
    const Cell::Reported r = c.Read();
    return !r.completed.empty() || r.failed > 0 || lane.retries >= held_after ||
           (lane.retries >= 1 && lane.last_error_class == "INSTANCE_UNAVAILABLE");
  };
  for (auto& c : cells_) {
    ASSERT_TRUE(WaitFor([&] { return settled(*c); }, 20s))
        << c->name << ": stuck; lane " << c->lane->Snapshot().last_error_class << " "
        << c->lane->Snapshot().last_error;
  }

  // What each cell did while the fault lasts.
  for (auto& c : cells_) {
    SCOPED_TRACE(c->name + " (table says " + std::string(servicenow::ActionName(c->action)) + ")");
    // Requests first, then the lane's retries: a held lane keeps trying meanwhile, and a try
    // counts as a retry only once it failed, so a count read after the snapshot could include
    // a try the snapshot does not (17 requests against 3 tries of 5 in one CI run).
    const size_t requests = Requests(*c);
    const sink::LaneStatus status = c->lane->Snapshot();
    const Cell::Reported r = c->Read();  // not held while calling into the lane
    End seen = End::kHold;
    if (r.failed > 0) {
      seen = End::kRecordError;
    } else if (!r.completed.empty()) {
      // A record error under log/ignore completes too: the DLQ tells them apart (below).
      seen = c->expected == End::kRecordError ? End::kRecordError : End::kSuccess;
    } else if (status.last_error_class == "INSTANCE_UNAVAILABLE") {
      seen = End::kPause;
    }
    EXPECT_EQ(EndName(seen), EndName(c->expected))
        << "lane: " << status.last_error_class << " " << status.last_error;
    switch (c->expected) {
      case End::kSuccess:
        EXPECT_EQ(r.completed, std::vector<int64_t>{1});
        EXPECT_EQ(r.applied_when_done, std::optional<bool>(true))
            << "an offset reported done over a write the instance does not hold";
        break;
      case End::kRecordError:
        if (c->behavior == sink::ApiErrorBehavior::kFail) {
          EXPECT_TRUE(r.completed.empty()) << "fail: no offset moves";
          EXPECT_EQ(r.failed, 1);
          EXPECT_EQ(status.state, sink::LaneState::kFailed);
        } else {
          EXPECT_EQ(r.completed, std::vector<int64_t>{1});
        }
        break;
      case End::kHold:
      case End::kPause:
        EXPECT_TRUE(r.completed.empty()) << "no offset moves while held";
        EXPECT_EQ(r.failed, 0);
        if (c->expected == End::kHold) {
          EXPECT_TRUE(status.last_error_class == "RETRIES_EXHAUSTED" ||
                      status.last_error_class == "PRODUCE")
              << status.last_error_class;
        }
        if (!failure.retry_after.empty()) {
          EXPECT_TRUE(WaitFor([&] { return c->lane->Snapshot().backoff_ms >= 1000; }, 3s))
              << "waits what Retry-After asks";
        }
        break;
    }
    // Bounded: a lane try sends at most max.attempts requests of its kind and two more (a
    // lookup create's lookup and PATCH); a DELETE whose answers are lost up to 5 in one try;
    // a lookup create whose POSTs are lost a lookup before each of max.attempts POSTs.
    const size_t tries = static_cast<size_t>(status.retries) + 1;
    size_t per_try = kMaxAttempts + 2;
    if (c->action == Action::kResendDelete) per_try = 5 * kMaxAttempts;
    if (c->action == Action::kLookupAgain) per_try = 2 * kMaxAttempts + 2;
    EXPECT_LE(requests, tries * per_try) << "requests: " << requests;
    if (c->action == Action::kResendCreate) {
      EXPECT_LE(Requests(*c), static_cast<size_t>(kMaxAttempts))
          << "re-POSTs are bounded by snow.retry.max.attempts";
    }
  }

  // The fault ends: every held cell completes by itself, with its write applied.
  emulator_->faults().Clear();
  ASSERT_TRUE(broker().ClearRequestErrors(broker::ApiKey::kProduce).ok());
  const bool instance_gone =
      recipe.wire == Wire::kTls || recipe.wire == Wire::kRefused || recipe.wire == Wire::kDns;
  for (auto& c : cells_) {
    if (c->expected != End::kHold && c->expected != End::kPause) continue;
    SCOPED_TRACE(c->name);
    if (instance_gone) {
      // Nothing answers at that URL; the gate's test shows the resume. Nothing reached the
      // emulator.
      EXPECT_EQ(Requests(*c), 0u);
      continue;
    }
    ASSERT_TRUE(WaitFor(
        [&] {
          std::lock_guard lock(c->mu);
          return !c->completed.empty();
        },
        20s))
        << "does not resume: " << c->lane->Snapshot().last_error;
    const Cell::Reported r = c->Read();
    EXPECT_EQ(r.completed, std::vector<int64_t>{1});
    EXPECT_EQ(r.applied_when_done, std::optional<bool>(true))
        << "an offset reported done over a write the instance does not hold";
  }

  // Exactly one DLQ record per record-error cell, none for the others (read back from Kafka).
  size_t record_errors = 0;
  for (auto& c : cells_) record_errors += c->expected == End::kRecordError ? 1 : 0;
  const auto dlq = DlqByTopic(record_errors);
  for (auto& c : cells_) {
    const auto it = dlq.find(c->topic);
    const int count = it == dlq.end() ? 0 : it->second;
    EXPECT_EQ(count, c->expected == End::kRecordError ? 1 : 0) << c->name;
  }
  EXPECT_EQ(dlq.count("<no topic header>"), 0u);
}

void PrintTo(const Recipe& recipe, std::ostream* os) { *os << recipe.name; }

std::string RecipeName(const ::testing::TestParamInfo<Recipe>& info) {
  std::string out = std::isdigit(static_cast<unsigned char>(info.param.name[0])) ? "http_" : "";
  for (char ch : info.param.name) {
    out += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Rows, FaultMatrix, ::testing::ValuesIn(Recipes()), RecipeName);

}  // namespace
}  // namespace snowcar::sinkit
