// SPDX-License-Identifier: Apache-2.0
#include "transaction_error.h"

#include <string>

#include "client_config.h"

namespace snowcar::kafka::internal {

TransactionResult Classify(rd_kafka_error_t* error, std::string_view call) {
  if (error == nullptr) return {};
  const rd_kafka_resp_err_t code = rd_kafka_error_code(error);
  std::string message = "Kafka transaction " + std::string(call) +
                        " failed: " + Clean(rd_kafka_error_string(error)) + " (" +
                        rd_kafka_err2name(code) + ")";
  TransactionResult out;
  // Fencing shows as a fatal error whose code names it; a fatal error of any other cause
  // leaves the id free for a new producer.
  const bool fenced = code == RD_KAFKA_RESP_ERR__FENCED ||
                      code == RD_KAFKA_RESP_ERR_PRODUCER_FENCED ||
                      code == RD_KAFKA_RESP_ERR_INVALID_PRODUCER_EPOCH;
  if (fenced) {
    out.kind = TransactionResult::Kind::kFenced;
    out.status = Status::FailedPrecondition(std::move(message));
  } else if (rd_kafka_error_is_fatal(error)) {
    out.kind = TransactionResult::Kind::kFatal;
    out.status = Status::Internal(std::move(message));
  } else if (rd_kafka_error_txn_requires_abort(error)) {
    out.kind = TransactionResult::Kind::kAbortable;
    out.status = Status::Unavailable(std::move(message));
  } else if (rd_kafka_error_is_retriable(error)) {
    out.kind = TransactionResult::Kind::kRetriable;
    out.status = Status::Unavailable(std::move(message));
  } else {
    // Neither retriable nor abortable (an unsupported broker, missing ACLs): the producer
    // cannot go on as it is.
    out.kind = TransactionResult::Kind::kFatal;
    out.status = Status::FailedPrecondition(std::move(message));
  }
  rd_kafka_error_destroy(error);
  return out;
}

}  // namespace snowcar::kafka::internal
