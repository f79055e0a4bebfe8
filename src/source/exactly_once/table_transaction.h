// SPDX-License-Identifier: Apache-2.0
// One table's exactly-once delivery (docs/semantics.md, "Exactly-once"): a transactional
// producer whose id is the table's identity (eos_settings.h), so a second process polling the
// same table fences this one. A transaction holds a page's records and, as its last record,
// the table's new state (cursor + dedup entries, a TableSnapshot) on the state topic; the
// local store is written only after the commit and is a cache of that topic.
//
// Threads: Start runs on the caller's thread before the poller starts; Commit and Abort on
// the table poller's strand, where they block for the commit's round trips (a few ms to the
// transaction timeout); producer() may be called from any thread.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "snowcar/kafka/producer.h"
#include "snowcar/source/source_settings.h"
#include "snowcar/state/state_store.h"

namespace snowcar::source::exactly_once {

struct TransactionOptions {
  std::map<std::string, std::string> kafka_properties;  // kafka.*, prefix stripped
  std::string transactional_id;                         // also the state record's key
  std::string state_topic;
  std::string table_topic;  // learnt at once, so the first page does not wait for metadata
  state::CursorIdentity identity;
  state::DedupPolicy policy;
  std::chrono::milliseconds timeout{30000};  // each blocking call
};

class TableTransaction {
 public:
  static Result<std::shared_ptr<TableTransaction>> Create(TransactionOptions options);
  ~TableTransaction();

  // Blocking, before the table's first poll: fences every earlier producer of this id (its
  // open transaction is aborted), then restores the committed state from the state topic
  // into `store` when the local cursor is behind it. kFenced/kFatal and the restore's errors
  // come back as a failed Status the caller reports.
  Status Start(state::StateStore& store);

  // The producer the poller produces the table's records through: the first record after a
  // commit or abort begins the next transaction.
  std::shared_ptr<kafka::RecordProducer> producer();

  // A row version acknowledged inside the open transaction (it joins the state written at
  // the commit). Strand only.
  void NoteEntry(const state::DedupKey& key);
  // True when records were produced since the last commit or abort.
  bool open() const;
  // Strand only: writes the state record for `cursor` and commits. On kOk the caller writes
  // its store; otherwise the transaction was aborted (or the producer is fenced) and the
  // entries noted since the last commit are forgotten.
  kafka::TransactionResult Commit(const state::Cursor& cursor,
                                  boost::asio::any_io_executor executor);
  // Aborts the open transaction (a produce failed): nothing of it is visible to
  // read_committed readers. A producer that cannot abort is replaced by a new one.
  kafka::TransactionResult Abort();
  bool fenced() const;

  class Producer;

 private:
  explicit TableTransaction(TransactionOptions options);
  Status MakeProducer();
  kafka::TransactionResult Recover(kafka::TransactionResult failure);
  // REQUIRES: mu_ held. Says so in `result` when the open transaction outlived the
  // coordinator's transaction.timeout.ms, which librdkafka reports as fencing.
  void NameTimeout(kafka::TransactionResult& result) const;

  TransactionOptions options_;
  std::shared_ptr<Producer> facade_;
  mutable std::mutex mu_;
  std::shared_ptr<kafka::KafkaProducer> producer_;  // guarded by mu_ (replaced by Recover)
  bool open_ = false;                               // guarded by mu_
  std::chrono::steady_clock::time_point begun_at_;  // guarded by mu_: the open one's begin
  bool fenced_ = false;                             // guarded by mu_
  // Strand only: the committed dedup entries (what the state topic holds), oldest first, and
  // those of the open transaction.
  std::deque<state::DedupKey> committed_;
  std::vector<state::DedupKey> noted_;
};

}  // namespace snowcar::source::exactly_once
