// SPDX-License-Identifier: Apache-2.0
#include "cli/command_line.h"

#include <charconv>
#include <climits>
#include <iostream>

namespace snowcar::cli {
namespace {

// "--port: 1 required N missing" -> "--port"; CLI11 starts its messages with the option.
std::string FlagOf(const std::string& what) {
  const size_t colon = what.find(": ");
  return colon == std::string::npos ? what : what.substr(0, colon);
}

// CLI11's help with the usage line first, as `man` and the former hand-written texts put it.
class UsageFirstFormatter : public CLI::Formatter {
 public:
  std::string make_help(const CLI::App* app, std::string name,
                        CLI::AppFormatMode mode) const override {
    if (mode == CLI::AppFormatMode::Sub) return make_expanded(app);
    std::string description = make_description(app);
    return make_usage(app, name) + (description.empty() ? "" : "\n" + description) +
           make_positionals(app) + make_groups(app, mode) + make_subcommands(app, mode) + "\n" +
           make_footer(app);
  }
};

}  // namespace

std::unique_ptr<CLI::App> NewApp(const std::string& command, const std::string& description,
                                 const std::string& footer) {
  auto app = std::make_unique<CLI::App>(description, "snowcar " + command);
  app->formatter(std::make_shared<UsageFirstFormatter>());
  app->get_formatter()->label("Usage", "usage");
  app->get_formatter()->column_width(28);
  app->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  // Unknown arguments are collected and reported by ParseCommandLine, in the product's words.
  app->allow_extras();
  if (!footer.empty()) app->footer(footer);
  return app;
}

std::string DescribeParseError(const CLI::ParseError& error) {
  const std::string what = error.what();
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&error) != nullptr && what.ends_with(" missing")) {
    return FlagOf(what) + " needs a value";
  }
  if (dynamic_cast<const CLI::ConversionError*>(&error) != nullptr &&
      what.starts_with("Could not convert: ")) {
    // "Could not convert: --keep = x"
    const std::string rest = what.substr(std::string("Could not convert: ").size());
    const size_t eq = rest.find(" = ");
    if (eq != std::string::npos) {
      return rest.substr(0, eq) + ": '" + rest.substr(eq + 3) + "' is not a valid value";
    }
  }
  return what;
}

int UsageError(const CLI::App& app, const std::string& problem, std::ostream& err) {
  const std::string& name = app.get_name();
  err << name << ": " << problem << "\nRun '" << name << " --help' for its flags.\n";
  err.flush();
  return 2;
}

std::optional<int> ParseCommandLine(CLI::App& app, const std::vector<std::string>& args,
                                    std::ostream& out, std::ostream& err) {
  // CLI11 takes the arguments last first.
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    out << app.help();  // the help of the subcommand given, if any
    out.flush();
    return 0;
  } catch (const CLI::ParseError& e) {
    return UsageError(app, DescribeParseError(e), err);
  }
  for (const std::string& extra : app.remaining(true)) {
    if (extra == "--") continue;  // the end of the options: what follows is positional
    return UsageError(app, "unknown argument '" + extra + "'", err);
  }
  return std::nullopt;
}

std::optional<int> ParseCommandLine(CLI::App& app, int argc, char** argv) {
  const std::vector<std::string> args(argv + (argc > 0 ? 1 : 0), argv + argc);
  return ParseCommandLine(app, args, std::cout, std::cerr);
}

CLI::Validator WholeNumber(int64_t min, int64_t max) {
  const bool unbounded = max == INT_MAX || max == INT64_MAX;
  const std::string range = unbounded
                                ? "of at least " + std::to_string(min)
                                : "in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  return CLI::Validator(
      [min, max, range](const std::string& value) -> std::string {
        int64_t n = 0;
        const char* end = value.data() + value.size();
        const auto [ptr, ec] = std::from_chars(value.data(), end, n);
        if (value.empty() || ec != std::errc() || ptr != end || n < min || n > max) {
          return "'" + value + "' is not a whole number " + range;
        }
        return "";
      },
      "", "whole number");
}

CLI::Validator NonEmpty() {
  return CLI::Validator(
      [](const std::string& value) -> std::string {
        return value.empty() ? "needs a non-empty value" : "";
      },
      "", "non-empty");
}

void AddListenFlags(CLI::App& app, uint16_t& port, std::string& host) {
  app.add_option("--port", port, "TCP port to listen on (0 picks a free one)")
      ->type_name("P")
      ->check(WholeNumber(0, 65535))
      ->capture_default_str();
  app.add_option("--host", host, "address to listen on")->type_name("HOST")->capture_default_str();
}

}  // namespace snowcar::cli
