// SPDX-License-Identifier: Apache-2.0
// The one place where a rocksdb::Status becomes a snowcar::Status. The code decides what the
// caller does next: kUnavailable (retry the commit later), kResourceExhausted (disk full),
// kPermissionDenied / kDataLoss / kFailedPrecondition (stop and tell the operator).
#pragma once

#include <rocksdb/status.h>

#include <string_view>

#include "snowcar/common/status.h"

namespace snowcar::state {

// `what` says what was being done ("open", "commit cursor of incident"); the message names
// the state dir, the action and RocksDB's own explanation.
Status FromRocks(const rocksdb::Status& s, std::string_view dir, std::string_view what);

}  // namespace snowcar::state
