// SPDX-License-Identifier: Apache-2.0
// gzip for answers, when the emulator is asked to compress like an instance does
// (Content-Encoding: gzip when the client sends Accept-Encoding: gzip).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "testbed/emulator/emulator_http.h"

namespace snowcar::emulator {

// The gzip member for `data`, or nullopt if zlib fails.
std::optional<std::string> GzipCompress(std::string_view data);

// Compresses `response`'s body in place and sets Content-Encoding when `request` accepts
// gzip and the body is worth it (a few hundred bytes or more).
void MaybeGzip(const EmulatorRequest& request, EmulatorResponse& response);

}  // namespace snowcar::emulator
