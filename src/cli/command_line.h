// SPDX-License-Identifier: Apache-2.0
// The command line of every `snowcar` subcommand, parsed by CLI11 in one style.
//
// A command builds a CLI::App with NewApp (its flags, each with a one-line description), then
// calls ParseCommandLine. That prints CLI11's generated help for -h/--help (exit 0), and
// turns every refusal into one line on stderr, "snowcar <command>: <problem>", that names the
// flag or value at fault, followed by a pointer to --help (exit 2). A value the command checks
// itself after parsing goes through UsageError, so it reads the same.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace snowcar::cli {

// An app named "snowcar <command>" with `description` above its flags and `footer` below.
// Repeating a single-value flag keeps the last value, as the hand-written parsers did.
std::unique_ptr<CLI::App> NewApp(const std::string& command, const std::string& description,
                                 const std::string& footer = "");

// Parses `args` (the arguments after the command word). Returns nullopt when the command
// should run, else the exit code after printing help to `out` (0) or the problem to `err`
// (2).
std::optional<int> ParseCommandLine(CLI::App& app, const std::vector<std::string>& args,
                                    std::ostream& out, std::ostream& err);
// The same for main's argc/argv, where argv[0] is the command word.
std::optional<int> ParseCommandLine(CLI::App& app, int argc, char** argv);

// Prints "snowcar <command>: <problem>" and the pointer to --help; returns 2.
int UsageError(const CLI::App& app, const std::string& problem, std::ostream& err);

// A refusal of CLI11 in the product's words: "--port needs a value", "--seconds: 'soon' is
// not a whole number in [1, 86400]".
std::string DescribeParseError(const CLI::ParseError& error);

// A whole number in [min, max]; the refusal names the value and the range. A max at the
// limit of int or int64_t reads "of at least <min>".
CLI::Validator WholeNumber(int64_t min, int64_t max);
// A value that is not empty ("--socket=" is refused).
CLI::Validator NonEmpty();

// --port and --host of a server the command starts (the emulator, the registry double).
void AddListenFlags(CLI::App& app, uint16_t& port, std::string& host);

}  // namespace snowcar::cli
