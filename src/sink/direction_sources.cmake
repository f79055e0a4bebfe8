# The sink's running parts (consumer loop, lanes, writer, field catalog, direction, views).
set(SNOWCAR_SINK_DIRECTION_SOURCES
  sink.cpp
)
