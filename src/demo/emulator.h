// SPDX-License-Identifier: Apache-2.0
// Talks to the emulator's control endpoint (/_emulator/...) over plain HTTP, with the
// product's own client (api::Client::SendTcp).
#pragma once

#include <string>
#include <vector>

#include "snowcar/common/status.h"

namespace snowcar::demo {

// Starts the emulator's live writer: other "users" creating and updating rows of `tables`
// at `rows_per_second`, half of them updates, so the source always has new versions to read.
Status StartWriter(const std::string& base_url, const std::vector<std::string>& tables,
                   int rows_per_second);

}  // namespace snowcar::demo
