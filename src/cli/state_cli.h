// SPDX-License-Identifier: Apache-2.0
// `snowcar state ...`: the command-line face of the socket API.
//
//   snowcar state [--socket PATH | --config FILE | --state-dir DIR] [--json] COMMAND
//     health | ready | help | cursors [TABLE] | dedup TABLE SYS_ID |
//     correlation TABLE FIELD VALUE | origin TABLE SYS_ID | reset TABLE |
//     reset-cursor TABLE [--to "YYYY-MM-DD HH:MM:SS"]
//
// reset-cursor without --to is `reset`; with --to it POSTs {"to":...} to the reset route,
// which rewinds the table's cursors and keeps its dedup entries (see routes.h).
//
// --state-dir is the offline mode: with the sidecar stopped (for instance because it
// refused a cursor whose query changed), the same state routes run in-process on the store
// opened directly. The store's single-process lock makes this fail, naming the holder, while
// a sidecar runs on that dir, so the two never write at once.
//
// The client side of the socket API, so it lives with the CLI, not in the server module
// (src/api): a library of its own (snowcar::state_cli; cmd_state.cpp only forwards) so tests
// can run it in-process against a real socket and check its output and exit code.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "snowcar/common/status.h"
#include "snowcar/state/state_store.h"

namespace snowcar::cli {

// What the CLI needs from its surroundings; tests inject their own.
struct StateCliEnv {
  // Environment lookup; null means std::getenv.
  std::function<std::optional<std::string>(const char*)> getenv;
  // Opens an existing state store for --state-dir; null makes --state-dir a usage error.
  // (This library depends only on the store's interface; the binary passes
  // state::StateStore::Open.)
  std::function<Result<std::unique_ptr<state::StateStore>>(const std::string& dir)> open_store;
};

// Exit codes: 0 ok, 1 an error answer or the socket unreachable (the message names the
// socket path), 2 a usage error. `ready` exits 1 while the sidecar is not ready, so it can
// serve as a Kubernetes exec probe. `args` excludes the "state" word itself.
int RunStateCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
                const StateCliEnv& env = {});

// The socket path: --socket, else `socket.path` in the --config file, else
// $SNOWCAR_SOCKET_PATH, else /var/run/snowcar/snowcar.sock. Arguments are those already
// parsed; an empty string means "not given". The --config file is read with the config
// module's .properties parser, but not validated as a whole: the CLI only needs socket.path,
// so a file the sidecar would refuse for another key still names its socket. A malformed
// line is an error only when socket.path is not found among the well-formed ones.
Result<std::string> ResolveSocketPath(
    const std::string& socket_flag, const std::string& config_file,
    const std::function<std::optional<std::string>(const char*)>& getenv);

}  // namespace snowcar::cli
