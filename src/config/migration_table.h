// SPDX-License-Identifier: Apache-2.0
// The migration section of docs/configuration.md: every key of the reference Kafka Connect
// connectors and what snowcar does with it, for someone bringing an existing properties file.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace snowcar::config {

// A reference connector key and, when snowcar's handling differs in a way a migrating user
// must know, a note saying how. Keys of the Connect framework are not listed here: every
// alias and ignored entry of the option table is added to the table automatically.
struct ReferenceKey {
  std::string_view name;
  std::string_view note = {};
};

// The reference connectors' own keys (the ServiceNow ones), in documentation order.
const std::vector<ReferenceKey>& ReferenceKeys();

// The Markdown section, starting with its `## ` heading. Each row's status comes from the
// option table: a key the table does not declare is shown as refused, so a reference key
// dropped from the table is visible in the docs (and fails the migration unit test).
std::string RenderMigrationTable();

}  // namespace snowcar::config
