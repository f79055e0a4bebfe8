// Stub until the kafka module lands.
#include "snowcar/kafka/producer.h"
