// SPDX-License-Identifier: Apache-2.0
// The sidecar configuration the demo runs: both directions against its own emulator and
// broker, in the style of docs/examples/source-and-sink.properties.
#pragma once

#include <string>
#include <vector>

#include "snowcar/common/status.h"

namespace snowcar::demo {

// Topic names the demo and its sidecar agree on.
inline constexpr char kCommandTopic[] = "snow.commands";
inline constexpr char kDeadLetterTopic[] = "snow.commands.dlq";
inline constexpr char kCommandTable[] = "incident";
inline constexpr char kCorrelationField[] = "correlation_id";
inline std::string SourceTopic(const std::string& table) { return "snow." + table; }

struct SidecarSetup {
  std::string snow_url;
  std::string bootstrap;
  std::vector<std::string> tables;
  std::string state_dir;
  std::string socket_path;
};

// The properties text (what `snowcar run --config` reads).
std::string SidecarProperties(const SidecarSetup& setup);
Status WriteFile(const std::string& path, const std::string& text);

}  // namespace snowcar::demo
