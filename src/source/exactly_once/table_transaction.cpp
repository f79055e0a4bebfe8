// SPDX-License-Identifier: Apache-2.0
#include "table_transaction.h"

#include <boost/asio/post.hpp>
#include <charconv>
#include <chrono>
#include <utility>

#include "../snapshot/state_changelog.h"
#include "../snapshot/table_snapshot.h"
#include "snowcar/common/log.h"

namespace snowcar::source::exactly_once {
namespace {

using Kind = kafka::TransactionResult::Kind;

int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The records of a transaction that did not begin are refused at once, on the caller's
// strand as a delivery report would be.
void Refuse(const boost::asio::any_io_executor& executor, kafka::DeliveryCallback done,
            Status status) {
  boost::asio::post(executor, [done = std::move(done), status = std::move(status)]() mutable {
    done(kafka::DeliveryReport{.status = std::move(status)});
  });
}

// librdkafka's transaction.timeout.ms when kafka.transaction.timeout.ms is not given.
constexpr int64_t kDefaultTransactionTimeoutMs = 60000;

// Below Kafka's default 1 MB record limit, as a handoff snapshot.
constexpr size_t kStateMaxBytes = size_t{900} * 1024;

}  // namespace

// What the poller produces through: begins the transaction at the first record after a
// commit or abort, and refuses every record once the producer was fenced.
class TableTransaction::Producer final : public kafka::RecordProducer {
 public:
  explicit Producer(TableTransaction* owner) : owner_(owner) {}

  void Produce(kafka::OutRecord record, boost::asio::any_io_executor executor,
               kafka::DeliveryCallback done) override {
    std::shared_ptr<kafka::KafkaProducer> producer;
    {
      std::lock_guard lock(owner_->mu_);
      if (owner_->fenced_) {
        Refuse(executor, std::move(done),
               Status::FailedPrecondition("produce to " + record.topic +
                                          " refused: the table's transactional producer was "
                                          "fenced by another owner"));
        return;
      }
      if (!owner_->open_) {
        kafka::TransactionResult begun = owner_->producer_->BeginTransaction();
        if (!begun.ok()) {
          Refuse(executor, std::move(done), begun.status);
          return;
        }
        owner_->open_ = true;
        owner_->begun_at_ = std::chrono::steady_clock::now();
      }
      producer = owner_->producer_;
    }
    producer->Produce(std::move(record), std::move(executor), std::move(done));
  }

  Status Flush(std::chrono::milliseconds timeout) override {
    std::shared_ptr<kafka::KafkaProducer> producer;
    {
      std::lock_guard lock(owner_->mu_);
      producer = owner_->producer_;
    }
    return producer->Flush(timeout);
  }

 private:
  TableTransaction* owner_;
};

Result<std::shared_ptr<TableTransaction>> TableTransaction::Create(TransactionOptions options) {
  std::shared_ptr<TableTransaction> txn(new TableTransaction(std::move(options)));
  SNOWCAR_RETURN_IF_ERROR(txn->MakeProducer());
  return txn;
}

TableTransaction::TableTransaction(TransactionOptions options)
    : options_(std::move(options)), facade_(std::make_shared<Producer>(this)) {}

TableTransaction::~TableTransaction() {
  std::lock_guard lock(mu_);
  if (producer_) producer_->Close(std::chrono::milliseconds(0));
}

Status TableTransaction::MakeProducer() {
  kafka::ProducerOptions po;
  po.properties = options_.kafka_properties;
  po.client_id = "snowcar-source-txn";
  po.transactional_id = options_.transactional_id;
  auto created = kafka::KafkaProducer::Create(po);
  if (!created.ok()) return created.status().WithContext("transactional producer");
  std::shared_ptr<kafka::KafkaProducer> fresh(std::move(created).value());
  fresh->PrepareTopics({options_.table_topic, options_.state_topic});
  std::lock_guard lock(mu_);
  if (producer_) producer_->Close(std::chrono::milliseconds(0));
  producer_ = std::move(fresh);
  open_ = false;
  return Status::Ok();
}

std::shared_ptr<kafka::RecordProducer> TableTransaction::producer() { return facade_; }

bool TableTransaction::open() const {
  std::lock_guard lock(mu_);
  return open_;
}

bool TableTransaction::fenced() const {
  std::lock_guard lock(mu_);
  return fenced_;
}

void TableTransaction::NoteEntry(const state::DedupKey& key) { noted_.push_back(key); }

Status TableTransaction::Start(state::StateStore& store) {
  std::shared_ptr<kafka::KafkaProducer> producer;
  {
    std::lock_guard lock(mu_);
    producer = producer_;
  }
  // Fencing first: once this returns, no earlier producer of the id can commit, so the state
  // read below is the last one any of them will ever write.
  const auto deadline = std::chrono::steady_clock::now() + options_.timeout;
  kafka::TransactionResult init = producer->InitTransactions(options_.timeout);
  while (init.kind == Kind::kRetriable && std::chrono::steady_clock::now() < deadline) {
    init = producer->InitTransactions(options_.timeout);
  }
  if (!init.ok()) return init.status;

  std::map<std::string, std::string> reader = options_.kafka_properties;
  reader["isolation.level"] = "read_committed";  // an aborted state must never be restored
  SNOWCAR_ASSIGN_OR_RETURN(std::unique_ptr<StateChangelog> changelog,
                           StateChangelog::Create(reader, options_.transactional_id + ".restore"));
  SNOWCAR_RETURN_IF_ERROR(changelog->EnsureTopic(
      {.name = options_.state_topic, .partitions = 1, .compacted = true}, options_.timeout));
  // The state topic may have just been created: learn it now, not at the first commit.
  producer->PrepareTopics({options_.table_topic, options_.state_topic});
  int64_t read = 0;
  SNOWCAR_ASSIGN_OR_RETURN(std::optional<std::string> latest,
                           changelog->ReadLatest(options_.state_topic, 0, options_.transactional_id,
                                                 options_.timeout, &read));
  std::string outcome = "none";
  if (latest.has_value()) {
    SNOWCAR_ASSIGN_OR_RETURN(TableSnapshot snapshot, DecodeSnapshot(*latest));
    SNOWCAR_ASSIGN_OR_RETURN(RestoreOutcome applied,
                             ApplySnapshot(store, snapshot, options_.identity, options_.policy));
    outcome = std::string(RestoreOutcomeName(applied));
  }
  auto entries = store.DedupEntries(options_.identity);
  if (!entries.ok()) return entries.status().WithContext("dedup entries");
  committed_.assign(entries->begin(), entries->end());
  SNOWCAR_LOG(kInfo, "source.exactly_once.started",
              {{"transactional_id", options_.transactional_id},
               {"state_topic", options_.state_topic},
               {"restore", outcome},
               {"records_read", read},
               {"dedup_entries", static_cast<int64_t>(committed_.size())}});
  return Status::Ok();
}

kafka::TransactionResult TableTransaction::Commit(const state::Cursor& cursor,
                                                  boost::asio::any_io_executor executor) {
  std::shared_ptr<kafka::KafkaProducer> producer;
  {
    std::lock_guard lock(mu_);
    if (fenced_) {
      return {.kind = Kind::kFenced,
              .status = Status::FailedPrecondition("the transactional producer was fenced")};
    }
    if (!open_) {
      kafka::TransactionResult begun = producer_->BeginTransaction();
      if (!begun.ok()) return Recover(std::move(begun));
      open_ = true;
      begun_at_ = std::chrono::steady_clock::now();
    }
    producer = producer_;
  }
  // The state this transaction leaves: the committed entries and this transaction's, pruned
  // as the store prunes them (the overlap behind the cursor, then the newest window_records).
  std::deque<state::DedupKey> merged = committed_;
  merged.insert(merged.end(), noted_.begin(), noted_.end());
  const int64_t floor = cursor.ts - options_.policy.overlap_seconds;
  while (!merged.empty() && merged.front().ts < floor) merged.pop_front();
  while (merged.size() > options_.policy.window_records) merged.pop_front();
  TableSnapshot snapshot;
  snapshot.identity = options_.identity;
  snapshot.cursor = cursor;
  snapshot.dedup.assign(merged.begin(), merged.end());
  snapshot.replica = options_.transactional_id;
  snapshot.written_at_ms = WallMs();
  kafka::OutRecord state;
  state.topic = options_.state_topic;
  state.partition = 0;
  state.key = options_.transactional_id;
  state.value = EncodeSnapshot(snapshot, kStateMaxBytes);
  // Its report adds nothing: the commit fails when any record of the transaction failed.
  producer->Produce(std::move(state), std::move(executor), [](const kafka::DeliveryReport&) {});
  kafka::TransactionResult committed = producer->CommitTransaction(options_.timeout);
  if (committed.kind == Kind::kRetriable) {
    committed = producer->CommitTransaction(options_.timeout);  // librdkafka allows a retry
  }
  noted_.clear();
  if (!committed.ok()) return Recover(std::move(committed));
  committed_ = std::move(merged);
  std::lock_guard lock(mu_);
  open_ = false;
  return committed;
}

kafka::TransactionResult TableTransaction::Abort() {
  noted_.clear();
  {
    std::lock_guard lock(mu_);
    if (fenced_ || !open_) return {};
  }
  return Recover({.kind = Kind::kAbortable, .status = Status::Cancelled("aborted")});
}

// After a failed step: abort what is open. A producer whose abort itself timed out (a broker
// away) is replaced: the new one's init aborts the open transaction on the broker. Fenced and
// fatal are final: a new producer would fence whoever holds the id now, so this one stops.
kafka::TransactionResult TableTransaction::Recover(kafka::TransactionResult failure) {
  std::shared_ptr<kafka::KafkaProducer> producer;
  {
    std::lock_guard lock(mu_);
    producer = producer_;
  }
  kafka::TransactionResult last = failure;
  if (last.kind == Kind::kAbortable || last.kind == Kind::kRetriable) {
    last = producer->AbortTransaction(options_.timeout);
  }
  if (last.kind == Kind::kAbortable || last.kind == Kind::kRetriable) {
    Status made = MakeProducer();
    if (made.ok()) {
      std::lock_guard lock(mu_);
      producer = producer_;
    }
    last = made.ok() ? producer->InitTransactions(options_.timeout)
                     : kafka::TransactionResult{.kind = Kind::kFatal, .status = made};
  }
  std::lock_guard lock(mu_);
  for (kafka::TransactionResult* r : {&failure, &last}) {
    if (r->kind == Kind::kFenced || r->kind == Kind::kFatal) {
      NameTimeout(*r);
      open_ = false;
      fenced_ = true;  // never produce with this id again
      return *r;
    }
  }
  open_ = false;
  if (!last.ok()) {
    fenced_ = true;  // could neither abort nor start afresh
    return {.kind = Kind::kFatal, .status = last.status};
  }
  return failure;
}

// The coordinator aborts a transaction open past transaction.timeout.ms and bumps the id's
// epoch, and librdkafka 2.0.2 then reports the producer as fenced "by a newer instance". No
// error tells that from a takeover, so the table stops either way (a new producer could fence
// a real new owner); the age of the transaction tells the operator which it likely was.
void TableTransaction::NameTimeout(kafka::TransactionResult& result) const {
  if (!open_ || result.kind != Kind::kFenced) return;
  int64_t timeout_ms = kDefaultTransactionTimeoutMs;
  if (auto it = options_.kafka_properties.find("transaction.timeout.ms");
      it != options_.kafka_properties.end()) {
    int64_t given = 0;
    const std::string& text = it->second;
    if (auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), given);
        ec == std::errc() && end == text.data() + text.size()) {
      timeout_ms = given;
    }
  }
  const auto age = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::steady_clock::now() - begun_at_)
                       .count();
  if (age < timeout_ms) return;
  result.status = Status::FailedPrecondition(
      "the transaction was open " + std::to_string(age) +
      " ms, past kafka.transaction.timeout.ms (" + std::to_string(timeout_ms) +
      "), so the broker aborted it (the process was frozen or a commit was slower than the "
      "timeout) and librdkafka reports the producer as fenced; restart the sidecar to take "
      "the table up again from its committed state: " +
      result.status.message());
}

}  // namespace snowcar::source::exactly_once
