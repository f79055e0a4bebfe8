# SPDX-License-Identifier: Apache-2.0
# The source's running parts (pollers, probe, direction, socket views, metrics).
set(SNOWCAR_SOURCE_DIRECTION_SOURCES
  poll_plan.cpp
  page_request.cpp
  echo_marker.cpp
  startup_probe.cpp
  table_poller.cpp
  table_poller_probe.cpp
  table_poller_produce.cpp
  table_poller_backfill.cpp
  table_poller_interval.cpp
  backfill_ranges.cpp
  source_direction.cpp
  source_routes.cpp
  source_metrics.cpp
  source.cpp
  table_ownership_map.cpp
  table_snapshot.cpp
  table_snapshot_deletes.cpp
  idset_changelog.cpp
  state_changelog.cpp
  table_ownership.cpp
  table_ownership_idset.cpp
  audit_stream.cpp
  deleted_row_payload.cpp
  audit_poller.cpp
  emitted_ids.cpp
  reconcile_sweep.cpp
  reconciler.cpp
  deletes_view.cpp
)

