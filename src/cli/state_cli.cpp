// SPDX-License-Identifier: Apache-2.0
#include "cli/state_cli.h"

#include <algorithm>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <cstdlib>

#include "cli/command_line.h"
#include "cli/state_cli_render.h"
#include "snowcar/api/api_router.h"
#include "snowcar/api/client.h"
#include "snowcar/api/routes.h"
#include "snowcar/common/text.h"
#include "snowcar/common/url_encoding.h"

namespace snowcar::cli {
namespace {

using api::Client;
using api::HttpResult;

constexpr const char* kAbout =
    "Asks a running sidecar over its Unix socket, or (--state-dir) reads a stopped one's state\n"
    "store directly. Exit: 0 ok, 1 error or unreachable, 2 usage.";

constexpr const char* kCommandsHelp =
    "Commands:\n"
    "  health                         liveness and component health\n"
    "  ready                          exit 0 when ready, 1 otherwise (a probe)\n"
    "  help                           the socket's routes\n"
    "  cursors [TABLE]                stored source cursors\n"
    "  dedup TABLE SYS_ID             dedup entries of one row\n"
    "  correlation TABLE FIELD VALUE  cached sys_id for a correlation value\n"
    "  origin TABLE SYS_ID            versions of a row the sink wrote, and their commands\n"
    "  deletes [TABLE]                deletions found (audit, reconciliation) and the\n"
    "                                 reconciliation sweeps of a running sidecar\n"
    "  reset TABLE                    forget a table's cursors and dedup entries\n"
    "  reset-cursor TABLE [--to TS]   without --to: the same as reset; with\n"
    "                                 --to \"YYYY-MM-DD HH:MM:SS\" (UTC): rewind the cursor\n"
    "                                 there, keeping the dedup entries\n"
    "\n"
    "The socket is --socket, else socket.path in --config, else $SNOWCAR_SOCKET_PATH,\n"
    "else /var/run/snowcar/snowcar.sock.";

struct Command {
  std::string_view name;
  size_t min_args;
  size_t max_args;
};

constexpr Command kCommands[] = {
    {"health", 0, 0}, {"ready", 0, 0},       {"help", 0, 0},  {"cursors", 0, 1},
    {"dedup", 2, 2},  {"correlation", 3, 3}, {"reset", 1, 1}, {"reset-cursor", 1, 1},
    {"origin", 2, 2}, {"deletes", 0, 1},
};

// The target and method for a command. Arguments are encoded, so a value holding '/' or a
// space reaches the server as one path segment.
std::pair<std::string, std::string> TargetFor(const std::string& command,
                                              const std::vector<std::string>& a) {
  if (command == "health") return {"GET", "/v1/health"};
  if (command == "ready") return {"GET", "/v1/ready"};
  if (command == "help") return {"GET", "/help"};
  if (command == "cursors") {
    return {"GET", a.empty() ? "/v1/state/cursors" : "/v1/state/cursors/" + PercentEncode(a[0])};
  }
  if (command == "dedup") {
    return {"GET", "/v1/state/dedup/" + PercentEncode(a[0]) + "?sys_id=" + PercentEncode(a[1])};
  }
  if (command == "deletes") {
    return {"GET", a.empty() ? "/v1/source/tables" : "/v1/source/tables/" + PercentEncode(a[0])};
  }
  if (command == "correlation") {
    return {"GET", "/v1/state/correlation/" + PercentEncode(a[0]) + "/" + PercentEncode(a[1]) +
                       "/" + PercentEncode(a[2])};
  }
  if (command == "origin") {
    return {"GET", "/v1/state/origin/" + PercentEncode(a[0]) + "/" + PercentEncode(a[1])};
  }
  return {"POST", "/v1/state/cursors/" + PercentEncode(a[0]) + "/reset"};
}

}  // namespace

namespace {

// The answer to one command, from the socket or, offline, from the routes run in-process on
// a store opened directly. `source` names where it came from for error messages.
Result<HttpResult> Fetch(const std::string& method, const std::string& target,
                         const std::string& body, const std::string& socket,
                         const std::string& state_dir, const StateCliEnv& env,
                         std::string& source) {
  if (state_dir.empty()) {
    source = socket;
    return Client().Send(socket, method, target, body);
  }
  source = "state dir " + state_dir;
  SNOWCAR_ASSIGN_OR_RETURN(std::unique_ptr<state::StateStore> store, env.open_store(state_dir));
  api::ApiRouter router;
  SNOWCAR_RETURN_IF_ERROR(api::RegisterStateRoutes(router, *store));
  const api::ApiResponse response = router.Handle(method, target, body);
  HttpResult result;
  result.status = response.status;
  result.content_type = response.content_type;
  result.body = response.body;
  result.headers = response.headers;
  return result;
}

}  // namespace

int RunStateCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
                const StateCliEnv& env) {
  std::function<std::optional<std::string>(const char*)> getenv = env.getenv;
  if (!getenv) {
    getenv = [](const char* name) -> std::optional<std::string> {
      const char* v = std::getenv(name);
      if (v == nullptr) return std::nullopt;
      return std::string(v);
    };
  }
  std::string socket_flag, config_file, state_dir;
  std::string to_value;
  bool json = false;
  std::vector<std::string> positional;
  auto app = NewApp("state", kAbout, kCommandsHelp);
  app->add_option("--socket", socket_flag, "the sidecar's Unix socket")
      ->type_name("PATH")
      ->check(NonEmpty());
  app->add_option("--config", config_file, "take the socket from socket.path in this file")
      ->type_name("FILE")
      ->check(NonEmpty());
  app->add_option("--state-dir", state_dir,
                  "read (and reset) a stopped sidecar's state store in DIR instead")
      ->type_name("DIR")
      ->check(NonEmpty());
  app->add_option("--to", to_value, "reset-cursor: rewind the cursor to this UTC time")
      ->type_name("\"YYYY-MM-DD HH:MM:SS\"")
      ->check(NonEmpty());
  app->add_flag("--json", json, "print the socket's JSON answer as it is");
  app->add_option("COMMAND", positional, "the command (below) and its arguments")->type_name("");
  if (auto exit = ParseCommandLine(*app, args, out, err)) return *exit;
  std::optional<std::string> to;
  if (app->count("--to") > 0) to = to_value;
  const auto refuse = [&](const std::string& problem) { return UsageError(*app, problem, err); };
  if ((!socket_flag.empty()) + (!config_file.empty()) + (!state_dir.empty()) > 1) {
    return refuse("give only one of --socket, --config and --state-dir");
  }
  if (!state_dir.empty() && !env.open_store) {
    return refuse("--state-dir is not available in this build");
  }
  if (positional.empty()) return refuse("missing command");
  const std::string command = positional[0];
  const std::vector<std::string> cargs(positional.begin() + 1, positional.end());
  const auto* spec = std::find_if(std::begin(kCommands), std::end(kCommands),
                                  [&](const Command& c) { return c.name == command; });
  if (spec == std::end(kCommands)) return refuse("unknown command '" + command + "'");
  if (cargs.size() < spec->min_args || cargs.size() > spec->max_args) {
    return refuse("wrong number of arguments for '" + command + "'");
  }
  for (const auto& a : cargs) {
    if (a.empty()) return refuse("empty argument for '" + command + "'");
  }
  if (to.has_value() && command != "reset-cursor") {
    return refuse("--to belongs to 'reset-cursor'");
  }
  if (!state_dir.empty() && (command == "health" || command == "ready" || command == "deletes")) {
    return refuse("'" + command + "' asks a running sidecar; it does not work with --state-dir");
  }

  std::string socket;
  if (state_dir.empty()) {
    auto resolved = ResolveSocketPath(socket_flag, config_file, getenv);
    if (!resolved.ok()) {
      err << "snowcar state: " << resolved.status().message() << "\n";
      return 1;
    }
    socket = *resolved;
  }
  const auto [method, target] = TargetFor(command, cargs);
  std::string request_body;
  if (to.has_value()) request_body = boost::json::serialize(boost::json::object{{"to", *to}});
  std::string source;
  auto answer = Fetch(method, target, request_body, socket, state_dir, env, source);
  if (!answer.ok()) {
    err << "snowcar state: " << answer.status().message() << "\n";
    return 1;
  }
  boost::json::value body;
  bool parsed = false;
  if (answer->content_type.rfind("application/json", 0) == 0) {
    boost::system::error_code ec;
    body = boost::json::parse(answer->body, ec);
    parsed = !ec;
  }
  if (answer->status != 200) {
    if (json) out << answer->body;
    std::string message = answer->body;
    if (parsed && body.is_object()) {
      if (const auto* e = body.as_object().if_contains("error"); e && e->is_object()) {
        if (const auto* m = e->as_object().if_contains("message"); m && m->is_string()) {
          message = std::string(m->as_string());
        }
      }
    }
    err << "snowcar state: " << message << " (HTTP " << answer->status << " from " << source
        << ")\n";
    return 1;
  }
  if (json || !parsed) {
    out << answer->body;
    if (!answer->body.empty() && answer->body.back() != '\n') out << "\n";
    return 0;
  }
  RenderHuman(command, body, out);
  return 0;
}

}  // namespace snowcar::cli
