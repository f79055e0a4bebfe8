// SPDX-License-Identifier: Apache-2.0
// `snowcar config ...` driven in-process through ConfigMain, output captured from fds 1 and 2.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "snowcar/common/redact.h"
#include "snowcar/config/options.h"
#include "temp_dir.h"

namespace snowcar::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

struct Outcome {
  int code;
  std::string out;
  std::string err;
};

Outcome RunConfig(std::vector<std::string> args) {
  args.insert(args.begin(), "config");
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::testing::internal::CaptureStdout();
  ::testing::internal::CaptureStderr();
  const int code = ConfigMain(static_cast<int>(args.size()), argv.data());
  std::fflush(stdout);
  std::fflush(stderr);
  Outcome o{code, ::testing::internal::GetCapturedStdout(),
            ::testing::internal::GetCapturedStderr()};
  return o;
}

class CmdConfigTest : public ::testing::Test {
 protected:
  void TearDown() override { redact::ClearForTest(); }
  config::testing::TempDir dir_;
};

TEST_F(CmdConfigTest, CheckValidFilePrintsKeyCountAndNotes) {
  const std::string path = dir_.Write(
      "ok.properties", "source.enabled=false\nsink.enabled=false\nthreads=2\ntasks.max=1\n");
  const Outcome o = RunConfig({"check", path, "--set", "log.level=debug"});
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("config OK: 4 keys"));
  EXPECT_THAT(o.out, HasSubstr("note: tasks.max"));
}

TEST_F(CmdConfigTest, CheckInvalidExitsTwoListingEveryProblem) {
  const std::string path = dir_.Write("bad.properties", "threads=many\nlog.format=xml\nnope=1\n");
  const Outcome o =
      RunConfig({"check", path, "--set=source.enabled=false", "--set", "sink.enabled=0"});
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.err, HasSubstr("invalid configuration (4 problems)"));
  EXPECT_THAT(o.err, HasSubstr("threads: 'many'"));
  EXPECT_THAT(o.err, HasSubstr("log.format: 'xml'"));
  EXPECT_THAT(o.err, HasSubstr("unknown key 'nope'"));
  EXPECT_THAT(o.err, HasSubstr("sink.enabled: '0' is not a boolean"));
}

// Options may come before FILE: `--set k=v FILE` used to take FILE as a second value of --set.
TEST_F(CmdConfigTest, OptionsAnywhereOnTheCommandLine) {
  const std::string path =
      dir_.Write("ok.properties", "source.enabled=false\nsink.enabled=false\nthreads=2\n");
  const Outcome before = RunConfig({"check", "--set", "log.level=debug", path});
  EXPECT_EQ(before.code, 0) << before.err;
  EXPECT_THAT(before.out, HasSubstr("config OK: 4 keys"));
  const Outcome between =
      RunConfig({"check", "--set", "log.level=debug", path, "--set", "threads=3"});
  EXPECT_EQ(between.code, 0) << between.err;
  EXPECT_THAT(between.out, HasSubstr("config OK: 4 keys"));
  const Outcome print = RunConfig({"print", "--set=threads=5", "--set", "threads=4", path});
  EXPECT_EQ(print.code, 0) << print.err;
  EXPECT_THAT(print.out, HasSubstr("threads=4\n"));
}

TEST_F(CmdConfigTest, CheckAppliesProcessEnvironment) {
  const std::string path =
      dir_.Write("ok.properties", "source.enabled=false\nsink.enabled=false\n");
  ASSERT_EQ(setenv("SNOWCAR_THREADS", "lots", 1), 0);
  const Outcome o = RunConfig({"check", path});
  unsetenv("SNOWCAR_THREADS");
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.err, HasSubstr("threads: 'lots' is not a whole number"));
  EXPECT_THAT(o.err, HasSubstr("[environment SNOWCAR_THREADS]"));
}

// `config check` of a sink-only configuration (one table, one topic) whose Kafka clients
// would reach `bootstrap`, with `more` arguments after.
std::vector<std::string> SinkOnlyCheck(const std::string& bootstrap,
                                       const std::vector<std::string>& more = {}) {
  std::vector<std::string> args = {"check",
                                   "--set=source.enabled=false",
                                   "--set=sink.enabled=true",
                                   "--set=snow.url=https://x.example",
                                   "--set=snow.auth.username=svc",
                                   "--set=snow.auth.password=pw-123456",
                                   "--set=snow.sink.topics=cmds",
                                   "--set=snow.sink.table=incident",
                                   "--set=kafka.bootstrap.servers=" + bootstrap};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

// `config check` makes every check `run` makes before it starts. These passed `config check`
// and failed only when `run` created its Kafka clients (exit 1).
TEST_F(CmdConfigTest, CheckRefusesTheKafkaPropertiesRunWouldRefuse) {
  std::vector<std::string> args = SinkOnlyCheck("127.0.0.1:9092");
  const auto with = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> all = args;
    all.insert(all.end(), extra.begin(), extra.end());
    return RunConfig(all);
  };
  const Outcome ok = with({"--set=kafka.group.id=g"});
  EXPECT_EQ(ok.code, 0) << ok.err;

  const Outcome no_group = with({});
  EXPECT_EQ(no_group.code, 2);
  EXPECT_THAT(no_group.err, HasSubstr("kafka property 'group.id' is required"));

  const Outcome unknown = with({"--set=kafka.group.id=g", "--set=kafka.no.such.property=1"});
  EXPECT_EQ(unknown.code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("kafka property 'no.such.property'"));

  const Outcome bad_value = with({"--set=kafka.group.id=g", "--set=kafka.acks=sometimes"});
  EXPECT_EQ(bad_value.code, 2);
  EXPECT_THAT(bad_value.err, HasSubstr("kafka property 'acks'"));
}

// What librdkafka refuses only as it creates a client (rd_kafka_new), and an alias given
// beside its property with another value: `run` exits 2 on both, so the check does too. The
// check creates the clients with no broker, so it contacts none (bootstrap here is unused).
TEST_F(CmdConfigTest, CheckCreatesTheKafkaClientsAsRunWould) {
  const std::vector<std::string> base = SinkOnlyCheck(
      "127.0.0.1:1", {"--set=kafka.group.id=g", "--set=kafka.security.protocol=SASL_SSL",
                      "--set=kafka.sasl.username=u", "--set=kafka.sasl.password=kafka-pw-1"});
  const auto with = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> all = base;
    all.insert(all.end(), extra.begin(), extra.end());
    const Outcome o = RunConfig(all);
    redact::ClearForTest();
    return o;
  };
  const Outcome ok = with({"--set=kafka.sasl.mechanisms=SCRAM-SHA-512"});
  EXPECT_EQ(ok.code, 0) << ok.err;

  const Outcome unknown = with({"--set=kafka.sasl.mechanisms=SCRAM-SHA-999"});
  EXPECT_EQ(unknown.code, 2) << unknown.out;
  EXPECT_THAT(unknown.err, HasSubstr("cannot create the kafka"));
  EXPECT_THAT(unknown.err, HasSubstr("SCRAM-SHA-999"));
  EXPECT_THAT(unknown.err, Not(HasSubstr("kafka-pw-1")));

  const Outcome twice =
      with({"--set=kafka.sasl.mechanism=PLAIN", "--set=kafka.sasl.mechanisms=SCRAM-SHA-512"});
  EXPECT_EQ(twice.code, 2) << twice.out;
  EXPECT_THAT(twice.err, HasSubstr("kafka.sasl.mechanism or kafka.sasl.mechanisms"));
  const Outcome same =
      with({"--set=kafka.sasl.mechanism=PLAIN", "--set=kafka.sasl.mechanisms=PLAIN"});
  EXPECT_EQ(same.code, 0) << same.err;
}

// One pass lists every problem: a misspelt key used to end the check before the source's and
// the sink's own settings and the Kafka properties were looked at.
TEST_F(CmdConfigTest, CheckReportsEveryProblemInOnePass) {
  const std::string path = dir_.Write("all.properties",
                                      "snow.url=https://x.example\n"
                                      "snow.auth.username=svc\n"
                                      "snow.auth.password=pw-123456\n"
                                      "snow.tables=incident\n"
                                      "snow.tabel.incident.name=incident\n"
                                      "kafka.bootstrap.servers=127.0.0.1:9092\n"
                                      "kafka.security.protocol=SASL_SSLX\n"
                                      "kafka.bogus.key=1\n"
                                      "kafka.ssl.ca.location=/nonexistent/ca.pem\n"
                                      "kafka.ssl.truststore.location=/etc/kafka/trust.jks\n"
                                      "kafka.sasl.jaas.config=org.example.Login required "
                                      "username=\"u\" password=\"jaas-pw-42\";\n");
  const Outcome o = RunConfig({"check", path});
  EXPECT_EQ(o.code, 2);
  for (const std::string message : {
           "unknown key 'snow.tabel.incident.name'",
           "snow.table.incident.name is required",      // the source's own check
           "snow.sink.topics (or topics) is required",  // the sink's own check
           "kafka.ssl.ca.location: cannot read '/nonexistent/ca.pem': No such file or directory",
           "kafka property 'security.protocol'",
           "kafka property 'bogus.key'",
           "kafka property 'group.id' is required",
           "kafka property 'ssl.truststore.location'",
           "use ssl.ca.location with a PEM file",
           "kafka property 'sasl.jaas.config'",
           "sasl.username with sasl.password",
       }) {
    EXPECT_THAT(o.err, HasSubstr(message));
  }
  EXPECT_THAT(o.err, Not(HasSubstr("jaas-pw-42")));
}

// Each client the run would create checks the properties it takes; a property every client
// refuses is listed once, next to those only one kind refuses.
TEST_F(CmdConfigTest, CheckListsARefusedKafkaPropertyOnce) {
  const Outcome o =
      RunConfig({"check", "--set=source.enabled=false", "--set=snow.url=https://x.example",
                 "--set=snow.auth.username=svc", "--set=snow.auth.password=pw-123456",
                 "--set=snow.sink.topics=cmds", "--set=snow.sink.table=incident",
                 "--set=kafka.bootstrap.servers=127.0.0.1:9092", "--set=kafka.group.id=g",
                 "--set=kafka.bogus.key=1", "--set=kafka.acks=some",
                 "--set=kafka.auto.offset.reset=sometimes"});
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.err, HasSubstr("kafka property 'acks'"));               // the producers
  EXPECT_THAT(o.err, HasSubstr("kafka property 'auto.offset.reset'"));  // the consumer
  const std::string bogus = "kafka property 'bogus.key'";
  const size_t first = o.err.find(bogus);
  ASSERT_NE(first, std::string::npos) << o.err;
  EXPECT_EQ(o.err.find(bogus, first + 1), std::string::npos) << o.err;
}

// For CI, where the mounted secrets are absent: --no-secrets leaves secret files and the files
// Kafka properties name unopened, and still checks everything else.
TEST_F(CmdConfigTest, CheckWithoutSecretFiles) {
  const std::string path = dir_.Write("ci.properties",
                                      "source.enabled=false\n"
                                      "snow.url=https://x.example\n"
                                      "snow.auth.username=svc\n"
                                      "snow.auth.password.file=/absent/snow-password\n"
                                      "snow.sink.topics=commands\n"
                                      "snow.sink.table=incident\n"
                                      "kafka.bootstrap.servers=127.0.0.1:9092\n"
                                      "kafka.group.id=g\n"
                                      "kafka.security.protocol=SASL_SSL\n"
                                      "kafka.sasl.mechanism=SCRAM-SHA-512\n"
                                      "kafka.sasl.username.file=/absent/kafka-user\n"
                                      "kafka.sasl.password.file=/absent/kafka-password\n"
                                      "kafka.ssl.ca.location=/absent/ca.pem\n");
  const Outcome with = RunConfig({"check", path});
  EXPECT_EQ(with.code, 2);
  EXPECT_THAT(with.err, HasSubstr("snow.auth.password.file: cannot read"));
  EXPECT_THAT(with.err, HasSubstr("kafka.ssl.ca.location: cannot read"));

  const Outcome without = RunConfig({"check", path, "--no-secrets"});
  EXPECT_EQ(without.code, 0) << without.err;
  EXPECT_THAT(without.out, HasSubstr("snow.auth.password.file"));
  EXPECT_THAT(without.out, HasSubstr("not read (--no-secrets)"));
  // The files Kafka properties name are skipped too, and said to be.
  EXPECT_THAT(without.out, testing::ContainsRegex("note: kafka\\.ssl\\.ca\\.location \\[[^]]+\\] "
                                                  "was not opened \\(--no-secrets\\)"));

  // Everything else is still checked.
  const Outcome bad = RunConfig({"check", path, "--no-secrets", "--set", "kafka.acks=some"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_THAT(bad.err, HasSubstr("kafka property 'acks'"));
  EXPECT_THAT(RunConfig({"print", path, "--no-secrets"}).err,
              HasSubstr("unknown argument '--no-secrets'"));
}

TEST_F(CmdConfigTest, CheckWarnsAboutUnknownEnvironmentVariablesAndPasses) {
  const std::string path =
      dir_.Write("ok.properties", "source.enabled=false\nsink.enabled=false\n");
  ASSERT_EQ(setenv("SNOWCAR_BIN", "/opt/snowcar/bin/snowcar", 1), 0);
  const Outcome o = RunConfig({"check", path});
  unsetenv("SNOWCAR_BIN");
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.err, HasSubstr("warning: environment variable SNOWCAR_BIN names no "
                               "configuration key ('bin'), so it is ignored"));
}

TEST_F(CmdConfigTest, CheckWarnsWhenTheRevokeWaitIsShorterThanARequestAndPasses) {
  const std::string path =
      dir_.Write("sink.properties",
                 "source.enabled=false\nsnow.url=https://acme.service-now.com\n"
                 "snow.auth.username=svc\nsnow.auth.password=pw-123456\n"
                 "snow.sink.topics=cmds\nsnow.sink.table=incident\n"
                 "kafka.bootstrap.servers=127.0.0.1:9\n"
                 "kafka.group.id=g\nsnow.sink.revoke.timeout.ms=1000\n");
  const Outcome o = RunConfig({"check", path});
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.err, HasSubstr("warning: snow.sink.revoke.timeout.ms (1000) is below "
                               "snow.http.request.timeout.ms (60000)"));
}

// Exactly-once composes with deletes=audit and is refused (exit 2, naming the keys and the
// reason) where the state it would need is not written in its transactions: a source group's
// handoff and the reconciliation. A backfill's one range is said in a note.
TEST_F(CmdConfigTest, CheckRefusesExactlyOnceWhereItsTransactionsCannotCarryTheState) {
  const auto check = [&](const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"check",
                                     "--set=sink.enabled=false",
                                     "--set=snow.url=https://acme.service-now.com",
                                     "--set=snow.auth.username=svc",
                                     "--set=snow.auth.password=pw-123456",
                                     "--set=snow.tables=inc",
                                     "--set=snow.table.inc.name=incident",
                                     "--set=snow.table.inc.topic=sn.incident",
                                     "--set=kafka.bootstrap.servers=127.0.0.1:9",
                                     "--set=exactly.once.source.support=required"};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunConfig(args);
  };
  const Outcome audit =
      check({"--set=snow.table.inc.deletes=audit", "--set=snow.source.emit.tombstones=true"});
  EXPECT_EQ(audit.code, 0) << audit.err;
  EXPECT_THAT(audit.out, HasSubstr("<alias>.deletes for a table with deletes=audit"));
  EXPECT_THAT(audit.out, HasSubstr("snow.source.backfill.parallelism=4 is taken as 1"));

  const Outcome group = check({"--set=source.group.id=snowcar-src"});
  EXPECT_EQ(group.code, 2) << group.out;
  EXPECT_THAT(group.err, HasSubstr("exactly.once.source.support=required cannot be combined "
                                   "with source.group.id"));
  for (const std::string mode : {"reconcile", "audit+reconcile"}) {
    const Outcome reconcile = check({"--set=snow.table.inc.deletes=" + mode});
    EXPECT_EQ(reconcile.code, 2) << mode << reconcile.out;
    EXPECT_THAT(reconcile.err, HasSubstr("cannot be combined with snow.table.inc.deletes=" + mode +
                                         ": the reconciliation's DELETE records"));
  }
  // A transaction kept open near the coordinator's timeout would be aborted by the broker.
  const Outcome interval = check(
      {"--set=transaction.boundary=interval", "--set=transaction.boundary.interval.ms=40000"});
  EXPECT_EQ(interval.code, 2) << interval.out;
  EXPECT_THAT(interval.err, HasSubstr("transaction.boundary.interval.ms (40000) must be at most "
                                      "half of kafka.transaction.timeout.ms (60000, "
                                      "librdkafka's default)"));
  const Outcome raised =
      check({"--set=transaction.boundary=interval", "--set=transaction.boundary.interval.ms=40000",
             "--set=kafka.transaction.timeout.ms=90000"});
  EXPECT_EQ(raised.code, 0) << raised.err;
}

TEST_F(CmdConfigTest, PrintRedactsSecretsAndReparses) {
  const std::string path = dir_.Write("p.properties",
                                      "snow.url=https://acme.service-now.com/\n"
                                      "snow.auth.username=svc\nsnow.auth.password=pw-777777\n");
  const Outcome o = RunConfig({"print", path});
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr("snow.url=https://acme.service-now.com\n"));
  EXPECT_THAT(o.out, HasSubstr("snow.auth.password=[redacted]\n"));
  EXPECT_THAT(o.out, HasSubstr("threads=0\n"));
  EXPECT_THAT(o.out, Not(HasSubstr("pw-777777")));
}

TEST_F(CmdConfigTest, PrintJson) {
  const Outcome o = RunConfig({"print", "--json", "--set", "source.enabled=false", "--set",
                               "sink.enabled=false", "--set", "kafka.sasl.password=kpw-1234"});
  EXPECT_EQ(o.code, 0) << o.err;
  EXPECT_THAT(o.out, HasSubstr(R"("state.dir":"/var/lib/snowcar")"));
  EXPECT_THAT(o.out, HasSubstr(R"("kafka.sasl.password":"[redacted]")"));
}

// Every property librdkafka keeps secret (and the Java keys that carry credentials) is a secret
// of snowcar's too: `config print`, `--json` and the problems `config check` lists show none of
// their values, whatever the key's name says.
TEST_F(CmdConfigTest, NoKafkaSensitiveValueIsShownByPrintOrCheck) {
  std::string file = "source.enabled=false\nsink.enabled=false\n";
  std::vector<std::string> values;
  for (const std::string_view property : redact::SensitiveKafkaProperties()) {
    std::string value = "v" + std::to_string(values.size()) + "-q7Zx" + std::string(property);
    // A path must name a file that exists, or the check refuses it (naming the key only).
    if (property.ends_with(".location")) value = dir_.Write(value, "-");
    file += "kafka." + std::string(property) + "=" + value + "\n";
    values.push_back(std::move(value));
  }
  ASSERT_GE(values.size(), 10u);
  const std::string path = dir_.Write("sensitive.properties", file);
  const std::string bad = dir_.Write("sensitive-bad.properties", file + "threads=x\nnope=1\n");
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"print", path},
                                             {"print", "--json", path},
                                             {"check", path},
                                             {"check", bad},
                                             {"check", path, "--set=sink.enabled=true"}}) {
    const Outcome o = RunConfig(args);
    redact::ClearForTest();  // each run must keep the values out on its own
    for (const std::string& value : values) {
      EXPECT_THAT(o.out, Not(HasSubstr(value))) << args[0] << " " << args[1];
      EXPECT_THAT(o.err, Not(HasSubstr(value))) << args[0] << " " << args[1];
    }
    if (args[0] == "print" || (args.size() == 2 && args[1] == path)) {
      EXPECT_EQ(o.code, 0) << o.err;
    }
    if (args[0] == "print") {
      EXPECT_THAT(o.out, HasSubstr("kafka.sasl.jaas.config"));
      EXPECT_THAT(o.out, HasSubstr("kafka.ssl.key.pem"));
    } else if (args.size() > 2 || args[1] == bad) {
      EXPECT_EQ(o.code, 2) << o.out;
    }
  }
}

// Credentials inside a URL: the registry's (Confluent's basic.auth.credentials.source=URL) are
// accepted; ServiceNow's URLs refuse them. Neither check nor print shows the password.
TEST_F(CmdConfigTest, UrlUserInfoAcceptedOrRefusedNeverShown) {
  const std::string registry = dir_.Write("registry.properties",
                                          "source.enabled=false\nsink.enabled=false\n"
                                          "schema.registry.url=http://key:rEg-s3cret@127.0.0.1:1\n"
                                          "schema.registry.basic.auth.credentials.source=URL\n");
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"check", registry}, {"print", registry}, {"print", "--json", registry}}) {
    const Outcome o = RunConfig(args);
    redact::ClearForTest();
    EXPECT_EQ(o.code, 0) << o.err;
    EXPECT_THAT(o.out + o.err, Not(HasSubstr("rEg-s3cret"))) << args[1];
  }
  EXPECT_THAT(RunConfig({"print", registry}).out,
              HasSubstr("schema.registry.url=http://key:***@127.0.0.1:1\n"));
  redact::ClearForTest();

  for (const std::string key : {"snow.url", "snow.oauth.token.url", "snow.http.proxy.url"}) {
    const std::string path =
        dir_.Write("snow.properties", "source.enabled=false\nsink.enabled=false\n" + key +
                                          "=https://svc:sN0w-pass@acme.example\n");
    for (const std::string verb : {"check", "print"}) {
      const Outcome o = RunConfig({verb, path});
      redact::ClearForTest();
      EXPECT_EQ(o.code, 2) << key;
      EXPECT_THAT(o.err, HasSubstr(key + ": 'https://svc:***@acme.example' carries credentials"));
      EXPECT_THAT(o.out + o.err, Not(HasSubstr("sN0w-pass"))) << verb << " " << key;
    }
  }
}

TEST_F(CmdConfigTest, DocsPrintsTheReference) {
  const Outcome o = RunConfig({"docs"});
  EXPECT_EQ(o.code, 0);
  EXPECT_EQ(o.out, config::RenderMarkdownReference());
}

TEST_F(CmdConfigTest, UsageErrors) {
  EXPECT_EQ(RunConfig({}).code, 2);
  EXPECT_THAT(RunConfig({"frobnicate"}).err, HasSubstr("unknown subcommand 'frobnicate'"));
  EXPECT_THAT(RunConfig({"check", "--set"}).err, HasSubstr("--set needs a value"));
  EXPECT_THAT(RunConfig({"check", "a", "b"}).err, HasSubstr("more than one FILE"));
  EXPECT_THAT(RunConfig({"check", "--json"}).err, HasSubstr("unknown argument '--json'"));
  EXPECT_THAT(RunConfig({"docs", "extra"}).err, HasSubstr("unknown argument 'extra'"));
  EXPECT_EQ(RunConfig({"--help"}).code, 0);
}

TEST_F(CmdConfigTest, MissingFileExitsTwo) {
  const Outcome o = RunConfig({"check", dir_.Path("missing.properties")});
  EXPECT_EQ(o.code, 2);
  EXPECT_THAT(o.err, HasSubstr("missing.properties"));
}

}  // namespace
}  // namespace snowcar::cli
