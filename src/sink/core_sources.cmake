# The sink's pure core (settings, command decoding and mapping, DLQ and reporter records).
set(SNOWCAR_SINK_CORE_SOURCES
  sink_settings.cpp
)
