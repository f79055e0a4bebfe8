# SPDX-License-Identifier: Apache-2.0
# Exactly-once delivery of the source: its settings, the per-table transaction and the
# restore of a table's state from the changelog (docs/semantics.md, "Exactly-once").
set(SNOWCAR_SOURCE_EXACTLY_ONCE_SOURCES
  exactly_once/eos_settings.cpp
  exactly_once/table_transaction.cpp
  exactly_once/poller_transaction.cpp
  exactly_once/eos_start.cpp
)
