// SPDX-License-Identifier: Apache-2.0
// Human-readable output of `snowcar state`: aligned tables and key: value lines.
#pragma once

#include <boost/json/value.hpp>
#include <ostream>
#include <string>

namespace snowcar::cli::internal {

// Writes the answer to `command` (the CLI word: "cursors", "dedup", ...). Unknown shapes are
// printed as JSON, so a newer server never makes the CLI fail.
void RenderHuman(const std::string& command, const boost::json::value& body, std::ostream& out);

}  // namespace snowcar::cli::internal

namespace snowcar::cli {
using internal::RenderHuman;
}
