// SPDX-License-Identifier: Apache-2.0
// The exactly-once keys of the source (exactly.once.source.support, transaction.boundary*,
// snow.source.exactly.once.state.topic) read into SourceSettings, with the combinations that
// are not transactional yet refused by name (docs/semantics.md, "Exactly-once").
#pragma once

#include <string>
#include <vector>

#include "snowcar/config/config.h"
#include "snowcar/source/source_settings.h"

namespace snowcar::source::exactly_once {

// Fills the exactly-once members of `settings` (its tables already read) and appends one line
// to `errors` per refused combination. With exactly-once on, a backfill reads one range
// (backfill_parallelism = 1): parallel ranges commit their cursor out of page order.
void ReadSettings(const config::Config& config, SourceSettings& settings,
                  std::vector<std::string>& errors);

// The transactional id of a table, and the key of its state on the changelog: one identity
// per (instance, alias), so a second process polling the same table fences the first.
std::string TransactionalId(const SourceSettings& settings, const TableSettings& table);

}  // namespace snowcar::source::exactly_once
