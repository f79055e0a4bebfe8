// SPDX-License-Identifier: Apache-2.0
// snowcar run --config FILE [--set key=value]...
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "cli/cmd_config_check.h"
#include "cli/commands.h"
#include "snowcar/common/log.h"
#include "snowcar/config/config.h"
#include "snowcar/runtime/sidecar.h"

namespace snowcar::cli {
namespace {

constexpr const char* kRunUsage =
    "usage: snowcar run [--config FILE] [--set key=value]...\n"
    "\n"
    "Runs the sidecar. Values come from FILE (Java .properties), then SNOWCAR_* environment\n"
    "variables, then --set (last wins). SIGTERM, SIGINT or SIGHUP stops it gracefully (exit 0);\n"
    "SIGUSR1 and SIGUSR2 are logged and ignored; SIGPIPE is ignored.\n"
    "Exit codes: 0 stopped cleanly, 1 failed while starting or running, 2 bad usage or config\n"
    "(also when a Kafka client refuses its properties as it is created).\n";

}  // namespace

int RunMain(int argc, char** argv) {
  config::LoadRequest request;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kRunUsage, stdout);
      return 0;
    }
    if ((arg == "--config" || arg == "--set") && i + 1 >= argc) {
      std::fprintf(stderr, "snowcar run: %s needs a value\n\n%s", argv[i], kRunUsage);
      return 2;
    }
    if (arg == "--config") {
      request.file = argv[++i];
    } else if (arg == "--set") {
      request.sets.emplace_back(argv[++i]);
    } else if (arg.rfind("--config=", 0) == 0) {
      request.file = std::string(arg.substr(9));
    } else if (arg.rfind("--set=", 0) == 0) {
      request.sets.emplace_back(arg.substr(6));
    } else {
      std::fprintf(stderr, "snowcar run: unknown argument '%s'\n\n%s", argv[i], kRunUsage);
      return 2;
    }
  }
  request.env = config::EnvironFromProcess();

  // Every problem in one pass, the same checks as `snowcar config check`.
  const CheckedConfig checked = LoadAndCheck(request);
  if (!checked.problems.empty()) {
    std::fprintf(stderr, "snowcar run: configuration is not valid:\n%s\n",
                 checked.problems.c_str());
    return 2;
  }
  const config::Config& cfg = *checked.config;

  runtime::SidecarSettings settings = runtime::SidecarSettings::FromConfig(cfg);
  log::SetLevel(settings.log_level);
  log::SetFormat(settings.log_format);
  for (const auto& note : cfg.notes()) SNOWCAR_LOG(kInfo, "config.note", {{"note", note}});
  for (const auto& warning : cfg.warnings()) {
    SNOWCAR_LOG(kWarn, "config.warning", {{"warning", warning}});
  }
  if (!settings.tls_verify) {
    SNOWCAR_LOG(kWarn, "config.tls_verify_disabled",
                {{"key", "snow.tls.verify"},
                 {"message", "TLS certificates of ServiceNow are NOT verified"}});
  }

  runtime::Sidecar sidecar(std::move(settings), &cfg);
  sidecar.HandleSignals();
  if (Status s = sidecar.Start(); !s.ok()) {
    std::fprintf(stderr, "snowcar run: %s\n", s.message().c_str());
    // Refused input while starting is a configuration error too (e.g. Kafka properties
    // librdkafka refuses only when it creates the client: a key that is not PEM).
    return s.code() == StatusCode::kInvalidArgument ? 2 : 1;
  }
  if (Status s = sidecar.Wait(); !s.ok()) {
    std::fprintf(stderr, "snowcar run: %s\n", s.message().c_str());
    return 1;
  }
  return 0;
}

}  // namespace snowcar::cli
