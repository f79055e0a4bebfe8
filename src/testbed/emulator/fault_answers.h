// SPDX-License-Identifier: Apache-2.0
// Answers and body changes for injected faults (see snowcar/testbed/emulator/faults.h).
#pragma once

#include <string>

#include "snowcar/common/time.h"
#include "snowcar/testbed/emulator/faults.h"
#include "testbed/emulator/emulator_http.h"

namespace snowcar::emulator {

// True for faults answered instead of the request (429, 5xx, 403): the request has no effect.
bool ReplacesRequest(FaultKind kind);

// The answer for a fault that replaces the request.
EmulatorResponse FaultAnswer(const FaultRule& rule, const std::string& method, const Clock& clock);

// Applies a fault that changes how the real answer is delivered (drop, malformed JSON,
// apply-then-drop). kTimedOutQuery is applied by the list route itself.
void ApplyDeliveryFault(const FaultRule& rule, EmulatorResponse& response);

}  // namespace snowcar::emulator
