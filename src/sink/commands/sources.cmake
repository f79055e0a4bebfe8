# SPDX-License-Identifier: Apache-2.0
# The sink's commands room (settings, command decoding and mapping, DLQ and reporter records):
# its own library's list, and the fuzz targets' (tests/fuzz/CMakeLists.txt).
set(SNOWCAR_SINK_COMMANDS_SOURCES
  sink_settings.cpp
  command.cpp
  command_framed.cpp
  command_json.cpp
  command_text.cpp
  command_routing.cpp
  command_sys_id.cpp
  command_operation.cpp
  command_mapping.cpp
  failure.cpp
)
