// SPDX-License-Identifier: Apache-2.0
// `snowcar config check|print|docs`: validate, show and document configuration without
// starting anything.
#include <algorithm>
#include <boost/json.hpp>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "cli/cmd_config_check.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "snowcar/config/config.h"
#include "snowcar/config/options.h"
#include "snowcar/config/properties.h"
#include "snowcar/schema_registry/outcomes.h"

namespace snowcar::cli {
namespace {

constexpr const char* kConfigAbout =
    "Checks, prints and documents configuration without starting anything.\n"
    "'snowcar config <subcommand> --help' describes one subcommand.";

constexpr const char* kCheckAbout =
    "Validates FILE with SNOWCAR_* environment overrides and --set overrides applied, making\n"
    "every check `snowcar run` makes before it starts; exit 0 when valid, 2 listing every\n"
    "problem otherwise.";

struct ConfigArgs {
  std::optional<std::string> file;
  std::vector<std::string> sets;
  bool json = false;
  bool no_secrets = false;
};

config::LoadRequest RequestFor(const ConfigArgs& args) {
  return config::LoadRequest{.file = args.file,
                             .sets = args.sets,
                             .env = config::EnvironFromProcess(),
                             .read_secret_files = !args.no_secrets};
}

Result<config::Config> LoadFor(const ConfigArgs& args) {
  return config::Config::Load(RequestFor(args));
}

void PrintNotes(const config::Config& cfg, std::FILE* out) {
  for (const std::string& note : cfg.notes()) std::fprintf(out, "note: %s\n", note.c_str());
  for (const std::string& warning : cfg.warnings()) {
    std::fprintf(stderr, "warning: %s\n", warning.c_str());
  }
}

int Check(const ConfigArgs& args) {
  const CheckedConfig checked = LoadAndCheck(RequestFor(args));
  if (!checked.config) {
    std::fprintf(stderr, "%s\n", checked.problems.c_str());
    return 2;
  }
  const config::Config& cfg = *checked.config;
  if (!checked.problems.empty()) {
    std::fprintf(stderr, "%s\n", checked.problems.c_str());
    PrintNotes(cfg, stderr);
    return 2;
  }
  size_t given = 0;
  for (const auto& [key, value] : cfg.Effective()) given += cfg.IsSet(key) ? 1 : 0;
  std::printf("config OK: %zu keys\n", given);
  PrintNotes(cfg, stdout);
  return 0;
}

int Print(const ConfigArgs& args) {
  auto cfg = LoadFor(args);
  if (!cfg.ok()) {
    std::fprintf(stderr, "%s\n", cfg.status().message().c_str());
    return 2;
  }
  if (args.json) {
    boost::json::object obj;
    for (const auto& [key, value] : cfg->Effective()) obj[key] = value;
    std::printf("%s\n", boost::json::serialize(obj).c_str());
  } else {
    for (const auto& [key, value] : cfg->Effective()) {
      std::printf("%s=%s\n", config::EscapePropertiesKey(key).c_str(),
                  config::EscapePropertiesValue(value).c_str());
    }
  }
  PrintNotes(*cfg, stderr);
  return 0;
}

}  // namespace

int ConfigMain(int argc, char** argv) {
  ConfigArgs args;
  std::vector<std::string> files;
  auto app = NewApp("config", kConfigAbout);
  CLI::App* check = app->add_subcommand("check", "validate FILE as `snowcar run` would");
  check->footer(kCheckAbout);
  CLI::App* print =
      app->add_subcommand("print", "show the effective value of every key (secrets as [redacted])");
  CLI::App* docs = app->add_subcommand(
      "docs", "print the Markdown reference of all keys (docs/configuration.md)");
  CLI::App* outcomes = app->add_subcommand(
      "outcomes", "print what every failure leads to, per operation (docs/outcomes.md)");
  for (CLI::App* verb : {check, print}) {
    verb->add_option("file", files, "the configuration, a Java .properties file")
        ->type_name("FILE");
    verb->add_option("--set", args.sets, "one setting, over FILE and the environment (repeatable)")
        ->type_name("key=value")
        // One value per --set, so `--set k=v FILE` leaves FILE to the positional.
        ->allow_extra_args(false);
  }
  check->add_flag("--no-secrets", args.no_secrets,
                  "open no secret <key>.file nor the files kafka.* properties name (for CI)");
  print->add_flag("--json", args.json, "print one JSON object instead of .properties lines");
  // `snowcar config help` is --help; another first word that is not a subcommand is named.
  if (argc >= 2) {
    const std::string first = argv[1];
    if (first == "help") {
      std::cout << app->help();
      return 0;
    }
    const CLI::App* verbs[] = {check, print, docs, outcomes};
    const bool known = std::any_of(std::begin(verbs), std::end(verbs),
                                   [&](const CLI::App* v) { return v->get_name() == first; });
    if (!first.starts_with("-") && !known) {
      return UsageError(*app, "unknown subcommand '" + first + "'", std::cerr);
    }
  }
  if (auto exit = ParseCommandLine(*app, argc, argv)) return *exit;
  if (files.size() > 1) {
    return UsageError(*app, "more than one FILE given ('" + files[0] + "', '" + files[1] + "')",
                      std::cerr);
  }
  if (!files.empty()) args.file = files[0];
  if (check->parsed()) return Check(args);
  if (print->parsed()) return Print(args);
  if (docs->parsed()) {
    const std::string doc = config::RenderMarkdownReference();
    std::fwrite(doc.data(), 1, doc.size(), stdout);
    return 0;
  }
  if (outcomes->parsed()) {
    const std::string doc = schema_registry::RenderOutcomesMarkdown();
    std::fwrite(doc.data(), 1, doc.size(), stdout);
    return 0;
  }
  return UsageError(*app, "missing subcommand", std::cerr);
}

}  // namespace snowcar::cli
