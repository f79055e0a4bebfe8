// Stub until the sink core lands.
#include "snowcar/sink/sink_settings.h"
