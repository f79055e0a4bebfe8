// Stub until the source core lands.
#include "snowcar/source/source_settings.h"
