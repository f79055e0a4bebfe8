// SPDX-License-Identifier: Apache-2.0
// Private to the kafka module: the consumer's configuration, shared by KafkaConsumer::Create
// and KafkaConsumer::CheckProperties.
#pragma once

#include <map>
#include <string>

#include "client_config.h"
#include "snowcar/kafka/consumer.h"

namespace snowcar::kafka::internal {

// Every check Create makes on the properties before a client exists: the final properties
// in `properties` and the conf built from them, or the error naming the property.
Result<ConfPtr> PrepareConsumerConf(const ConsumerOptions& options, Dropped dropped,
                                    std::map<std::string, std::string>& properties);

}  // namespace snowcar::kafka::internal
