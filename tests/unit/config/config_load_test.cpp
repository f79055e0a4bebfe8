// SPDX-License-Identifier: Apache-2.0
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "snowcar/common/redact.h"
#include "snowcar/common/time.h"
#include "snowcar/config/config.h"
#include "temp_dir.h"

namespace snowcar::config {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::Pair;

// A shell-only base: no ServiceNow needed, so single keys can be tested on their own.
std::map<std::string, std::string> Shell(const std::map<std::string, std::string>& extra = {}) {
  std::map<std::string, std::string> m{{"source.enabled", "false"}, {"sink.enabled", "false"}};
  for (const auto& [k, v] : extra) m[k] = v;
  return m;
}

// The message of a load that must fail.
std::string ErrorOf(const Result<Config>& cfg) {
  EXPECT_FALSE(cfg.ok()) << "expected the configuration to be refused";
  return cfg.ok() ? "" : cfg.status().message();
}

class ConfigLoadTest : public ::testing::Test {
 protected:
  void TearDown() override { redact::ClearForTest(); }
  testing::TempDir dir_;
};

TEST_F(ConfigLoadTest, DefaultsWithBothDirectionsDisabled) {
  auto cfg = Config::FromMap(Shell());
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->GetString("state.dir"), "/var/lib/snowcar");
  EXPECT_EQ(cfg->GetInt("threads"), 0);
  EXPECT_EQ(cfg->GetInt("shutdown.timeout.ms"), 30000);
  EXPECT_EQ(cfg->GetString("log.level"), "info");
  EXPECT_TRUE(cfg->GetBool("snow.tls.verify"));
  EXPECT_FALSE(cfg->GetBool("source.enabled"));
  EXPECT_TRUE(cfg->IsSet("source.enabled"));
  EXPECT_FALSE(cfg->IsSet("threads"));
  EXPECT_EQ(cfg->GetString("snow.url"), "");
  EXPECT_EQ(cfg->GetString("admin.listen"), "");
  EXPECT_TRUE(cfg->GetList("snow.sink.topics").empty());
  EXPECT_TRUE(cfg->notes().empty());
}

TEST_F(ConfigLoadTest, FullConnectorConfig) {
  auto cfg = Config::FromMap({{"snow.url", "https://acme.service-now.com/"},
                              {"snow.auth.username", "svc"},
                              {"snow.auth.password", "pw-123456"},
                              {"snow.sink.topics", "cmds, more"},
                              {"kafka.bootstrap.servers", "localhost:9092"}});
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->GetString("snow.url"), "https://acme.service-now.com");
  EXPECT_EQ(cfg->GetString("snow.oauth.token.url"), "https://acme.service-now.com/oauth_token.do");
  EXPECT_FALSE(cfg->IsSet("snow.oauth.token.url"));
  EXPECT_EQ(cfg->GetList("snow.sink.topics"), (std::vector<std::string>{"cmds", "more"}));
  EXPECT_EQ(cfg->GetString("kafka.bootstrap.servers"), "localhost:9092");
}

// A revoke that stops waiting before a call on the wire must have ended lets that call land
// after the next owner's writes: allowed (the operator may accept it), but a warning naming
// both keys, and only when the sink runs.
TEST_F(ConfigLoadTest, RevokeWaitBelowTheRequestTimeoutIsAWarningNotAnError) {
  const std::map<std::string, std::string> sink{{"source.enabled", "false"},
                                                {"snow.url", "https://acme.service-now.com"},
                                                {"snow.auth.username", "svc"},
                                                {"snow.auth.password", "pw-123456"}};
  auto with = [&](std::map<std::string, std::string> extra) {
    extra.insert(sink.begin(), sink.end());
    return Config::FromMap(extra);
  };
  auto below =
      with({{"snow.sink.revoke.timeout.ms", "5000"}, {"snow.http.request.timeout.ms", "30000"}});
  ASSERT_TRUE(below.ok()) << below.status().message();
  EXPECT_THAT(below->warnings(),
              ElementsAre(AllOf(HasSubstr("snow.sink.revoke.timeout.ms (5000)"),
                                HasSubstr("below snow.http.request.timeout.ms (30000)"))));
  // Defaults, equal values and a longer revoke wait say nothing.
  for (const auto& extra : std::vector<std::map<std::string, std::string>>{
           {},
           {{"snow.sink.revoke.timeout.ms", "30000"}, {"snow.http.request.timeout.ms", "30000"}},
           {{"snow.sink.revoke.timeout.ms", "90000"}}}) {
    auto cfg = with(extra);
    ASSERT_TRUE(cfg.ok()) << cfg.status().message();
    EXPECT_TRUE(cfg->warnings().empty()) << cfg->warnings().front();
  }
  // Without the sink there is no revoke to wait for.
  auto shell = Config::FromMap(Shell({{"snow.sink.revoke.timeout.ms", "0"}}));
  ASSERT_TRUE(shell.ok()) << shell.status().message();
  EXPECT_TRUE(shell->warnings().empty());
  // A rejected value is reported once, as an error, not also compared.
  EXPECT_THAT(ErrorOf(with({{"snow.sink.revoke.timeout.ms", "soon"}})),
              AllOf(HasSubstr("snow.sink.revoke.timeout.ms: 'soon'"),
                    Not(HasSubstr("is below snow.http.request.timeout.ms"))));
}

TEST_F(ConfigLoadTest, UrlRequiredOnlyWhenSourceOrSinkRuns) {
  EXPECT_THAT(
      ErrorOf(Config::FromMap(
          {{"sink.enabled", "false"}, {"snow.auth.username", "u"}, {"snow.auth.password", "p"}})),
      AllOf(HasSubstr("snow.url is required because source.enabled is true"),
            Not(HasSubstr("snow.auth"))));
  EXPECT_THAT(ErrorOf(Config::FromMap({})),
              HasSubstr("because source.enabled and sink.enabled are true"));
  EXPECT_TRUE(Config::FromMap(Shell()).ok());
}

TEST_F(ConfigLoadTest, CredentialsRequiredForTheChosenAuth) {
  const std::string basic = ErrorOf(Config::FromMap({{"snow.url", "https://x"}}));
  EXPECT_THAT(basic, HasSubstr("snow.auth.username is required because snow.auth.type=basic"));
  EXPECT_THAT(basic, HasSubstr("snow.auth.password is required because snow.auth.type=basic"));
  const std::string oauth =
      ErrorOf(Config::FromMap({{"snow.url", "https://x"}, {"snow.auth.type", "OAuth2"}}));
  EXPECT_THAT(oauth, HasSubstr("snow.oauth.client.id is required"));
  EXPECT_THAT(oauth, HasSubstr("snow.oauth.client.secret is required"));
  EXPECT_THAT(oauth, Not(HasSubstr("snow.auth.username")));
}

// A secret file that cannot be read is one problem: the key was given, so "<key> is required"
// must not follow it.
TEST_F(ConfigLoadTest, UnreadableSecretFileIsOneErrorNotTwo) {
  const std::string path = dir_.Write("oauth.properties",
                                      "source.enabled=false\nsnow.url=https://x.example\n"
                                      "snow.auth.type=oauth2\nsnow.oauth.client.id=cid\n"
                                      "snow.oauth.client.secret.file=" +
                                          dir_.Path("absent-secret") +
                                          "\n"
                                          "snow.sink.topics=c\nsnow.sink.table=incident\n");
  const std::string error = ErrorOf(Config::Load({.file = path}));
  EXPECT_THAT(error, HasSubstr("snow.oauth.client.secret.file: "));
  EXPECT_THAT(error, HasSubstr("absent-secret"));
  EXPECT_THAT(error, Not(HasSubstr("snow.oauth.client.secret is required")));
  EXPECT_THAT(error, HasSubstr("(1 problem)"));
}

TEST_F(ConfigLoadTest, UnknownKeyNamedWithOriginAndSuggestion) {
  const std::string path = dir_.Write("a.properties",
                                      "source.enabled=false\nsink.enabled=false\n"
                                      "state.dri=/x\n");
  const std::string error = ErrorOf(Config::Load({.file = path}));
  EXPECT_THAT(error, HasSubstr("unknown key 'state.dri'"));
  EXPECT_THAT(error, HasSubstr("a.properties:3"));
  EXPECT_THAT(error, HasSubstr("did you mean 'state.dir'?"));
}

TEST_F(ConfigLoadTest, BadValuesNameKeyValueAndWhatIsAllowed) {
  const std::string error = ErrorOf(Config::FromMap(Shell({{"threads", "300"},
                                                           {"log.level", "loud"},
                                                           {"shutdown.timeout.ms", "soon"},
                                                           {"source.enabled", "maybe"}})));
  EXPECT_THAT(error, HasSubstr("threads: '300' is out of range (allowed: a whole number from 0 "
                               "to 256)"));
  EXPECT_THAT(error, HasSubstr("log.level: 'loud' is not allowed (allowed: one of: trace, "
                               "debug, info, warn, error)"));
  EXPECT_THAT(error, HasSubstr("shutdown.timeout.ms: 'soon' is not a whole number"));
  EXPECT_THAT(error, HasSubstr("source.enabled: 'maybe' is not a boolean"));
}

TEST_F(ConfigLoadTest, GroupInstanceIdFollowsKafkasRuleAndAcceptsOff) {
  EXPECT_TRUE(Config::FromMap(Shell({{"kafka.group.instance.id", "snowcar-app-0"}})).ok());
  EXPECT_TRUE(Config::FromMap(Shell({{"kafka.group.instance.id", "off"}})).ok());
  EXPECT_THAT(ErrorOf(Config::FromMap(Shell({{"kafka.group.instance.id", "app 0"}}))),
              HasSubstr("kafka.group.instance.id: 'app 0' is not a Kafka group instance id"));
}

TEST_F(ConfigLoadTest, AllErrorsReportedAtOnce) {
  const std::string error = ErrorOf(Config::FromMap(
      {{"threads", "-1"}, {"bogus", "1"}, {"log.format", "xml"}, {"snow.url", "ftp://x"}}));
  EXPECT_THAT(error, HasSubstr("invalid configuration (6 problems)"));
  EXPECT_THAT(error, HasSubstr("threads:"));
  EXPECT_THAT(error, HasSubstr("unknown key 'bogus'"));
  EXPECT_THAT(error, HasSubstr("log.format:"));
  EXPECT_THAT(error, HasSubstr("snow.url: 'ftp://x'"));
  EXPECT_THAT(error, HasSubstr("snow.auth.username is required"));
  EXPECT_THAT(error, HasSubstr("snow.auth.password is required"));
}

TEST_F(ConfigLoadTest, EnumValuesStoredInTableSpelling) {
  auto cfg = Config::FromMap(Shell({{"log.format", "TEXT"}, {"log.level", "Debug"}}));
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->GetString("log.format"), "text");
  EXPECT_EQ(cfg->GetString("log.level"), "debug");
}

TEST_F(ConfigLoadTest, PrecedenceFileThenEnvThenSet) {
  const std::string path = dir_.Write("a.properties",
                                      "source.enabled=false\nsink.enabled=false\n"
                                      "threads=1\nstate.dir=/file\nlog.level=warn\n");
  auto cfg = Config::Load({.file = path,
                           .sets = {"threads=3", "threads=4", "log.format=text"},
                           .env = {{"SNOWCAR_THREADS", "2"},
                                   {"SNOWCAR_STATE_DIR", "/env"},
                                   {"PATH", "/usr/bin"},
                                   {"HOME", "/root"}}});
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->GetInt("threads"), 4);             // --set beats env beats file; last --set
  EXPECT_EQ(cfg->GetString("state.dir"), "/env");   // env beats file
  EXPECT_EQ(cfg->GetString("log.level"), "warn");   // file only
  EXPECT_EQ(cfg->GetString("log.format"), "text");  // --set only
}

TEST_F(ConfigLoadTest, EnvMapsKafkaFamilyAndReportsUnknownVariables) {
  auto cfg = Config::Load({.env = {{"SNOWCAR_SOURCE_ENABLED", "false"},
                                   {"SNOWCAR_SINK_ENABLED", "false"},
                                   {"SNOWCAR_KAFKA_BOOTSTRAP_SERVERS", "b:9092"}}});
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->WithPrefix("kafka."),
            (std::map<std::string, std::string>{{"bootstrap.servers", "b:9092"}}));
}

// Other software may set SNOWCAR_* variables of its own (a wrapper script's SNOWCAR_BIN): they
// never stop the sidecar. A misspelt key is still reported, as a warning naming the variable
// and the one probably meant.
TEST_F(ConfigLoadTest, UnknownEnvironmentVariablesAreWarningsNotErrors) {
  auto cfg = Config::Load({.env = {{"SNOWCAR_SOURCE_ENABLED", "false"},
                                   {"SNOWCAR_SINK_ENABLED", "false"},
                                   {"SNOWCAR_BIN", "/opt/snowcar/bin/snowcar"},
                                   {"SNOWCAR_THREDS", "2"}}});
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->GetInt("threads"), 0);
  EXPECT_THAT(cfg->warnings(),
              Contains(AllOf(HasSubstr("SNOWCAR_BIN"), HasSubstr("names no configuration key"))));
  EXPECT_THAT(cfg->warnings(),
              Contains(AllOf(HasSubstr("SNOWCAR_THREDS"), HasSubstr("SNOWCAR_THREADS"))));
  EXPECT_EQ(cfg->warnings().size(), 2u);

  // A value the environment gives a real key is still checked like any other.
  EXPECT_THAT(ErrorOf(Config::Load({.env = {{"SNOWCAR_SOURCE_ENABLED", "false"},
                                            {"SNOWCAR_SINK_ENABLED", "false"},
                                            {"SNOWCAR_THREADS", "many"}}})),
              HasSubstr("threads: 'many' is not a whole number"));
  // The same unknown key given in a file or with --set stays an error.
  EXPECT_THAT(
      ErrorOf(Config::Load({.sets = {"source.enabled=false", "sink.enabled=false", "threds=2"}})),
      HasSubstr("unknown key 'threds' [--set]"));
  // When loading fails anyway, the warning comes with the errors: it may be the reason.
  const std::string error =
      ErrorOf(Config::Load({.env = {{"SNOWCAR_SOURCE_ENABLED", "true"},
                                    {"SNOWCAR_SINK_ENABLED", "false"},
                                    {"SNOWCAR_SNOW_URLL", "https://x.example"}}}));
  EXPECT_THAT(error, HasSubstr("snow.url is required"));
  EXPECT_THAT(error, HasSubstr("warning: environment variable SNOWCAR_SNOW_URLL"));
}

// A `_` of a key is `__` in its variable, so keys of table aliases like change_request can be
// set from the environment (one `_` stands for a `.`).
TEST_F(ConfigLoadTest, DoubleUnderscoreInAVariableIsAnUnderscoreInTheKey) {
  EXPECT_EQ(KeyFromEnvironmentName("SNOWCAR_SNOW_TABLE_CHANGE__REQUEST_FIELDS"),
            "snow.table.change_request.fields");
  EXPECT_EQ(KeyFromEnvironmentName("SNOWCAR_STATE_DIR"), "state.dir");
  EXPECT_EQ(EnvironmentName("snow.table.change_request.fields"),
            "SNOWCAR_SNOW_TABLE_CHANGE__REQUEST_FIELDS");
  EXPECT_EQ(EnvironmentName("kafka.bootstrap.servers"), "SNOWCAR_KAFKA_BOOTSTRAP_SERVERS");

  auto cfg = Config::Load({.env = {{"SNOWCAR_SINK_ENABLED", "false"},
                                   {"SNOWCAR_SNOW_URL", "https://x.example"},
                                   {"SNOWCAR_SNOW_AUTH_USERNAME", "svc"},
                                   {"SNOWCAR_SNOW_AUTH_PASSWORD", "pw-123456"},
                                   {"SNOWCAR_SNOW_TABLES", "change_request"},
                                   {"SNOWCAR_SNOW_TABLE_CHANGE__REQUEST_FIELDS", "number,state"},
                                   {"SNOWCAR_SNOW_TABLE_CHANGE__REQUEST_BATCH_SIZE", "50"}}});
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->GetString("snow.table.change_request.fields"), "number,state");
  EXPECT_EQ(cfg->GetInt("snow.table.change_request.batch.size"), 50);
  EXPECT_TRUE(cfg->warnings().empty());
}

// A \u0000 escape used to cut the value where it was handed on as a C string; control
// characters are refused naming the key, the value shown with the escape written out.
TEST_F(ConfigLoadTest, ControlCharactersInValuesAreRefusedNamingTheKey) {
  const std::string path = dir_.Write("c.properties",
                                      "source.enabled=false\nsink.enabled=false\n"
                                      "snow.http.user.agent=x\\u0000y\n"
                                      "state.dir=/var/lib/snow\\tcar\n"
                                      "snow.auth.password=pw\\u0000secret\n");
  const std::string error = ErrorOf(Config::Load({.file = path}));
  EXPECT_THAT(error, HasSubstr("snow.http.user.agent: 'x\\u0000y' contains the control "
                               "character U+0000"));
  EXPECT_THAT(error, HasSubstr("state.dir: '/var/lib/snow\\u0009car' contains the control "
                               "character U+0009"));
  EXPECT_THAT(error, HasSubstr("snow.auth.password: the value contains the control character"));
  EXPECT_THAT(error, Not(HasSubstr("secret")));
  EXPECT_EQ(error.find('\0'), std::string::npos);

  // Blanks and line breaks around a value are trimmed, not refused (a value pasted with its
  // newline into a variable); PEM text inside a kafka.* value keeps its line breaks.
  const std::string pem = "-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----";
  auto cfg = Config::Load(
      {.sets = {"source.enabled=false", "sink.enabled=false", "kafka.ssl.key.pem=" + pem},
       .env = {{"SNOWCAR_STATE_DIR", "/var/lib/snowcar\n"}}});
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->GetString("state.dir"), "/var/lib/snowcar");
  EXPECT_EQ(cfg->WithPrefix("kafka.").at("ssl.key.pem"), pem);
  EXPECT_THAT(ErrorOf(Config::Load({.sets = {"source.enabled=false", "sink.enabled=false",
                                             "kafka.client.id=a\x01"
                                             "b"}})),
              HasSubstr("kafka.client.id: 'a\\u0001b' contains the control character U+0001"));
}

// Values `snowcar run` cannot use are refused when the configuration loads, so `config check`
// refuses them too.
TEST_F(ConfigLoadTest, SocketPathAndStateDirMustBeUsable) {
  EXPECT_THAT(ErrorOf(Config::FromMap(Shell({{"socket.path", ""}}))),
              HasSubstr("socket.path: '' must not be empty"));
  EXPECT_THAT(ErrorOf(Config::FromMap(Shell({{"socket.path", "/tmp/" + std::string(134, 'a')}}))),
              HasSubstr("is 139 bytes; a Unix socket path may have at most 107"));
  EXPECT_TRUE(Config::FromMap(Shell({{"socket.path", "/tmp/" + std::string(102, 'a')}})).ok());
  EXPECT_THAT(ErrorOf(Config::FromMap(Shell({{"state.dir", " "}}))),
              HasSubstr("state.dir: ' ' must not be empty"));
}

TEST_F(ConfigLoadTest, OversizedConfigAndSecretFilesAreRefusedNamingTheLimit) {
  EXPECT_THAT(Config::Load({.file = "/dev/zero"}).status().message(),
              HasSubstr("cannot read config file '/dev/zero': more than 1 MiB, the limit for a "
                        "config file"));
  EXPECT_THAT(ErrorOf(Config::FromMap(Shell({{"snow.auth.password.file", "/dev/zero"}}))),
              HasSubstr("snow.auth.password.file: cannot read secret file '/dev/zero': more "
                        "than 1 MiB"));
}

TEST_F(ConfigLoadTest, EnvironFromProcessKeepsOnlySnowcarVariables) {
  ASSERT_EQ(setenv("SNOWCAR_TEST_ENV_PROBE", "a=b", 1), 0);
  ASSERT_EQ(setenv("NOT_SNOWCAR_PROBE", "x", 1), 0);
  const auto env = EnvironFromProcess();
  unsetenv("SNOWCAR_TEST_ENV_PROBE");
  unsetenv("NOT_SNOWCAR_PROBE");
  ASSERT_EQ(env.count("SNOWCAR_TEST_ENV_PROBE"), 1u);
  EXPECT_EQ(env.at("SNOWCAR_TEST_ENV_PROBE"), "a=b");
  for (const auto& [name, value] : env) EXPECT_TRUE(name.starts_with("SNOWCAR_")) << name;
}

TEST_F(ConfigLoadTest, MalformedSetIsAnError) {
  const std::string error = ErrorOf(Config::Load({.sets = {"novalue", "=x"}}));
  EXPECT_THAT(error, HasSubstr("--set 'novalue' must have the form key=value"));
  EXPECT_THAT(error, HasSubstr("--set '' must have the form key=value"));
}

TEST_F(ConfigLoadTest, SetValueMayContainEquals) {
  auto cfg = Config::Load(
      {.sets = {"source.enabled=false", "sink.enabled=false", "kafka.sasl.jaas.config=a=b"}});
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->GetString("kafka.sasl.jaas.config"), "a=b");
}

TEST_F(ConfigLoadTest, SecretFromFileWithTrailingNewlineStripped) {
  const std::string secret = dir_.Write("pw", "s3cret-from-file\n");
  auto cfg = Config::FromMap({{"snow.url", "https://x"},
                              {"snow.auth.username", "u"},
                              {"snow.auth.password.file", secret}});
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->GetString("snow.auth.password"), "s3cret-from-file");
  EXPECT_TRUE(cfg->IsSet("snow.auth.password"));
  // Registered with the redactor, so a log line that carries it is masked.
  EXPECT_EQ(redact::Mask("pw is s3cret-from-file"), "pw is [redacted]");
}

// Where each value came from is kept, so a rotated Secret can be read again while running;
// reading again follows the same rules as loading (line break dropped, value checked,
// registered with the redactor, bounded).
TEST_F(ConfigLoadTest, ValueFileNamesTheFileAndReadsItAgain) {
  const std::string secret = dir_.Write("pw", "first-password\n");
  const std::string user = dir_.Write("user", "svc-user\n");
  auto cfg = Config::FromMap({{"snow.url", "https://x"},
                              {"servicenow.username.file", user},
                              {"snow.auth.password.file", secret}});
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->ValueFile("snow.auth.password"), secret);
  EXPECT_EQ(cfg->ValueFile("snow.auth.username"), user);  // given by its Confluent name
  EXPECT_EQ(cfg->ValueFile("snow.url"), "");

  dir_.Write("pw", "rotated-password\r\n");
  auto again = ReadValueFromFile("snow.auth.password", secret);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(*again, "rotated-password");
  EXPECT_EQ(redact::Mask("now rotated-password"), "now [redacted]");

  const std::string missing = dir_.Path("absent");
  EXPECT_THAT(ReadValueFromFile("snow.auth.password", missing).status().message(),
              HasSubstr("snow.auth.password.file: cannot read secret file '" + missing + "'"));
  EXPECT_THAT(ReadValueFromFile("snow.auth.password", "/dev/zero").status().message(),
              HasSubstr("more than 1 MiB"));
  const std::string bad = dir_.Write("port", "not-a-number\n");
  const auto refused = ReadValueFromFile("snow.http.connect.timeout.ms", bad);
  EXPECT_THAT(refused.status().message(),
              HasSubstr("snow.http.connect.timeout.ms: the value in file"));
  EXPECT_THAT(refused.status().message(), Not(HasSubstr("not-a-number")));
}

TEST_F(ConfigLoadTest, SecretFileForKafkaFamilyMember) {
  const std::string secret = dir_.Write("kpw", "kafka-pass\r\n");
  auto cfg = Config::FromMap(Shell({{"kafka.sasl.password.file", secret}}));
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->WithPrefix("kafka.").at("sasl.password"), "kafka-pass");
}

TEST_F(ConfigLoadTest, UnreadableSecretFileNamesKeyAndPath) {
  const std::string missing = dir_.Path("absent");
  const std::string error = ErrorOf(Config::FromMap(Shell({{"snow.auth.password.file", missing}})));
  EXPECT_THAT(error,
              HasSubstr("snow.auth.password.file: cannot read secret file '" + missing + "'"));
  EXPECT_THAT(error, HasSubstr("No such file"));
}

TEST_F(ConfigLoadTest, SecretFileThatIsADirectoryIsAnError) {
  const std::string error =
      ErrorOf(Config::FromMap(Shell({{"snow.auth.password.file", dir_.Path("")}})));
  EXPECT_THAT(error, HasSubstr("snow.auth.password.file: cannot read secret file"));
  EXPECT_THAT(error, HasSubstr("it is a directory"));
}

TEST_F(ConfigLoadTest, SecretGivenTwiceIsAnError) {
  const std::string secret = dir_.Write("pw", "from-file");
  const std::string error = ErrorOf(Config::FromMap(
      Shell({{"snow.auth.password", "inline-pw"}, {"snow.auth.password.file", secret}})));
  EXPECT_THAT(error, HasSubstr("both 'snow.auth.password'"));
  EXPECT_THAT(error, HasSubstr("'snow.auth.password.file'"));
  EXPECT_THAT(error, Not(HasSubstr("inline-pw")));
}

// Any key may come from `<key>.file`, not only secrets: a SASL user name in a mounted Secret
// reached librdkafka as the unknown property `sasl.username.file`.
TEST_F(ConfigLoadTest, AnyKeyMayComeFromAFile) {
  const std::string user = dir_.Write("user", "kafka-user\n");
  const std::string dir = dir_.Write("dir", "/var/lib/other\n");
  const std::string topics = dir_.Write("topics", "a,b\n");
  const std::string name = dir_.Write("name", "change_request\n");
  auto cfg = Config::Load(
      {.sets = {"source.enabled=false", "sink.enabled=false", "kafka.sasl.username.file=" + user,
                "state.dir.file=" + dir, "topics.file=" + topics},
       .env = {{"SNOWCAR_SNOW_TABLE_CHANGE__REQUEST_NAME_FILE", name}}});
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  const auto kafka = cfg->WithPrefix("kafka.");
  EXPECT_EQ(kafka.at("sasl.username"), "kafka-user");
  EXPECT_EQ(kafka.count("sasl.username.file"), 0u);
  EXPECT_EQ(cfg->GetString("state.dir"), "/var/lib/other");
  EXPECT_EQ(cfg->GetList("snow.sink.topics"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(cfg->GetString("snow.table.change_request.name"), "change_request");
  // A value from a file is checked like any other, naming where it came from.
  const std::string bad = dir_.Write("threads", "many\n");
  EXPECT_THAT(ErrorOf(Config::FromMap(Shell({{"threads.file", bad}}))),
              HasSubstr("threads: 'many' is not a whole number"));
  EXPECT_THAT(ErrorOf(Config::FromMap(Shell({{"threads.file", bad}}))),
              HasSubstr("via threads.file"));
  // Both ways at once, and a key that names no option, stay errors.
  EXPECT_THAT(ErrorOf(Config::FromMap(Shell({{"state.dir", "/x"}, {"state.dir.file", dir}}))),
              HasSubstr("both 'state.dir'"));
  EXPECT_THAT(ErrorOf(Config::FromMap(Shell({{"no.such.key.file", dir}}))),
              HasSubstr("unknown key 'no.such.key.file'"));
}

TEST_F(ConfigLoadTest, EffectiveRedactsSecretsAndListsEveryKey) {
  auto cfg = Config::FromMap({{"snow.url", "https://x"},
                              {"snow.auth.username", "svc"},
                              {"snow.auth.password", "hunter2-pw"},
                              {"kafka.sasl.password", "kafka-pw"},
                              {"kafka.client.id", "snowcar-1"}});
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  const auto effective = cfg->Effective();
  EXPECT_THAT(effective, Contains(Pair("snow.auth.password", "[redacted]")));
  EXPECT_THAT(effective, Contains(Pair("kafka.sasl.password", "[redacted]")));
  EXPECT_THAT(effective, Contains(Pair("kafka.client.id", "snowcar-1")));
  EXPECT_THAT(effective, Contains(Pair("snow.auth.username", "svc")));
  EXPECT_THAT(effective, Contains(Pair("snow.oauth.client.secret", "")));  // unset: nothing hidden
  EXPECT_THAT(effective, Contains(Pair("threads", "0")));
  for (const auto& [key, value] : effective) {
    EXPECT_EQ(value.find("hunter2"), std::string::npos) << key;
    EXPECT_NE(key, "topics");  // aliases are shown under the key they stand for
  }
  // The real value stays available to the code that needs it.
  EXPECT_EQ(cfg->GetString("snow.auth.password"), "hunter2-pw");
}

TEST_F(ConfigLoadTest, SecretNeverEchoedEvenInsideAnotherKeysBadValue) {
  // log.level sorts before snow.auth.password: secrets must be registered before any check.
  const std::string error = ErrorOf(Config::FromMap({{"log.level", "topsecret-value"},
                                                     {"snow.auth.password", "topsecret-value"},
                                                     {"threads", "topsecret-value"}}));
  EXPECT_THAT(error, Not(HasSubstr("topsecret-value")));
  EXPECT_THAT(error, HasSubstr("log.level: '[redacted]' is not allowed"));
  EXPECT_THAT(error, HasSubstr("threads: '[redacted]' is not a whole number"));
}

TEST_F(ConfigLoadTest, ConnectFrameworkKeysProduceNotes) {
  const std::string path = dir_.Write(
      "c.properties",
      "name=snow-sink\nconnector.class=io.example.SnowSink\ntasks.max=4\n"
      "key.converter=org.apache.kafka.connect.storage.StringConverter\n"
      "value.converter.schemas.enable=false\ntransforms=x\ntransforms.x.type=Y\n"
      "errors.tolerance=all\nconfig.action.reload=restart\nexactly.once.source.support=requested\n"
      "source.enabled=false\nsink.enabled=false\n");
  auto cfg = Config::Load({.file = path});
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  // exactly.once.source.support is a key of its own now (with the source off: no note).
  EXPECT_EQ(cfg->notes().size(), 9u);
  EXPECT_THAT(cfg->notes(),
              Contains(AllOf(HasSubstr("tasks.max [" + path + ":3]"), HasSubstr("ignored"))));
  EXPECT_THAT(cfg->notes(), Contains(HasSubstr("value.converter.schemas.enable")));
  for (const auto& [key, value] : cfg->Effective()) EXPECT_NE(key, "tasks.max");
}

TEST_F(ConfigLoadTest, ExactlyOnceTakesKafkaConnectsValues) {
  for (const char* value : {"disabled", "requested", "required"}) {
    auto cfg = Config::FromMap(Shell({{"exactly.once.source.support", value}}));
    ASSERT_TRUE(cfg.ok()) << cfg.status().message();
    EXPECT_EQ(cfg->GetString("exactly.once.source.support"), value);
  }
  // The worker-level name stands for the same key.
  auto alias = Config::FromMap(Shell({{"exactly.once.support", "required"}}));
  ASSERT_TRUE(alias.ok()) << alias.status().message();
  EXPECT_EQ(alias->GetString("exactly.once.source.support"), "required");
  EXPECT_THAT(ErrorOf(Config::FromMap(Shell({{"exactly.once.source.support", "on"}}))),
              HasSubstr("exactly.once.source.support"));
  EXPECT_THAT(ErrorOf(Config::FromMap(Shell({{"transaction.boundary", "connector"}}))),
              HasSubstr("transaction.boundary"));
}

TEST_F(ConfigLoadTest, TopicsRegexRefused) {
  EXPECT_THAT(ErrorOf(Config::FromMap(Shell({{"topics.regex", "cmd-.*"}}))),
              HasSubstr("topics.regex: is not supported"));
}

TEST_F(ConfigLoadTest, TopicsIsAnAliasOfSinkTopics) {
  auto cfg = Config::FromMap(Shell({{"topics", "a, b"}}));
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->GetList("snow.sink.topics"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(cfg->GetList("topics"), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(cfg->IsSet("snow.sink.topics"));
  EXPECT_THAT(ErrorOf(Config::FromMap(Shell({{"topics", "a"}, {"snow.sink.topics", "b"}}))),
              HasSubstr("give only one"));
}

TEST_F(ConfigLoadTest, DuplicateFileKeyBecomesNote) {
  const std::string path = dir_.Write(
      "d.properties", "source.enabled=false\nsink.enabled=false\nthreads=1\nthreads=2\n");
  auto cfg = Config::Load({.file = path});
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->GetInt("threads"), 2);
  EXPECT_THAT(cfg->notes(), Contains(HasSubstr("'threads' repeats line 3")));
}

TEST_F(ConfigLoadTest, MalformedFileLinesReportedWithOtherProblems) {
  const std::string path = dir_.Write("m.properties", "threads=x\nbad=\\uQQQQ\n");
  const std::string error = ErrorOf(Config::Load({.file = path}));
  EXPECT_THAT(error, HasSubstr("m.properties:2: malformed \\u escape"));
  EXPECT_THAT(error, HasSubstr("threads: 'x' is not a whole number"));
  EXPECT_THAT(error, HasSubstr("[" + path + ":1]"));
}

TEST_F(ConfigLoadTest, MissingFileIsAnError) {
  const auto cfg = Config::Load({.file = dir_.Path("none.properties")});
  ASSERT_FALSE(cfg.ok());
  EXPECT_THAT(cfg.status().message(), HasSubstr("none.properties"));
}

TEST_F(ConfigLoadTest, TlsVerifyOffIsNoted) {
  auto cfg = Config::FromMap(Shell({{"snow.tls.verify", "false"}}));
  ASSERT_TRUE(cfg.ok());
  EXPECT_THAT(cfg->notes(), Contains(HasSubstr("snow.tls.verify=false")));
}

TEST_F(ConfigLoadTest, CrossFieldRules) {
  const std::string error = ErrorOf(Config::FromMap(Shell({
      {"snow.retry.initial.backoff.ms", "5000"},
      {"snow.retry.max.backoff.ms", "1000"},
      {"snow.tls.cert.file", "/c.pem"},
      {"snow.http.proxy.username", "p"},
  })));
  EXPECT_THAT(error, HasSubstr("snow.retry.initial.backoff.ms (5000) must not exceed "
                               "snow.retry.max.backoff.ms (1000)"));
  EXPECT_THAT(error, HasSubstr("snow.tls.key.file must name its private key"));
  EXPECT_THAT(error, HasSubstr("snow.http.proxy.username is set without snow.http.proxy.url"));
  EXPECT_TRUE(Config::FromMap(Shell({{"snow.tls.cert.file", "/c.p12"}})).ok());
}

TEST_F(ConfigLoadTest, WithPrefixStripsAndSkipsEmpty) {
  auto cfg = Config::FromMap(Shell({{"kafka.acks", "all"}, {"kafka.client.id", "c"}}));
  ASSERT_TRUE(cfg.ok());
  EXPECT_EQ(cfg->WithPrefix("kafka."),
            (std::map<std::string, std::string>{{"acks", "all"}, {"client.id", "c"}}));
  const auto http = cfg->WithPrefix("snow.http.");
  EXPECT_EQ(http.at("connect.timeout.ms"), "10000");
  EXPECT_EQ(http.count("proxy.url"), 0u);
}

TEST_F(ConfigLoadTest, PatternMembersReadableAndUnsetMembersEmpty) {
  auto cfg = Config::FromMap(Shell({{"kafka.linger.ms", "5"}}));
  ASSERT_TRUE(cfg.ok());
  EXPECT_TRUE(cfg->IsSet("kafka.linger.ms"));
  EXPECT_FALSE(cfg->IsSet("kafka.acks"));
  EXPECT_EQ(cfg->GetString("kafka.acks"), "");
}

// The example the demo and the sidecar integration test start from must stay valid.
TEST_F(ConfigLoadTest, ShippedShellOnlyExampleIsValid) {
  auto cfg = Config::Load(
      {.file = std::string(SNOWCAR_SOURCE_DIR) + "/docs/examples/shell-only.properties"});
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_FALSE(cfg->GetBool("source.enabled"));
  EXPECT_FALSE(cfg->GetBool("sink.enabled"));
  EXPECT_TRUE(cfg->notes().empty());
}

// A sink connector's properties file as Kafka Connect users write it loads unchanged.
TEST_F(ConfigLoadTest, ConnectStyleSinkPropertiesLoad) {
  const std::string path = dir_.Write("sink.properties", R"(# exported from a Connect cluster
name=servicenow-sink
connector.class=com.example.ServiceNowSinkConnector
tasks.max=2
topics=snow.commands, snow.commands.retry
key.converter=org.apache.kafka.connect.storage.StringConverter
value.converter=org.apache.kafka.connect.json.JsonConverter
value.converter.schemas.enable=false
errors.tolerance=none
snow.url=https://dev12345.service-now.com/
snow.auth.type=BASIC
snow.auth.username=integration
snow.auth.password=change-me-please
snow.http.request.timeout.ms=30000
source.enabled=false
)");
  auto cfg = Config::Load({.file = path});
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->GetList("snow.sink.topics"),
            (std::vector<std::string>{"snow.commands", "snow.commands.retry"}));
  EXPECT_EQ(cfg->GetString("snow.auth.type"), "basic");
  EXPECT_EQ(cfg->GetInt("snow.http.request.timeout.ms"), 30000);
  // The group Kafka Connect used for the connector, so its committed offsets are kept.
  EXPECT_EQ(cfg->GetString("kafka.group.id"), "connect-servicenow-sink");
  EXPECT_EQ(cfg->notes().size(), 8u);
}

// A properties file of Confluent's ServiceNow Source connector runs unchanged: its keys are
// mapped onto snowcar's, and only the source runs.
TEST_F(ConfigLoadTest, ConfluentSourceConnectorFileLoads) {
  const std::string path = dir_.Write("confluent-source.properties", R"(name=snow-incidents
connector.class=io.confluent.connect.servicenow.ServiceNowSourceConnector
tasks.max=1
servicenow.url=https://dev1000.service-now.com/
servicenow.table=incident
servicenow.user=integration
servicenow.password=change-me-123
servicenow.since=2024-01-15
kafka.topic=snow.incident
batch.max.rows=1000
poll.interval.s=30
retry.max.times=3
proxy.url=http://proxy.internal:3128
proxy.user=proxy-user
proxy.password=proxy-pw-99
confluent.topic.bootstrap.servers=broker:9092
confluent.license=
kafka.bootstrap.servers=127.0.0.1:9092
)");
  auto cfg = Config::Load({.file = path});
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->GetString("snow.url"), "https://dev1000.service-now.com");
  EXPECT_EQ(cfg->GetString("snow.auth.username"), "integration");
  EXPECT_EQ(cfg->GetString("snow.auth.password"), "change-me-123");
  EXPECT_EQ(cfg->GetList("snow.tables"), (std::vector<std::string>{"incident"}));
  EXPECT_EQ(cfg->GetString("snow.table.incident.name"), "incident");
  EXPECT_EQ(cfg->GetString("snow.table.incident.topic"), "snow.incident");
  EXPECT_EQ(cfg->GetString("snow.table.incident.start.timestamp"), "2024-01-15 00:00:00");
  EXPECT_EQ(cfg->GetInt("snow.source.batch.size"), 1000);
  EXPECT_EQ(cfg->GetInt("snow.source.poll.interval.ms"), 30000);
  EXPECT_EQ(cfg->GetInt("snow.retry.max.attempts"), 4);  // 3 retries after the first attempt
  EXPECT_EQ(cfg->GetString("snow.http.proxy.url"), "http://proxy.internal:3128");
  EXPECT_EQ(cfg->GetString("snow.http.proxy.username"), "proxy-user");
  EXPECT_EQ(cfg->GetString("snow.http.proxy.password"), "proxy-pw-99");
  EXPECT_TRUE(cfg->GetBool("source.enabled"));
  EXPECT_FALSE(cfg->GetBool("sink.enabled"));
  // kafka.topic names the source's topic; librdkafka never sees it.
  EXPECT_EQ(cfg->WithPrefix("kafka."),
            (std::map<std::string, std::string>{{"bootstrap.servers", "127.0.0.1:9092"}}));
  for (const auto& [key, value] : cfg->Effective()) {
    EXPECT_FALSE(key.starts_with("servicenow.")) << key;
    EXPECT_NE(value, "proxy-pw-99") << key;
  }
  EXPECT_THAT(cfg->notes(), Contains(HasSubstr("names a source connector, so the sink is off")));

  // Without servicenow.since, reading starts at midnight UTC of the day, as Confluent's does.
  const std::string no_since = dir_.Write("no-since.properties",
                                          "connector.class=x.ServiceNowSourceConnector\n"
                                          "servicenow.url=https://x.example\n"
                                          "servicenow.username=u\nservicenow.password=pw-123456\n"
                                          "servicenow.table=incident\nkafka.topic=t\n");
  const auto midnight = [] {
    return FormatSnowTimestamp(SystemClock::Instance().NowSeconds()).substr(0, 10) + " 00:00:00";
  };
  const std::string before = midnight();
  auto started = Config::Load({.file = no_since});
  const std::string after = midnight();  // the day may turn while loading
  ASSERT_TRUE(started.ok()) << started.status().message();
  const std::string start = started->GetString("snow.table.incident.start.timestamp");
  EXPECT_TRUE(start == before || start == after) << start;
}

// The sink connector's file: the table becomes the sink's table, the reporter topics map, and
// the group is the one Kafka Connect used.
TEST_F(ConfigLoadTest, ConfluentSinkConnectorFileLoads) {
  const std::string path = dir_.Write("confluent-sink.properties", R"(name=snow-sink
connector.class=io.confluent.connect.servicenow.ServiceNowSinkConnector
topics=snow.commands
servicenow.url=https://dev1000.service-now.com
servicenow.table=incident
servicenow.username=integration
servicenow.password=change-me-123
reporter.bootstrap.servers=broker:9092
reporter.result.topic.name=snow.results
reporter.result.topic.replication.factor=3
reporter.error.topic.name=snow.errors
errors.tolerance=all
kafka.bootstrap.servers=127.0.0.1:9092
)");
  auto cfg = Config::Load({.file = path});
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->GetString("snow.sink.table"), "incident");
  EXPECT_EQ(cfg->GetList("snow.sink.topics"), (std::vector<std::string>{"snow.commands"}));
  EXPECT_EQ(cfg->GetString("snow.sink.reporter.success.topic"), "snow.results");
  EXPECT_EQ(cfg->GetString("snow.sink.reporter.error.topic"), "snow.errors");
  EXPECT_EQ(cfg->GetString("kafka.group.id"), "connect-snow-sink");
  EXPECT_FALSE(cfg->GetBool("source.enabled"));
  EXPECT_TRUE(cfg->GetBool("sink.enabled"));
  EXPECT_EQ(cfg->GetList("snow.tables"), std::vector<std::string>{});
}

// kafka.topic used to reach librdkafka silently; a Confluent key that cannot be mapped, or one
// given together with the snowcar key it sets, is an error naming both.
TEST_F(ConfigLoadTest, ConfluentKeysThatCannotBeMappedAreRefused) {
  EXPECT_THAT(ErrorOf(Config::FromMap(Shell({{"kafka.topic", "t"}}))),
              HasSubstr("kafka.topic: only a Confluent source connector's servicenow.table"));
  EXPECT_THAT(ErrorOf(Config::FromMap(Shell({{"servicenow.since", "2024-01-01"}}))),
              HasSubstr("servicenow.since: only a Confluent source connector's"));
  EXPECT_THAT(ErrorOf(Config::FromMap(Shell({{"servicenow.table", "incident"}}))),
              HasSubstr("cannot tell a source file from a sink file"));
  const std::map<std::string, std::string> source = {{"servicenow.table", "incident"},
                                                     {"kafka.topic", "t"}};
  auto with = [&](const std::map<std::string, std::string>& extra) {
    auto m = Shell(source);
    for (const auto& [k, v] : extra) m[k] = v;
    return ErrorOf(Config::FromMap(m));
  };
  EXPECT_THAT(with({{"snow.tables", "inc"}}),
              HasSubstr("both 'servicenow.table' [given] and 'snow.tables' [given]"));
  EXPECT_THAT(with({{"poll.interval.s", "0"}}),
              HasSubstr("poll.interval.s: '0' is not a whole number from 1"));
  EXPECT_THAT(with({{"retry.max.times", "three"}}),
              HasSubstr("retry.max.times: 'three' is not a whole number from 0"));
  EXPECT_THAT(with({{"poll.interval.s", "5"}, {"snow.source.poll.interval.ms", "100"}}),
              HasSubstr("'poll.interval.s' sets 'snow.source.poll.interval.ms'"));
  // A rewritten value is checked where it lands, naming the key it came from.
  EXPECT_THAT(with({{"servicenow.since", "2024-13-01"}}),
              AllOf(HasSubstr("snow.table.incident.start.timestamp"),
                    HasSubstr("[servicenow.since [given]]")));
  EXPECT_THAT(with({{"servicenow.user", "a"}, {"servicenow.username", "b"}}),
              HasSubstr("are both given; give one"));
}

using ConfigDeathTest = ConfigLoadTest;

TEST_F(ConfigDeathTest, UndeclaredKeyOrWrongTypeAborts) {
  auto cfg = Config::FromMap(Shell());
  ASSERT_TRUE(cfg.ok());
  EXPECT_DEATH((void)cfg->GetString("no.such.key"), "not declared in the option table");
  EXPECT_DEATH((void)cfg->GetInt("log.level"), "declared as enum");
  EXPECT_DEATH((void)cfg->GetBool("threads"), "declared as int");
}

}  // namespace
}  // namespace snowcar::config
