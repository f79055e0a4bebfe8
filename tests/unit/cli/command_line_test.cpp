// SPDX-License-Identifier: Apache-2.0
// cli/command_line.h: the one style every subcommand's command line is parsed in.
#include "cli/command_line.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace snowcar::cli {
namespace {

using ::testing::HasSubstr;

struct Probe {
  int port = 8080;
  int count = 1;
  std::string name;
  std::vector<std::string> sets;
  std::vector<std::string> words;
  bool quiet = false;
};

struct ParseOutcome {
  std::optional<int> exit;
  std::string out;
  std::string err;
};

ParseOutcome ParseProbe(Probe& p, const std::vector<std::string>& args) {
  auto app = NewApp("probe", "Probes things.", "Said below the flags.");
  app->add_option("--port", p.port, "the port to probe")
      ->type_name("P")
      ->check(WholeNumber(0, 65535))
      ->capture_default_str();
  app->add_option("--count", p.count, "how many probes")
      ->type_name("N")
      ->check(WholeNumber(1, INT64_MAX));
  app->add_option("--name", p.name, "what to call it")->type_name("NAME")->check(NonEmpty());
  app->add_option("--set", p.sets, "one setting (repeatable)")->type_name("key=value");
  app->add_flag("--quiet", p.quiet, "say nothing");
  app->add_option("word", p.words, "words")->type_name("WORD");
  std::ostringstream out, err;
  ParseOutcome o;
  o.exit = ParseCommandLine(*app, args, out, err);
  o.out = out.str();
  o.err = err.str();
  return o;
}

TEST(CommandLineTest, HelpIsGeneratedWithEveryFlagItsDescriptionAndDefault) {
  Probe p;
  const ParseOutcome o = ParseProbe(p, {"--help"});
  ASSERT_EQ(o.exit, 0);
  EXPECT_TRUE(o.err.empty()) << o.err;
  EXPECT_THAT(o.out, HasSubstr("Probes things."));
  EXPECT_THAT(o.out, HasSubstr("usage: snowcar probe [OPTIONS]"));
  EXPECT_THAT(o.out, HasSubstr("--port P=8080"));  // the default is the field's own value
  EXPECT_THAT(o.out, HasSubstr("the port to probe"));
  EXPECT_THAT(o.out, HasSubstr("--quiet"));
  EXPECT_THAT(o.out, HasSubstr("say nothing"));
  EXPECT_THAT(o.out, HasSubstr("Said below the flags."));
  EXPECT_EQ(ParseProbe(p, {"-h"}).exit, 0);
}

TEST(CommandLineTest, BothSpellingsParseAndTheLastValueWins) {
  Probe p;
  const ParseOutcome o = ParseProbe(
      p, {"--port", "1", "alpha", "--port=2", "--set", "a=1", "--set=b=2", "--quiet", "beta"});
  ASSERT_EQ(o.exit, std::nullopt) << o.err;
  EXPECT_EQ(p.port, 2);
  EXPECT_EQ(p.sets, (std::vector<std::string>{"a=1", "b=2"}));
  EXPECT_EQ(p.words, (std::vector<std::string>{"alpha", "beta"}));
  EXPECT_TRUE(p.quiet);
  EXPECT_TRUE(o.out.empty() && o.err.empty());
}

TEST(CommandLineTest, AnUnknownFlagIsNamedInOneLineAndExitsTwo) {
  Probe p;
  const ParseOutcome o = ParseProbe(p, {"--port", "1", "--bogus"});
  EXPECT_EQ(o.exit, 2);
  EXPECT_TRUE(o.out.empty()) << o.out;
  EXPECT_EQ(o.err,
            "snowcar probe: unknown argument '--bogus'\n"
            "Run 'snowcar probe --help' for its flags.\n");
}

TEST(CommandLineTest, RefusalsNameTheFlagAndTheValue) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--port"}, "snowcar probe: --port needs a value\n"},
      {{"--port", "70000"}, "snowcar probe: --port: '70000' is not a whole number in [0, 65535]\n"},
      {{"--port=x"}, "snowcar probe: --port: 'x' is not a whole number in [0, 65535]\n"},
      {{"--count", "0"}, "snowcar probe: --count: '0' is not a whole number of at least 1\n"},
      {{"--name", ""}, "snowcar probe: --name: needs a non-empty value\n"},
      {{"--name="}, "snowcar probe: --name needs a value\n"},
      {{"--quiet=maybe"}, "snowcar probe: --quiet: 'maybe' is not a valid value\n"},
  };
  for (const auto& [args, first_line] : cases) {
    Probe p;
    const ParseOutcome o = ParseProbe(p, args);
    EXPECT_EQ(o.exit, 2) << args[0];
    EXPECT_EQ(o.err.substr(0, o.err.find('\n') + 1), first_line) << args[0];
  }
}

TEST(CommandLineTest, DoubleDashEndsTheFlags) {
  Probe p;
  const ParseOutcome o = ParseProbe(p, {"--quiet", "--", "--port"});
  ASSERT_EQ(o.exit, std::nullopt) << o.err;
  EXPECT_EQ(p.words, std::vector<std::string>{"--port"});
  EXPECT_EQ(p.port, 8080);
}

TEST(CommandLineTest, UsageErrorReadsLikeARefusalOfTheParser) {
  auto app = NewApp("probe", "Probes things.");
  std::ostringstream err;
  EXPECT_EQ(UsageError(*app, "--tables: 'x' is wrong", err), 2);
  EXPECT_EQ(err.str(),
            "snowcar probe: --tables: 'x' is wrong\nRun 'snowcar probe --help' for its flags.\n");
}

}  // namespace
}  // namespace snowcar::cli
