// SPDX-License-Identifier: Apache-2.0
#include "cli/state_cli.h"

#include <algorithm>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <cstdlib>

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

constexpr const char* kUsage =
    "usage: snowcar state [--socket PATH | --config FILE | --state-dir DIR] [--json] COMMAND\n"
    "\n"
    "commands:\n"
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
    "else /var/run/snowcar/snowcar.sock. --state-dir DIR reads (and resets) a stopped\n"
    "sidecar's state store directly instead. Exit: 0 ok, 1 error or unreachable, 2 usage.\n";

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

int Usage(std::ostream& err, const std::string& problem) {
  err << "snowcar state: " << problem << "\n\n" << kUsage;
  return 2;
}

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
  std::optional<std::string> to;
  bool json = false;
  std::vector<std::string> positional;
  bool options_done = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (options_done || arg.size() < 2 || arg[0] != '-') {
      positional.push_back(arg);
      continue;
    }
    std::string* value_of = nullptr;
    std::string name = arg;
    std::optional<std::string> inline_value;
    if (const size_t eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      name = arg.substr(0, eq);
      inline_value = arg.substr(eq + 1);
    }
    if (name == "--socket") value_of = &socket_flag;
    if (name == "--config") value_of = &config_file;
    if (name == "--state-dir") value_of = &state_dir;
    std::string to_value;
    if (name == "--to") value_of = &to_value;
    if (arg == "--") {
      options_done = true;
    } else if (arg == "-h" || arg == "--help") {
      out << kUsage;
      return 0;
    } else if (arg == "--json") {
      json = true;
    } else if (value_of != nullptr) {
      if (inline_value.has_value()) {
        *value_of = *inline_value;
      } else if (i + 1 < args.size()) {
        *value_of = args[++i];
      } else {
        return Usage(err, name + " needs a value");
      }
      if (value_of->empty()) return Usage(err, name + " needs a non-empty value");
      if (value_of == &to_value) to = to_value;
    } else {
      return Usage(err, "unknown option '" + arg + "'");
    }
  }
  if ((!socket_flag.empty()) + (!config_file.empty()) + (!state_dir.empty()) > 1) {
    return Usage(err, "give only one of --socket, --config and --state-dir");
  }
  if (!state_dir.empty() && !env.open_store) {
    return Usage(err, "--state-dir is not available in this build");
  }
  if (positional.empty()) return Usage(err, "missing command");
  const std::string command = positional[0];
  const std::vector<std::string> cargs(positional.begin() + 1, positional.end());
  const auto* spec = std::find_if(std::begin(kCommands), std::end(kCommands),
                                  [&](const Command& c) { return c.name == command; });
  if (spec == std::end(kCommands)) return Usage(err, "unknown command '" + command + "'");
  if (cargs.size() < spec->min_args || cargs.size() > spec->max_args) {
    return Usage(err, "wrong number of arguments for '" + command + "'");
  }
  for (const auto& a : cargs) {
    if (a.empty()) return Usage(err, "empty argument for '" + command + "'");
  }
  if (to.has_value() && command != "reset-cursor") {
    return Usage(err, "--to belongs to 'reset-cursor'");
  }
  if (!state_dir.empty() && (command == "health" || command == "ready" || command == "deletes")) {
    return Usage(err,
                 "'" + command + "' asks a running sidecar; it does not work with --state-dir");
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
