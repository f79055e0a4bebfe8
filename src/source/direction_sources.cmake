# The source's running parts (pollers, probe, direction, socket views, metrics).
set(SNOWCAR_SOURCE_DIRECTION_SOURCES
  source.cpp
)
