// SPDX-License-Identifier: Apache-2.0
// Every subcommand's command line: --help lists its flags, each with a description; a bad
// flag is named; the flags the docs, scripts and tests use mean what they meant before.
// Only command lines that stop before the command starts anything run here.
#include "cli/commands.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "cli/command_args.h"
#include "cli/state_cli.h"

namespace snowcar::cli {
namespace {

using ::testing::HasSubstr;

struct CommandOutcome {
  int code = -1;
  std::string out;
  std::string err;
};

// Runs `snowcar <args...>` in-process: args[0] is the command word.
CommandOutcome RunCommand(int (*main)(int, char**), std::vector<std::string> args) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  CommandOutcome o;
  o.code = main(static_cast<int>(args.size()), argv.data());
  std::fflush(stdout);
  std::fflush(stderr);
  o.out = ::testing::internal::GetCapturedStdout();
  o.err = ::testing::internal::GetCapturedStderr();
  return o;
}

int StateMainInProcess(int argc, char** argv) {
  std::ostringstream out, err;
  const int code = RunStateCli({argv + 1, argv + argc}, out, err);
  std::fputs(out.str().c_str(), stdout);
  std::fputs(err.str().c_str(), stderr);
  return code;
}

struct Command {
  std::vector<std::string> words;  // the command words, e.g. {"config", "check"}
  int (*main)(int, char**);
  std::vector<std::string> flags;
};

const std::vector<Command>& Commands() {
  static const std::vector<Command> commands = {
      {{"run"}, RunMain, {"--config", "--set"}},
      {{"config", "check"}, ConfigMain, {"--set", "--no-secrets"}},
      {{"config", "print"}, ConfigMain, {"--set", "--json"}},
      {{"state"}, StateMainInProcess, {"--socket", "--config", "--state-dir", "--to", "--json"}},
      {{"emulate"},
       EmulateMain,
       {"--port", "--host", "--tables", "--seed-file", "--seed", "--threads", "--user",
        "--password", "--client-id", "--client-secret", "--clock", "--auto-create-tables", "--gzip",
        "--idle-timeout-ms"}},
      {{"registry"}, RegistryMain, {"--port", "--host", "--threads", "--user", "--password"}},
      {{"broker"},
       BrokerMain,
       {"--brokers", "--topics", "--partitions", "--port-file", "--control-stdin", "--direct"}},
      {{"demo"}, DemoMain, {"--seconds", "--keep", "--tables", "--rows", "--rate"}},
  };
  return commands;
}

std::string Joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

// The help entry of `flag`: its line and the lines of a wrapped description, as words.
std::vector<std::string> EntryWords(const std::string& help, const std::string& flag) {
  std::istringstream lines(help);
  std::vector<std::string> words;
  bool in_entry = false;
  for (std::string line; std::getline(lines, line);) {
    const bool starts_entry = line.rfind("  -", 0) == 0;
    if (starts_entry) {
      const std::string first = line.substr(2, line.find(' ', 2) - 2);
      in_entry = first == flag || first.ends_with("," + flag);
    } else if (line.rfind("  ", 0) != 0) {
      in_entry = false;
    }
    if (!in_entry) continue;
    std::istringstream ws(line);
    for (std::string w; ws >> w;) words.push_back(w);
  }
  return words;
}

TEST(CommandsTest, HelpOfEveryCommandListsEachFlagWithADescription) {
  for (const Command& c : Commands()) {
    std::vector<std::string> args = c.words;
    args.push_back("--help");
    const CommandOutcome o = RunCommand(c.main, args);
    const std::string name = Joined(c.words);
    EXPECT_EQ(o.code, 0) << name << o.err;
    EXPECT_TRUE(o.err.empty()) << name << o.err;
    EXPECT_THAT(o.out, HasSubstr("usage: snowcar " + name + " [OPTIONS]")) << o.out;
    for (const std::string& flag : c.flags) {
      // The flag, perhaps its value's name, and a description of at least two words.
      EXPECT_GE(EntryWords(o.out, flag).size(), 4u) << name << " " << flag << ":\n" << o.out;
    }
  }
}

TEST(CommandsTest, ConfigHelpListsItsSubcommands) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"config", "--help"}, std::vector<std::string>{"config", "help"}}) {
    const CommandOutcome o = RunCommand(ConfigMain, args);
    EXPECT_EQ(o.code, 0);
    for (const char* verb : {"check", "print", "docs", "outcomes"}) {
      EXPECT_THAT(o.out, HasSubstr(std::string("  ") + verb + " ")) << o.out;
    }
  }
}

TEST(CommandsTest, EveryCommandNamesAnUnknownFlagAndExitsTwo) {
  for (const Command& c : Commands()) {
    std::vector<std::string> args = c.words;
    args.push_back("--frobnicate");
    const CommandOutcome o = RunCommand(c.main, args);
    const std::string name = Joined(c.words);
    EXPECT_EQ(o.code, 2) << name;
    EXPECT_TRUE(o.out.empty()) << name << o.out;
    const std::string command = "snowcar " + (c.words[0] == "config" ? "config" : name);
    EXPECT_THAT(o.err, HasSubstr(command + ": unknown argument '--frobnicate'\n")) << o.err;
    EXPECT_THAT(o.err, HasSubstr("--help")) << o.err;
  }
}

TEST(CommandsTest, AFlagWithoutItsValueIsNamed) {
  for (const auto& [main, args, problem] :
       std::vector<std::tuple<int (*)(int, char**), std::vector<std::string>, std::string>>{
           {RunMain, {"run", "--config"}, "snowcar run: --config needs a value"},
           {ConfigMain, {"config", "check", "--set"}, "snowcar config: --set needs a value"},
           {EmulateMain, {"emulate", "--tables"}, "snowcar emulate: --tables needs a value"},
           {RegistryMain, {"registry", "--port"}, "snowcar registry: --port needs a value"},
           {BrokerMain, {"broker", "--port-file"}, "snowcar broker: --port-file needs a value"},
           {DemoMain, {"demo", "--rows"}, "snowcar demo: --rows needs a value"},
           {StateMainInProcess, {"state", "--to"}, "snowcar state: --to needs a value"},
       }) {
    const CommandOutcome o = RunCommand(main, args);
    EXPECT_EQ(o.code, 2) << args[0];
    EXPECT_THAT(o.err, HasSubstr(problem + "\n")) << o.err;
  }
}

TEST(CommandsTest, BadValuesAreNamedWithTheirFlag) {
  for (const auto& [main, args, problem] :
       std::vector<std::tuple<int (*)(int, char**), std::vector<std::string>, std::string>>{
           {EmulateMain,
            {"emulate", "--port", "70000"},
            "--port: '70000' is not a whole number in [0, 65535]"},
           {EmulateMain, {"emulate", "--threads", "0"}, "--threads: '0' is not a whole number"},
           {EmulateMain, {"emulate", "--tables", "incident:lots"}, "row count 'lots'"},
           {EmulateMain, {"emulate", "--clock", "sometimes"}, "--clock: 'sometimes' must be"},
           {RegistryMain, {"registry", "--threads", "65"}, "--threads: '65' is not a whole"},
           {BrokerMain, {"broker", "--brokers", "three"}, "--brokers: 'three' is not a whole"},
           {BrokerMain, {"broker", "--topics", "a:2:5"}, "replication factor 5"},
           {DemoMain, {"demo", "--seconds", "soon"}, "--seconds: 'soon' is not a whole number"},
           {DemoMain, {"demo", "--tables", "change_request"}, "--tables must include incident"},
           {StateMainInProcess, {"state", "--socket", "", "health"}, "--socket: needs a non-empty"},
       }) {
    const CommandOutcome o = RunCommand(main, args);
    EXPECT_EQ(o.code, 2) << args[1];
    EXPECT_THAT(o.err, HasSubstr(problem)) << o.err;
    EXPECT_THAT(o.err, HasSubstr("Run 'snowcar " + args[0] + " --help' for its flags.\n")) << o.err;
  }
}

TEST(CommandsTest, RunReadsConfigAndSetAsBefore) {
  // Both stop at the configuration check, before anything starts.
  const CommandOutcome missing =
      RunCommand(RunMain, {"run", "--config", "/nonexistent/snowcar.properties"});
  EXPECT_EQ(missing.code, 2);
  EXPECT_THAT(missing.err, HasSubstr("/nonexistent/snowcar.properties"));
  const CommandOutcome equals = RunCommand(RunMain, {"run", "--config=/nonexistent/b.properties"});
  EXPECT_EQ(equals.code, 2);
  EXPECT_THAT(equals.err, HasSubstr("/nonexistent/b.properties"));
  const CommandOutcome set =
      RunCommand(RunMain, {"run", "--set", "threads=lots", "--set=log.format=xml"});
  EXPECT_EQ(set.code, 2);
  EXPECT_THAT(set.err, HasSubstr("threads: 'lots'"));
  EXPECT_THAT(set.err, HasSubstr("log.format: 'xml'"));
}

TEST(CommandsTest, BrokerFlagsParseToTheSameSettings) {
  std::ostringstream out, err;
  BrokerArgs defaults;
  ASSERT_EQ(ParseBrokerArgs({}, defaults, out, err), std::nullopt) << err.str();
  EXPECT_EQ(defaults.options.brokers, broker::BrokerOptions{}.brokers);
  EXPECT_TRUE(defaults.options.topics.empty());
  EXPECT_TRUE(defaults.options.create_topics_on_request);
  EXPECT_EQ(defaults.options.eviction_watch_ms, 1000);
  EXPECT_FALSE(defaults.control_stdin);
  EXPECT_TRUE(defaults.port_file.empty());

  // As docs/embedded-broker.md and the tests start it.
  BrokerArgs a;
  ASSERT_EQ(ParseBrokerArgs({"--brokers", "3", "--topics", "incident:3,cmds:6:3", "--port-file",
                             "/tmp/kafka.addr", "--control-stdin"},
                            a, out, err),
            std::nullopt)
      << err.str();
  EXPECT_EQ(a.options.brokers, 3);
  ASSERT_EQ(a.options.topics.size(), 2u);
  EXPECT_EQ(a.options.topics[0].name, "incident");
  EXPECT_EQ(a.options.topics[0].partitions, 3);
  EXPECT_EQ(a.options.topics[1].name, "cmds");
  EXPECT_EQ(a.options.topics[1].partitions, 6);
  EXPECT_EQ(a.options.topics[1].replication_factor, 3);
  EXPECT_EQ(a.port_file, "/tmp/kafka.addr");
  EXPECT_TRUE(a.control_stdin);

  BrokerArgs b;
  ASSERT_EQ(ParseBrokerArgs({"--direct", "--partitions=4", "--topics=t,u:2", "--brokers=2",
                             "--no-eviction-watch"},
                            b, out, err),
            std::nullopt)
      << err.str();
  EXPECT_FALSE(b.options.create_topics_on_request);
  EXPECT_EQ(b.options.eviction_watch_ms, 0);
  EXPECT_EQ(b.options.brokers, 2);
  ASSERT_EQ(b.options.topics.size(), 2u);
  EXPECT_EQ(b.options.topics[0].partitions, 4);
  EXPECT_EQ(b.options.topics[1].partitions, 2);
  EXPECT_TRUE(out.str().empty());
}

TEST(CommandsTest, DemoFlagsParseToTheSameSettings) {
  std::ostringstream out, err;
  const demo::Options defaults;
  demo::Options none;
  ASSERT_EQ(ParseDemoArgs({}, none, out, err), std::nullopt) << err.str();
  EXPECT_EQ(none.seconds, defaults.seconds);
  EXPECT_EQ(none.keep, defaults.keep);
  EXPECT_EQ(none.tables, defaults.tables);
  EXPECT_EQ(none.rows, defaults.rows);
  EXPECT_EQ(none.rate, defaults.rate);

  demo::Options o;
  ASSERT_EQ(ParseDemoArgs({"--seconds", "30", "--keep", "--tables", "incident,sys_user,incident",
                           "--rows", "0", "--rate=5"},
                          o, out, err),
            std::nullopt)
      << err.str();
  EXPECT_EQ(o.seconds, 30);
  EXPECT_TRUE(o.keep);
  EXPECT_EQ(o.tables, (std::vector<std::string>{"incident", "sys_user"}));
  EXPECT_EQ(o.rows, 0);
  EXPECT_EQ(o.rate, 5);

  // The help shows the defaults the options struct holds.
  demo::Options help;
  ASSERT_EQ(ParseDemoArgs({"--help"}, help, out, err), 0);
  std::string tables;
  for (const auto& t : defaults.tables) tables += (tables.empty() ? "" : ",") + t;
  EXPECT_THAT(out.str(), HasSubstr(tables));
  EXPECT_THAT(out.str(), HasSubstr("--rows N=" + std::to_string(defaults.rows)));
}

}  // namespace
}  // namespace snowcar::cli
