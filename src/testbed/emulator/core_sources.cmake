# SPDX-License-Identifier: Apache-2.0
# The emulator's data core (query, tables, rendering, data generation), owned by emucore.
# src/testbed/emulator/CMakeLists.txt includes this file and adds the list to snowcar_testbed_emulator.
set(SNOWCAR_EMULATOR_CORE_SOURCES
  query_parse.cpp
  query_eval.cpp
  table_store_schema.cpp
  table_store_known.cpp
  table_store_row.cpp
  table_store.cpp
  table_store_list.cpp
  table_store_audit.cpp
  table_store_index.cpp
  row_render.cpp
  row_render_body.cpp
  data_gen.cpp
  data_gen_seed.cpp)
