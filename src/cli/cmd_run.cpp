// SPDX-License-Identifier: Apache-2.0
// snowcar run --config FILE [--set key=value]...
#include <cstdio>
#include <cstdlib>
#include <string>

#include "cli/cmd_config_check.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "snowcar/common/log.h"
#include "snowcar/config/config.h"
#include "snowcar/kafka/static_membership.h"
#include "snowcar/runtime/replica_check.h"
#include "snowcar/runtime/sidecar.h"

namespace snowcar::cli {
namespace {

constexpr const char* kRunAbout =
    "Runs the sidecar. Values come from FILE (Java .properties), then SNOWCAR_* environment\n"
    "variables, then --set (last wins). SIGTERM, SIGINT or SIGHUP stops it gracefully (exit 0);\n"
    "SIGUSR1 and SIGUSR2 are logged and ignored; SIGPIPE is ignored.";

constexpr const char* kRunFooter =
    "Exit codes: 0 stopped cleanly, 1 failed while starting or running, 2 bad usage or config\n"
    "(also when a Kafka client refuses its properties as it is created).";

}  // namespace

int RunMain(int argc, char** argv) {
  config::LoadRequest request;
  std::string file;
  auto app = NewApp("run", kRunAbout, kRunFooter);
  app->add_option("--config", file, "the configuration, a Java .properties file")
      ->type_name("FILE");
  app->add_option("--set", request.sets, "one setting, over FILE and the environment (repeatable)")
      ->type_name("key=value")
      ->allow_extra_args(false);  // one value per --set
  if (auto exit = ParseCommandLine(*app, argc, argv)) return *exit;
  // Given, even as "": a file named "" is refused by the loader, as before.
  if (app->count("--config") > 0) request.file = file;
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
  if (std::string warning =
          runtime::SourceWithoutGroupWarning(settings, std::getenv(kafka::kPodNameVariable));
      !warning.empty()) {
    SNOWCAR_LOG(kWarn, "config.source_without_group", {{"warning", warning}});
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
