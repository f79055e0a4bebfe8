# SPDX-License-Identifier: Apache-2.0
# The sink's running parts (consumer loop, lanes, writer, field catalog, direction, views).
set(SNOWCAR_SINK_DIRECTION_SOURCES
  call_failure.cpp
  commit_prefix.cpp
  consumer_loop.cpp
  error_path.cpp
  field_catalog.cpp
  in_flight_limit.cpp
  keyed_lane.cpp
  lane.cpp
  lane_set.cpp
  limited_client.cpp
  ordering_key.cpp
  origin_recorder.cpp
  rights_probe.cpp
  sink.cpp
  sink_direction.cpp
  sink_metrics.cpp
  sink_routes.cpp
  table_api_writer.cpp
)
