// Stub until the kafka module lands.
#include "snowcar/kafka/consumer.h"
