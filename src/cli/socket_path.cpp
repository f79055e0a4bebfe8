// SPDX-License-Identifier: Apache-2.0
// Where `snowcar state` finds the socket. The --config file is read with the one .properties
// parser (config/properties.cpp), keeping only what the CLI needs from it: socket.path.
#include "cli/state_cli.h"
#include "snowcar/common/file_read.h"
#include "snowcar/config/properties.h"

namespace snowcar::cli {
namespace {

// socket.path from the config file; nullopt when the file does not set it. Lines the parser
// refuses do not matter when socket.path is among the good ones (the CLI does not validate
// the rest of the file, the sidecar does); otherwise they may be where socket.path was meant
// to be, so they are the error.
Result<std::optional<std::string>> SocketPathInConfig(const std::string& file) {
  SNOWCAR_ASSIGN_OR_RETURN(const std::string text, ReadFileBounded(file, kConfigFileLimit));
  std::vector<std::string> errors;
  const config::Properties properties = config::ParsePropertiesCollecting(text, file, errors);
  for (const config::Property& p : properties.entries) {
    if (p.key == "socket.path") return std::optional<std::string>(p.value);
  }
  if (!errors.empty()) {
    std::string message = "socket.path not found in " + file + ", which has malformed lines:";
    for (const std::string& e : errors) message += "\n  " + e;
    return Status::InvalidArgument(message);
  }
  return std::optional<std::string>();
}

}  // namespace

Result<std::string> ResolveSocketPath(
    const std::string& socket_flag, const std::string& config_file,
    const std::function<std::optional<std::string>(const char*)>& getenv) {
  if (!socket_flag.empty()) return socket_flag;
  if (!config_file.empty()) {
    SNOWCAR_ASSIGN_OR_RETURN(const auto value, SocketPathInConfig(config_file));
    if (value.has_value() && !value->empty()) return *value;
  }
  if (getenv) {
    if (auto env = getenv("SNOWCAR_SOCKET_PATH"); env.has_value() && !env->empty()) return *env;
  }
  return std::string("/var/run/snowcar/snowcar.sock");
}

}  // namespace snowcar::cli
