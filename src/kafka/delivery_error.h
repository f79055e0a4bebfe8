// SPDX-License-Identifier: Apache-2.0
// One place that decides what a librdkafka error code means to snowcar: retry later
// (kUnavailable), the producer was closed (kCancelled), or a permanent failure the caller must
// route to an error path (another code).
#pragma once

#include <librdkafka/rdkafka.h>

#include <cstdint>
#include <string_view>

#include "snowcar/common/status.h"

namespace snowcar::kafka::internal {

// The code a delivery report carries for `err` (kOk for NO_ERROR).
StatusCode CodeForDeliveryError(rd_kafka_resp_err_t err);

// "produce to incident/2 failed: Local: Message timed out (_MSG_TIMED_OUT)" with the code from
// CodeForDeliveryError. `partition` -1 prints as "any partition".
Status DeliveryStatus(rd_kafka_resp_err_t err, std::string_view topic, int32_t partition);

// The broker said no to the client: refused SASL credentials, a certificate that does not
// verify, or a missing ACL. Retrying cannot
// help until someone changes the credentials or the ACLs, so the owner is told
// (RebalanceListener::on_refused).
bool IsBrokerRefusal(int err);

}  // namespace snowcar::kafka::internal
