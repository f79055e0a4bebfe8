// SPDX-License-Identifier: Apache-2.0
// `snowcar config check|print|docs`: validate, show and document configuration without
// starting anything.
#include <boost/json.hpp>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/cmd_config_check.h"
#include "cli/commands.h"
#include "snowcar/config/config.h"
#include "snowcar/config/options.h"
#include "snowcar/config/properties.h"
#include "snowcar/servicenow/outcome_table.h"

namespace snowcar::cli {
namespace {

constexpr std::string_view kConfigUsage =
    "usage: snowcar config check [FILE] [--set key=value]... [--no-secrets]\n"
    "       snowcar config print [FILE] [--set key=value]... [--json]\n"
    "       snowcar config docs\n"
    "       snowcar config outcomes\n"
    "\n"
    "check  validates FILE with SNOWCAR_* environment overrides and --set overrides applied,\n"
    "       making every check `snowcar run` makes before it starts; exit 0 when valid, 2\n"
    "       listing every problem otherwise. --no-secrets (for CI, where the mounted secrets\n"
    "       are absent): secrets' <key>.file entries and the files kafka.* properties name\n"
    "       are not opened\n"
    "print  shows the effective value of every key (secrets as [redacted])\n"
    "docs   prints the Markdown reference of all keys (docs/configuration.md)\n"
    "outcomes  prints what every failure leads to, per operation (docs/outcomes.md)\n";

struct ConfigArgs {
  std::string verb;
  std::optional<std::string> file;
  std::vector<std::string> sets;
  bool json = false;
  bool no_secrets = false;
};

int UsageError(const std::string& problem) {
  std::fprintf(stderr, "snowcar config: %s\n\n%.*s", problem.c_str(),
               static_cast<int>(kConfigUsage.size()), kConfigUsage.data());
  return 2;
}

// Returns an error text, or "" when argv parsed.
std::string Parse(int argc, char** argv, ConfigArgs& args) {
  if (argc < 2) return "missing subcommand";
  args.verb = argv[1];
  for (int i = 2; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--set") {
      if (i + 1 >= argc) return "--set needs key=value";
      args.sets.emplace_back(argv[++i]);
    } else if (arg.starts_with("--set=")) {
      args.sets.emplace_back(arg.substr(6));
    } else if (arg == "--json" && args.verb == "print") {
      args.json = true;
    } else if (arg == "--no-secrets" && args.verb == "check") {
      args.no_secrets = true;
    } else if (!arg.empty() && arg.front() == '-') {
      return "unknown option '" + std::string(arg) + "'";
    } else if (args.file) {
      return "more than one FILE given ('" + *args.file + "', '" + std::string(arg) + "')";
    } else {
      args.file = std::string(arg);
    }
  }
  if ((args.verb == "docs" || args.verb == "outcomes") && (args.file || !args.sets.empty())) {
    return args.verb + " takes no arguments";
  }
  return "";
}

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
  if (argc >= 2 && (std::string_view(argv[1]) == "--help" || std::string_view(argv[1]) == "-h" ||
                    std::string_view(argv[1]) == "help")) {
    std::printf("%.*s", static_cast<int>(kConfigUsage.size()), kConfigUsage.data());
    return 0;
  }
  ConfigArgs args;
  if (const std::string problem = Parse(argc, argv, args); !problem.empty()) {
    return UsageError(problem);
  }
  if (args.verb == "check") return Check(args);
  if (args.verb == "print") return Print(args);
  if (args.verb == "docs") {
    const std::string doc = config::RenderMarkdownReference();
    std::fwrite(doc.data(), 1, doc.size(), stdout);
    return 0;
  }
  if (args.verb == "outcomes") {
    const std::string doc = servicenow::RenderOutcomesMarkdown();
    std::fwrite(doc.data(), 1, doc.size(), stdout);
    return 0;
  }
  return UsageError("unknown subcommand '" + args.verb + "'");
}

}  // namespace snowcar::cli
