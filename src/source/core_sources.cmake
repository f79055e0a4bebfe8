# SPDX-License-Identifier: Apache-2.0
# The source's pure core (settings, keyset queries, rows, records, ack tracking).
set(SNOWCAR_SOURCE_CORE_SOURCES
  source_settings.cpp
  keyset_query.cpp
  row.cpp
  record_builder.cpp
  ack_tracker.cpp
)
