# SPDX-License-Identifier: Apache-2.0
# Typed records (snow.source.schema.mode=typed): sys_dictionary types, value parsing, the
# json_typed / json_schema / avro encoders (avro-c), the protobuf encoder (libprotobuf, through
# snowcar::protobuf), and the per-table types keeper.
set(SNOWCAR_SOURCE_TYPED_SOURCES
  column_types.cpp
  super_class_walk.cpp
  typed_value.cpp
  typed_record.cpp
  avro_datum.cpp
  protobuf_record.cpp
  typed_protobuf.cpp
  typed_table.cpp
  typed_poller.cpp
  typed_deletes.cpp
)
